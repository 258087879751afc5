// One rule for ids in bodies: a body may name only the Principal of the path (or, where the
// path names none, of the credential). Naming another is 403 forbidden and changes nothing, on
// every route alike; naming the same one is accepted. Before, PUT budget answered 422 (the field
// was unknown), and PUT step-up-policy and PUT timezone answered 200 and changed the caller's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, newPrincipal, type TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let mine: TestPrincipal;
let theirs: TestPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  mine = await newPrincipal(server);
  theirs = await newPrincipal(server);
});
afterAll(async () => {
  await server?.close();
});

const put = (path: string, body: Record<string, unknown>) =>
  request(server, 'PUT', `/api/v1/principals/${mine.principalId}${path}`, { apiKey: mine.apiKey, body });
const get = (path: string) =>
  request(server, 'GET', `/api/v1/principals/${mine.principalId}${path}`, { apiKey: mine.apiKey });

describe('a body naming another Principal', () => {
  it('PUT timezone: 403, nothing changed; the own id is accepted', async () => {
    const refused = await put('/timezone', { principal_id: theirs.principalId, timezone: 'Europe/Berlin' });
    expectEnvelope(refused, 403, 'forbidden');
    expect(refused.body.message).toBe("principal_id must be the caller's own Principal.");
    expect((await get('/timezone')).body).toMatchObject({ timezone: 'UTC' });
    const own = await put('/timezone', { principal_id: mine.principalId, timezone: 'Europe/Berlin' });
    expect(own.status).toBe(200);
    expect((await get('/timezone')).body).toMatchObject({ principal_id: mine.principalId, timezone: 'Europe/Berlin' });
  });

  it('PUT step-up-policy: 403, nothing changed; the own id is accepted', async () => {
    expectEnvelope(
      await put('/step-up-policy', { principal_id: theirs.principalId, confirmation: 'principal' }),
      403,
      'forbidden',
    );
    expect((await get('/step-up-policy')).body).toMatchObject({ confirmation: 'agent' });
    expect((await put('/step-up-policy', { principal_id: mine.principalId, confirmation: 'principal' })).status).toBe(
      200,
    );
    expect((await get('/step-up-policy')).body).toMatchObject({ confirmation: 'principal' });
  });

  it('PUT budget: 403 (not 422), nothing stored; the own id is accepted', async () => {
    const budget = { amount: '100.00', currency: 'USD', window: 'day' };
    expectEnvelope(await put('/budget', { principal_id: theirs.principalId, ...budget }), 403, 'forbidden');
    expect((await get('/budget')).status).toBe(404);
    expect((await put('/budget', { principal_id: mine.principalId, ...budget })).status).toBe(200);
    expect((await get('/budget')).body).toMatchObject({
      principal_id: mine.principalId,
      currency: 'USD',
      window: 'day',
    });
  });

  it('POST /agents (the Principal from the credential): 403 as before, and the other Principal untouched', async () => {
    const res = await request(server, 'POST', '/api/v1/agents', {
      apiKey: mine.apiKey,
      body: { principal_id: theirs.principalId, display_name: 'Elsewhere', capabilities: ['PURCHASE'] },
    });
    expectEnvelope(res, 403, 'forbidden');
    const own = await createAgent(server, mine, { principal_id: mine.principalId });
    expect(own.principal_id).toBe(mine.principalId);
    // The other Principal has no agent.
    const listed = await request<{ total: number }>(server, 'GET', '/api/v1/agents', { apiKey: theirs.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(0);
  });
});
