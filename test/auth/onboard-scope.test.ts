// Strict URL-prefix scopes (CONTRACT.md, issue 11): a Client key scoped `principals` does not
// reach POST /api/v1/onboard, which creates a Principal, an Agent and a Mandate at once;
// onboarding has its own scope, `onboard`. Full keys (no scope, or `*`) keep reaching it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboardBody, principalBody } from '../fixtures/onboarding.js';
import { issueClientKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { withDb } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let tenant: ProvisionedClient;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await provisionClient(server);
});
afterAll(async () => {
  await server?.close();
});

const onboard = (apiKey: string) =>
  request(server, 'POST', '/api/v1/onboard', { apiKey, body: onboardBody(tenant.programId) });
const createPrincipal = (apiKey: string) =>
  request(server, 'POST', '/api/v1/principals', { apiKey, body: principalBody(tenant.programId) });
const key = async (scopes: string) => (await issueClientKey(server, tenant.clientId, 'live', { scopes })).apiKey;

describe('the onboard scope', () => {
  it('a key scoped principals gets 403 on /onboard and creates nothing', async () => {
    const k = await key('principals');
    const count = () =>
      withDb(
        server,
        'live',
        async (sql) => (await sql<{ n: number }[]>`select count(*)::int as n from principals`)[0]?.n,
      );
    const before = await count();
    expectEnvelope(await onboard(k), 403, 'forbidden');
    expect(await count()).toBe(before);
    expect((await createPrincipal(k)).status).toBe(201);
  });

  it('a key scoped onboard onboards, and reaches nothing else of the Client plane', async () => {
    const k = await key('onboard');
    const res = await onboard(k);
    expect(res.status, res.text).toBe(201);
    expectEnvelope(await createPrincipal(k), 403, 'forbidden');
    const principalId = (res.body.principal as { id: string }).id;
    expectEnvelope(
      await request(server, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey: k }),
      403,
      'forbidden',
    );
  });

  it('principals,onboard reaches both; an unscoped and a * key reach both', async () => {
    for (const scopes of ['principals,onboard', '', '*']) {
      const k = await key(scopes);
      expect((await onboard(k)).status, `scopes "${scopes}"`).toBe(201);
      expect((await createPrincipal(k)).status, `scopes "${scopes}"`).toBe(201);
    }
  });

  it('onboard is a known scope at issue, echoed as issued', async () => {
    const res = await request(server, 'POST', `/admin/v1/clients/${tenant.clientId}/credentials`, {
      adminKey: server.adminKey,
      body: { environment: 'live', scopes: 'onboard, principals' },
    });
    expect(res.status).toBe(201);
    expect((res.body.credential as { scopes: string }).scopes).toBe('onboard,principals');
  });
});
