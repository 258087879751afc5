// SPEC.md rule 3, last step, "when client tenancy is enabled" (CLIENT_TENANCY=on): a Client key
// on the Principal plane resolves to the Client's Principal when the Client owns exactly one
// Principal in that environment; otherwise 401. Off (the default), rule 1 holds: 401 always.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal, expectUnauthorized } from '../fixtures/auth-modules.js';
import { provisionClient } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ CLIENT_TENANCY: 'on' });
});
afterAll(async () => {
  await server?.close();
});

describe('Client key on the Principal plane', () => {
  it('0 Principals: 401; exactly 1: acts as that Principal (key and token); 2: 401', async () => {
    const tenant = await provisionClient(server);
    expectUnauthorized(await request(server, 'GET', '/api/v1/agents', { apiKey: tenant.liveKey }));
    const first = await createPrincipal(server, tenant.liveKey, tenant.programId);
    const own = await request<{ id: string }>(server, 'GET', `/api/v1/principals/${first}`, { apiKey: tenant.liveKey });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(first);
    const token = await request<{ access_token: string }>(server, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: first, client_secret: tenant.liveKey },
    });
    expect(token.status).toBe(200);
    // The sandbox holds no Principal of this Client: the sandbox key does not resolve.
    expectUnauthorized(await request(server, 'GET', `/api/v1/principals/${first}`, { apiKey: tenant.sandboxKey }));
    await createPrincipal(server, tenant.liveKey, tenant.programId);
    expectUnauthorized(await request(server, 'GET', `/api/v1/principals/${first}`, { apiKey: tenant.liveKey }));
  });
});
