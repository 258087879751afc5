// SPEC.md rules 1 and 5: missing, unknown, malformed, expired, revoked and wrong-plane
// credentials, and an id/secret mismatch at /oauth/token, all get the same 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal, expectUnauthorized, unknownKey } from '../fixtures/auth-modules.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { type HttpResult, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn } from '../fixtures/test-db.js';

let server: TestServer;
let tenant: ProvisionedClient;
let principalId: string;
let principalKey: string;
let expiredKey: string;
let revokedKey: string;
let revokedClientKey: string;
let otherPrincipalKey: string;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await provisionClient(server);
  principalId = await createPrincipal(server, tenant.liveKey, tenant.programId);
  // A second Principal: the Client key no longer resolves as a Principal key (rule 3).
  const second = await createPrincipal(server, tenant.liveKey, tenant.programId);
  principalKey = (await issuePrincipalKey(server, principalId, 'live')).apiKey;
  otherPrincipalKey = (await issuePrincipalKey(server, second, 'live')).apiKey;
  const expiring = await issuePrincipalKey(server, principalId, 'live', {
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
  });
  expiredKey = expiring.apiKey;
  // Move its expiry into the past directly: the key has never been used, so nothing is cached.
  await sqlOn(server, 'live')`update credentials set expires_at = now() - interval '1 second'
    where id = ${expiring.credentialId}`;
  const revoked = await issuePrincipalKey(server, principalId, 'live');
  revokedKey = revoked.apiKey;
  await request(server, 'POST', `/admin/v1/credentials/${revoked.credentialId}/revoke`, { adminKey: server.adminKey });
  const revokedClient = await provisionClient(server);
  revokedClientKey = revokedClient.liveKey;
  await request(server, 'POST', `/admin/v1/credentials/${revokedClient.liveCredentialId}/revoke`, {
    adminKey: server.adminKey,
  });
});
afterAll(async () => {
  await server?.close();
});

function same(results: HttpResult[]): void {
  const shapes = results.map(expectUnauthorized);
  for (const s of shapes) expect(s).toEqual(shapes[0]);
  // Each answer still carries its own request id.
  expect(new Set(results.map((r) => (r.body as { request_id: string }).request_id)).size).toBe(results.length);
}

describe('identical 401', () => {
  it('on the Client plane: missing, unknown, malformed, legacy-unknown, revoked, sandbox-unknown, and a Principal key', async () => {
    const call = (apiKey?: string) =>
      request(server, 'GET', `/api/v1/principals/${principalId}/agents`, apiKey === undefined ? {} : { apiKey });
    // Sanity: the right key passes.
    expect((await call(tenant.liveKey)).status).toBe(200);
    same([
      await call(),
      await call(''),
      await call(unknownKey('live')),
      await call(unknownKey('sandbox')),
      await call('not-a-key'),
      await call('mdt_'),
      await call('mdt_legacyunknownkey0123456789abcdefABCDEF'),
      await call(`mdt_live_${'x'.repeat(300)}`),
      await call(revokedClientKey),
      await call(principalKey),
    ]);
  });

  it('on the Principal plane: missing, unknown, malformed, expired, revoked, bad bearer, and a Client key of a multi-Principal Client', async () => {
    const call = (opts: { apiKey?: string; bearer?: string; headers?: Record<string, string> }) =>
      request(server, 'GET', `/api/v1/principals/${principalId}`, opts);
    expect((await call({ apiKey: principalKey })).status).toBe(200);
    same([
      await call({}),
      await call({ apiKey: unknownKey() }),
      await call({ apiKey: 'garbage' }),
      await call({ apiKey: expiredKey }),
      await call({ apiKey: revokedKey }),
      await call({ apiKey: tenant.liveKey }),
      await call({ bearer: 'not.a.jwt' }),
      await call({ bearer: '' }),
      await call({ bearer: principalKey }),
      await call({ headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } }),
      await call({ headers: { authorization: 'Bearer' } }),
    ]);
  });

  it('at /oauth/token: no credentials, unknown secret, mismatched id, expired, revoked, Client key', async () => {
    const token = (body: Record<string, unknown>) =>
      request(server, 'POST', '/oauth/token', { body: { grant_type: 'client_credentials', ...body } });
    expect((await token({ client_id: principalId, client_secret: principalKey })).status).toBe(200);
    same([
      await token({}),
      await token({ client_id: principalId }),
      await token({ client_secret: principalKey }),
      await token({ client_id: principalId, client_secret: unknownKey() }),
      await token({ client_id: 'prn_someoneelse', client_secret: principalKey }),
      await token({ client_id: principalId, client_secret: otherPrincipalKey }),
      await token({ client_id: principalId, client_secret: expiredKey }),
      await token({ client_id: principalId, client_secret: revokedKey }),
      await token({ client_id: principalId, client_secret: tenant.liveKey }),
      await token({ client_id: 42, client_secret: ['x'] }),
      // The same 401 as a key failure on any other endpoint.
      await request(server, 'GET', `/api/v1/principals/${principalId}`, { apiKey: unknownKey() }),
    ]);
  });

  it('a wrong grant_type is a 400 in the envelope, not a hint about the credentials', async () => {
    const res = await request(server, 'POST', '/oauth/token', {
      body: { grant_type: 'password', client_id: principalId, client_secret: principalKey },
    });
    expect(res.status).toBe(400);
    expect((res.body as { error: string }).error).toBe('unsupported_grant_type');
  });
});
