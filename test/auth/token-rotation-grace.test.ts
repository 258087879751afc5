// An access token dies with the API key it was minted with (issue 11): when that key's
// rotation grace window ends, or the key is revoked, every token minted with it is refused
// with the uniform 401 at once, although the token's own TTL has not passed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal, expectUnauthorized, sleep } from '../fixtures/auth-modules.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let tenant: ProvisionedClient;
let principalId: string;

const TTL = 3600;

beforeAll(async () => {
  server = await startTestServer({ OAUTH_TOKEN_TTL_SECONDS: String(TTL) });
  tenant = await provisionClient(server);
  principalId = await createPrincipal(server, tenant.liveKey, tenant.programId);
});
afterAll(async () => {
  await server?.close();
});

async function mint(secret: string): Promise<{ token: string; exp: number }> {
  const res = await request<{ access_token: string }>(server, 'POST', '/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: principalId, client_secret: secret },
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  const claims = JSON.parse(Buffer.from(res.body.access_token.split('.')[1] as string, 'base64url').toString());
  return { token: res.body.access_token, exp: claims.exp as number };
}

const me = (bearer: string) => request(server, 'GET', `/api/v1/principals/${principalId}`, { bearer });
const rotate = (credentialId: string, graceSeconds: number) =>
  request<{ api_key: string; credential: { previous_key_expires_at: string } }>(
    server,
    'POST',
    `/admin/v1/credentials/${credentialId}/rotate`,
    { adminKey: server.adminKey, body: { grace_seconds: graceSeconds } },
  );

describe('a token minted with a key that is rotated out', () => {
  it('works inside the grace window and gets 401 right after it ends, long before its TTL', async () => {
    const k = await issuePrincipalKey(server, principalId, 'live');
    const before = await mint(k.apiKey);
    expect((await me(before.token)).status).toBe(200); // its credential is now cached
    const rotated = await rotate(k.credentialId, 2);
    expect(rotated.status).toBe(201);
    const graceEnd = Date.parse(rotated.body.credential.previous_key_expires_at);
    const afterRotation = await mint(rotated.body.api_key);
    // Inside the grace window: the token still works (rotation is not revocation).
    expect((await me(before.token)).status).toBe(200);
    await sleep(Math.max(0, graceEnd - Date.now()) + 150);
    // Its TTL is an hour away, yet it is refused like any bad credential.
    expect(before.exp * 1000).toBeGreaterThan(Date.now() + (TTL - 60) * 1000);
    expectUnauthorized(await me(before.token));
    // Tokens of the new key are unaffected.
    expect((await me(afterRotation.token)).status).toBe(200);
    expect((await me((await mint(rotated.body.api_key)).token)).status).toBe(200);
  });

  it('gets 401 at once when the key is rotated out with no grace', async () => {
    const k = await issuePrincipalKey(server, principalId, 'live');
    const t = await mint(k.apiKey);
    expect((await me(t.token)).status).toBe(200);
    const rotated = await rotate(k.credentialId, 0);
    expectUnauthorized(await me(t.token));
    expect((await me((await mint(rotated.body.api_key)).token)).status).toBe(200);
  });

  it('gets 401 at a second rotation, even inside the first grace window', async () => {
    const k = await issuePrincipalKey(server, principalId, 'live');
    const t1 = await mint(k.apiKey);
    const r1 = await rotate(k.credentialId, 600);
    const t2 = await mint(r1.body.api_key);
    expect((await me(t1.token)).status).toBe(200);
    await rotate(k.credentialId, 600);
    // Key 1 no longer authenticates at all, so neither does its token; key 2 is in its grace.
    expectUnauthorized(await me(t1.token));
    expect((await me(t2.token)).status).toBe(200);
  });

  it('gets 401 at once when the key is revoked', async () => {
    const k = await issuePrincipalKey(server, principalId, 'live');
    const t = await mint(k.apiKey);
    expect((await me(t.token)).status).toBe(200);
    const res = await request(server, 'POST', `/admin/v1/credentials/${k.credentialId}/revoke`, {
      adminKey: server.adminKey,
    });
    expect(res.status).toBe(200);
    expectUnauthorized(await me(t.token));
  });
});
