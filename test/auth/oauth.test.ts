// SPEC.md rule 4: client_credentials token exchange (form or JSON), EdDSA tokens verifiable
// with the JWKS, frozen scope and environment, bounded by the key's expiry, and dead at once
// when their key is revoked or expires.
import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal, expectUnauthorized, sleep } from '../fixtures/auth-modules.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let tenant: ProvisionedClient;
let principalId: string;
let principalKey: string;
let credentialId: string;

const TTL = 120;

beforeAll(async () => {
  server = await startTestServer({ OAUTH_TOKEN_TTL_SECONDS: String(TTL) });
  tenant = await provisionClient(server);
  principalId = await createPrincipal(server, tenant.liveKey, tenant.programId);
  ({ apiKey: principalKey, credentialId } = await issuePrincipalKey(server, principalId, 'live'));
});
afterAll(async () => {
  await server?.close();
});

interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

function decode(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [h, p] = token.split('.') as [string, string];
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString()),
    claims: JSON.parse(Buffer.from(p, 'base64url').toString()),
  };
}

async function mint(id: string, secret: string): Promise<TokenAnswer> {
  const res = await request<TokenAnswer>(server, 'POST', '/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: id, client_secret: secret },
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.body;
}

const me = (bearer: string) => request(server, 'GET', `/api/v1/principals/${principalId}`, { bearer });

describe('POST /oauth/token', () => {
  it('accepts JSON and answers the RFC 6749 shape with no-store caching', async () => {
    const res = await request<TokenAnswer>(server, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: principalId, client_secret: principalKey },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: 'Bearer',
      expires_in: TTL,
      scope: '*',
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await me(res.body.access_token)).status).toBe(200);
  });

  it('accepts application/x-www-form-urlencoded', async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: principalId,
      client_secret: principalKey,
    });
    const res = await request<TokenAnswer>(server, 'POST', '/oauth/token', {
      raw: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect((await me(res.body.access_token)).status).toBe(200);
  });

  it('accepts the credentials as HTTP Basic (RFC 6749 section 2.3.1)', async () => {
    const basic = Buffer.from(`${principalId}:${encodeURIComponent(principalKey)}`).toString('base64');
    const res = await request<TokenAnswer>(server, 'POST', '/oauth/token', {
      raw: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    });
    expect(res.status).toBe(200);
  });

  it('a missing grant_type is a validation error in the envelope', async () => {
    const res = await request(server, 'POST', '/oauth/token', { body: { client_id: principalId } });
    expect(res.status).toBe(422);
    expect((res.body as { error: string }).error).toBe('validation_error');
  });
});

describe('tokens', () => {
  it('are EdDSA JWTs that verify with a key from /.well-known/jwks.json', async () => {
    const { access_token } = await mint(principalId, principalKey);
    const jwks = await request<{ keys: Record<string, string>[] }>(server, 'GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    const { header, claims } = decode(access_token);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'JWT' });
    const jwk = jwks.body.keys.find((k) => k.kid === header.kid);
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    const [h, p, s] = access_token.split('.') as [string, string, string];
    const key = createPublicKey({ key: jwk as never, format: 'jwk' });
    expect(verify(null, Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'))).toBe(true);
    expect(claims).toMatchObject({
      sub: principalId,
      client_id: tenant.clientId,
      cid: credentialId,
      env: 'live',
      scope: '*',
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(TTL);
  });

  it('a tampered token is rejected like any bad credential', async () => {
    const { access_token } = await mint(principalId, principalKey);
    const [h, p, s] = access_token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'prn_other' })).toString('base64url')}.${s}`;
    expectUnauthorized(await request(server, 'GET', '/api/v1/principals/prn_other', { bearer: forged }));
    const noneAlg = `${Buffer.from(JSON.stringify({ alg: 'none', kid: decode(access_token).header.kid })).toString('base64url')}.${p}.`;
    expectUnauthorized(await me(noneAlg));
  });

  it('are refused on the Client plane and where only a Principal key is accepted', async () => {
    const { access_token } = await mint(principalId, principalKey);
    expectUnauthorized(
      await request(server, 'GET', `/api/v1/principals/${principalId}/agents`, { bearer: access_token }),
    );
    // Webhook management takes a Principal API key only.
    expectUnauthorized(await request(server, 'GET', '/api/v1/webhooks', { bearer: access_token }));
    expect((await request(server, 'GET', '/api/v1/webhooks', { apiKey: principalKey })).status).toBe(200);
  });

  it('freeze the scope of the key they were minted from', async () => {
    const scoped = await issuePrincipalKey(server, principalId, 'live', { scopes: 'agents' });
    const t = await mint(principalId, scoped.apiKey);
    expect(t.scope).toBe('agents');
    expect(decode(t.access_token).claims.scope).toBe('agents');
    const denied = await me(t.access_token);
    expect(denied.status).toBe(403);
    expect((denied.body as { error: string }).error).toBe('forbidden');
    const agents = await request(server, 'GET', '/api/v1/agents', { bearer: t.access_token });
    expect([401, 403]).not.toContain(agents.status);
  });

  it('never outlive the key: expires_in stops at the key expiry, and the token dies with it', async () => {
    const expiresAt = new Date(Date.now() + 2_000);
    const k = await issuePrincipalKey(server, principalId, 'live', { expiresAt: expiresAt.toISOString() });
    const t = await mint(principalId, k.apiKey);
    expect(t.expires_in).toBeLessThanOrEqual(2);
    expect(decode(t.access_token).claims.exp).toBeLessThanOrEqual(Math.floor(expiresAt.getTime() / 1000));
    expect((await me(t.access_token)).status).toBe(200);
    await sleep(expiresAt.getTime() - Date.now() + 50);
    expectUnauthorized(await me(t.access_token));
  });

  it('stop working at once when their key is revoked', async () => {
    const k = await issuePrincipalKey(server, principalId, 'live');
    const t1 = await mint(principalId, k.apiKey);
    const t2 = await mint(principalId, k.apiKey);
    expect((await me(t1.access_token)).status).toBe(200); // credential now cached
    const revoked = await request(server, 'POST', `/admin/v1/credentials/${k.credentialId}/revoke`, {
      adminKey: server.adminKey,
    });
    expect(revoked.status).toBe(200);
    expectUnauthorized(await me(t1.access_token));
    expectUnauthorized(await me(t2.access_token));
  });

  it('minted from a rotated-out key end with its grace window; rotation keeps other tokens', async () => {
    const k = await issuePrincipalKey(server, principalId, 'live');
    const before = await mint(principalId, k.apiKey);
    const rotated = await request(server, 'POST', `/admin/v1/credentials/${k.credentialId}/rotate`, {
      adminKey: server.adminKey,
      body: { grace_seconds: 30 },
    });
    const inGrace = await mint(principalId, k.apiKey);
    expect(inGrace.expires_in).toBeLessThanOrEqual(30);
    expect((await me(inGrace.access_token)).status).toBe(200);
    // Tokens carry the credential, which is still active: rotation does not revoke them.
    expect((await me(before.access_token)).status).toBe(200);
    expect((await mint(principalId, rotated.body.api_key as string)).expires_in).toBe(TTL);
  });
});
