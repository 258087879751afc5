// With no TRUSTED_PROXIES, X-Forwarded-For is ignored entirely: the allowlist is matched
// against the connection's own address, whatever the caller claims.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal } from '../fixtures/auth-modules.js';
import { issueClientKey, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let direct: TestServer;

beforeAll(async () => {
  direct = await startTestServer();
});
afterAll(async () => {
  await direct?.close();
});

const xff = (v: string) => ({ 'x-forwarded-for': v });

describe('with no trusted proxy', () => {
  it('ignores X-Forwarded-For entirely', async () => {
    const tenant = await provisionClient(direct);
    const principalId = await createPrincipal(direct, tenant.liveKey, tenant.programId);
    const remote = await issueClientKey(direct, tenant.clientId, 'live', { ipAllowlist: ['203.0.113.7'] });
    const local = await issueClientKey(direct, tenant.clientId, 'live', { ipAllowlist: ['127.0.0.1'] });
    const call = (apiKey: string, from: string) =>
      request(direct, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey, headers: xff(from) });
    expectEnvelope(await call(remote.apiKey, '203.0.113.7'), 403, 'forbidden');
    expect((await call(local.apiKey, '203.0.113.7')).status).toBe(200);
  });
});
