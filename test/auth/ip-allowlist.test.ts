// SPEC.md "IP allowlist": a credential bound to addresses is refused from anywhere else with
// 403 before processing. The client address comes from X-Forwarded-For only through
// TRUSTED_PROXIES, so a caller cannot spoof its way in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal } from '../fixtures/auth-modules.js';
import { issueClientKey, issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

// Behind a proxy: the test client (127.0.0.1) plays the trusted proxy.
let proxied: TestServer;

beforeAll(async () => {
  proxied = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1/32' });
});
afterAll(async () => {
  await proxied?.close();
});

const xff = (v: string) => ({ 'x-forwarded-for': v });

describe('behind a trusted proxy', () => {
  let tenant: ProvisionedClient;
  let principalId: string;
  beforeAll(async () => {
    tenant = await provisionClient(proxied);
    principalId = await createPrincipal(proxied, tenant.liveKey, tenant.programId);
  });

  it('admits the allowlisted address the proxy reports, v4, CIDR and v6', async () => {
    const k = await issueClientKey(proxied, tenant.clientId, 'live', {
      ipAllowlist: ['203.0.113.7', '10.0.0.0/8', '2001:db8::/32'],
    });
    const call = (from: string) =>
      request(proxied, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey: k.apiKey, headers: xff(from) });
    for (const ok of ['203.0.113.7', '10.20.30.40', '2001:db8::1', '::ffff:10.1.1.1'])
      expect((await call(ok)).status).toBe(200);
    for (const bad of ['203.0.113.8', '11.0.0.1', '2001:db9::1']) expectEnvelope(await call(bad), 403, 'forbidden');
    // No header: the proxy itself is the client.
    expectEnvelope(
      await request(proxied, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey: k.apiKey }),
      403,
      'forbidden',
    );
  });

  it('a spoofed left-most X-Forwarded-For entry is not believed', async () => {
    const k = await issuePrincipalKey(proxied, principalId, 'live', { ipAllowlist: ['203.0.113.7'] });
    const call = (from: string) =>
      request(proxied, 'GET', `/api/v1/principals/${principalId}`, { apiKey: k.apiKey, headers: xff(from) });
    expect((await call('203.0.113.7')).status).toBe(200);
    // The caller (198.51.100.9) sent "203.0.113.7" itself; the trusted proxy appended the real address.
    expectEnvelope(await call('203.0.113.7, 198.51.100.9'), 403, 'forbidden');
  });

  it('applies at the token endpoint and to tokens', async () => {
    const k = await issuePrincipalKey(proxied, principalId, 'live', { ipAllowlist: ['203.0.113.7'] });
    const body = { grant_type: 'client_credentials', client_id: principalId, client_secret: k.apiKey };
    expectEnvelope(
      await request(proxied, 'POST', '/oauth/token', { body, headers: xff('198.51.100.9') }),
      403,
      'forbidden',
    );
    const t = await request<{ access_token: string }>(proxied, 'POST', '/oauth/token', {
      body,
      headers: xff('203.0.113.7'),
    });
    expect(t.status).toBe(200);
    const me = (from: string) =>
      request(proxied, 'GET', `/api/v1/principals/${principalId}`, { bearer: t.body.access_token, headers: xff(from) });
    expect((await me('203.0.113.7')).status).toBe(200);
    expectEnvelope(await me('198.51.100.9'), 403, 'forbidden');
  });

  it('is checked before the body is processed', async () => {
    const k = await issueClientKey(proxied, tenant.clientId, 'live', { ipAllowlist: ['203.0.113.7'] });
    const res = await request(proxied, 'POST', '/api/v1/principals', {
      apiKey: k.apiKey,
      body: {},
      headers: xff('198.51.100.9'),
    });
    expectEnvelope(res, 403, 'forbidden');
  });
});
