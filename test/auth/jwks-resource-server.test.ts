// A resource server's view of the access tokens: it fetches GET /.well-known/jwks.json with
// jose's createRemoteJWKSet (as any RFC 7517 consumer would) and verifies an issued token with
// it, claims included; a token altered in any part verifies neither there nor at the service,
// which answers the same 401 as for any other bad credential.
import { generateKeyPairSync } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal, expectUnauthorized } from '../fixtures/auth-modules.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const TTL = 600;
const ISSUER = 'agent-spending-authorization';

let server: TestServer;
let tenant: ProvisionedClient;
let principalId: string;
let principalKey: string;
let credentialId: string;

beforeAll(async () => {
  server = await startTestServer({ OAUTH_TOKEN_TTL_SECONDS: String(TTL) });
  tenant = await provisionClient(server);
  principalId = await createPrincipal(server, tenant.liveKey, tenant.programId);
  ({ apiKey: principalKey, credentialId } = await issuePrincipalKey(server, principalId, 'live'));
});
afterAll(async () => {
  await server?.close();
});

async function mint(): Promise<{ access_token: string; expires_in: number; scope: string }> {
  const res = await request<{ access_token: string; expires_in: number; scope: string }>(
    server,
    'POST',
    '/oauth/token',
    { body: { grant_type: 'client_credentials', client_id: principalId, client_secret: principalKey } },
  );
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.body;
}

const me = (bearer: string) => request(server, 'GET', `/api/v1/principals/${principalId}`, { bearer });

/** The token with one base64url character of the given part (0 header, 1 payload, 2 signature) changed. */
function flip(token: string, part: 0 | 1 | 2): string {
  const parts = token.split('.');
  const s = parts[part] as string;
  const i = Math.floor(s.length / 2);
  parts[part] = `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
  return parts.join('.');
}

describe('access tokens verified by a resource server with the published JWKS', () => {
  it('an issued token verifies with createRemoteJWKSet over /.well-known/jwks.json, every claim intact', async () => {
    const { access_token, expires_in, scope } = await mint();
    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(access_token, jwks, {
      issuer: ISSUER,
      algorithms: ['EdDSA'],
      typ: 'JWT',
    });
    expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'JWT', kid: expect.stringMatching(/^sk_/) });
    expect(payload).toEqual({
      iss: ISSUER,
      sub: principalId,
      client_id: tenant.clientId,
      cid: credentialId,
      env: 'live',
      scope,
      kh: expect.any(String),
      iat: expect.any(Number),
      exp: expect.any(Number),
      jti: expect.any(String),
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(expires_in);
    expect(expires_in).toBe(TTL);
    // The service accepts it too.
    expect((await me(access_token)).status).toBe(200);
  });

  it('the JWKS document publishes public Ed25519 keys only, in the Jwks schema shape', async () => {
    const res = await request<{ keys: Record<string, unknown>[] }>(server, 'GET', '/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.body.keys.length).toBeGreaterThan(0);
    for (const k of res.body.keys) {
      expect(k).toEqual({
        kty: 'OKP',
        crv: 'Ed25519',
        x: expect.stringMatching(/^[\w-]{43}$/),
        // sk_: access tokens; rk_: decision receipts.
        kid: expect.stringMatching(/^(sk|rk)_/),
        use: 'sig',
        alg: 'EdDSA',
      });
    }
    const { kid } = decodeProtectedHeader((await mint()).access_token);
    expect(res.body.keys.map((k) => k.kid)).toContain(kid);
  });

  it('a tampered token fails at the resource server and is refused by the service with the uniform 401', async () => {
    const { access_token } = await mint();
    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
    const baseline = expectUnauthorized(await me('not-a-token'));

    // Elevated claims under the genuine signature: a different scope and subject.
    const [h, p, s] = access_token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    const elevated = `${h}.${Buffer.from(JSON.stringify({ ...claims, scope: '*', env: 'sandbox' })).toString('base64url')}.${s}`;
    // A token signed by another key that claims the service's kid.
    const other = generateKeyPairSync('ed25519').privateKey;
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: decodeProtectedHeader(access_token).kid as string })
      .sign(other);
    // Unsigned (alg none).
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;

    for (const bad of [flip(access_token, 1), flip(access_token, 2), elevated, forged]) {
      await expect(jwtVerify(bad, jwks, { issuer: ISSUER, algorithms: ['EdDSA'] })).rejects.toBeInstanceOf(
        errors.JOSEError,
      );
      expect(expectUnauthorized(await me(bad))).toEqual(baseline);
    }
    for (const bad of [flip(access_token, 0), none]) {
      expect(expectUnauthorized(await me(bad))).toEqual(baseline);
    }
    // The genuine token still works after all that (no cache confusion).
    expect((await me(access_token)).status).toBe(200);
  });
});
