// SPEC.md "Scopes": empty or * is full access; otherwise the path must fall under an allowed
// scope's prefix, else 403 forbidden. Applies to Client keys, Principal keys and tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal } from '../fixtures/auth-modules.js';
import { principalBody } from '../fixtures/onboarding.js';
import { issueClientKey, issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let tenant: ProvisionedClient;
let principalId: string;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await provisionClient(server);
  principalId = await createPrincipal(server, tenant.liveKey, tenant.programId);
});
afterAll(async () => {
  await server?.close();
});

describe('Client key scopes', () => {
  it('principals covers /principals but not /onboard; agents covers neither', async () => {
    const principals = await issueClientKey(server, tenant.clientId, 'live', { scopes: 'principals' });
    const agents = await issueClientKey(server, tenant.clientId, 'live', { scopes: 'agents' });
    const create = (apiKey: string) =>
      request(server, 'POST', '/api/v1/principals', { apiKey, body: principalBody(tenant.programId) });
    expect((await create(principals.apiKey)).status).toBe(201);
    expectEnvelope(await create(agents.apiKey), 403, 'forbidden');
    // Scope is checked before the body: an out-of-scope call learns nothing about validation.
    for (const k of [agents.apiKey, principals.apiKey]) {
      expectEnvelope(await request(server, 'POST', '/api/v1/onboard', { apiKey: k, body: {} }), 403, 'forbidden');
    }
  });

  it('empty and * are full access; a list opens each listed prefix', async () => {
    for (const scopes of ['', '*', 'agents,principals']) {
      const k = await issueClientKey(server, tenant.clientId, 'live', { scopes });
      const res = await request(server, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey: k.apiKey });
      expect(res.status).toBe(200);
    }
  });
});

describe('Principal key and token scopes', () => {
  it('a key scoped to agents reaches /agents but not /principals', async () => {
    const k = await issuePrincipalKey(server, principalId, 'live', { scopes: 'agents' });
    expectEnvelope(
      await request(server, 'GET', `/api/v1/principals/${principalId}`, { apiKey: k.apiKey }),
      403,
      'forbidden',
    );
    const agents = await request(server, 'GET', '/api/v1/agents', { apiKey: k.apiKey });
    expect(agents.status).toBe(200);
  });

  it('a key scoped to principals reads its own record', async () => {
    const k = await issuePrincipalKey(server, principalId, 'live', { scopes: 'principals' });
    expect((await request(server, 'GET', `/api/v1/principals/${principalId}`, { apiKey: k.apiKey })).status).toBe(200);
    expectEnvelope(await request(server, 'GET', '/api/v1/agents', { apiKey: k.apiKey }), 403, 'forbidden');
  });

  it('the token minted from a scoped key carries that scope', async () => {
    const k = await issuePrincipalKey(server, principalId, 'live', { scopes: 'principals,authorize' });
    const t = await request<{ access_token: string; scope: string }>(server, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: principalId, client_secret: k.apiKey },
    });
    expect(t.body.scope).toBe('principals,authorize');
    expect(
      (await request(server, 'GET', `/api/v1/principals/${principalId}`, { bearer: t.body.access_token })).status,
    ).toBe(200);
    expectEnvelope(await request(server, 'GET', '/api/v1/agents', { bearer: t.body.access_token }), 403, 'forbidden');
  });
});
