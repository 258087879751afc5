// Failed authentications are logged and throttled per source: each failure is a warn line with
// the source address, the route template and the failure class, never the key; after
// AUTH_FAILURE_LIMIT failures within AUTH_FAILURE_WINDOW_SECONDS the source gets 429
// rate_limited with Retry-After until the window ends for every key it has not shown to be
// valid (unknown, wrong, or valid but never seen authenticating), with no lookup. The throttle
// refuses guesses, not customers: a key that authenticated recently (from any address), the
// operator key and a verified access token still work from that source. Other sources are not
// affected. Sources are told apart through TRUSTED_PROXIES, as the edge resolves them.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal, expectUnauthorized, sleep, unknownKey } from '../fixtures/auth-modules.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

const LIMIT = 5;
const WINDOW_SECONDS = 3;

interface LogLine {
  level: number;
  msg: string;
  ip?: string;
  route?: string;
  failure?: string;
  credential_id?: string;
}

const lines: string[] = [];
let server: TestServer;
let tenant: ProvisionedClient;
let principalId: string;
let principalKey: string;

beforeAll(async () => {
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  server = await startTestServer(
    {
      AUTH_FAILURE_LIMIT: String(LIMIT),
      AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS),
      TRUSTED_PROXIES: '127.0.0.1/32',
    },
    { log },
  );
  tenant = await provisionClient(server);
  principalId = await createPrincipal(server, tenant.liveKey, tenant.programId);
  principalKey = (await issuePrincipalKey(server, principalId, 'live')).apiKey;
});
afterAll(async () => {
  await server?.close();
});

const from = (ip: string) => ({ 'x-forwarded-for': ip });
const clientCall = (ip: string, apiKey: string) =>
  request(server, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey, headers: from(ip) });

function failuresOf(ip: string): LogLine[] {
  return lines.map((l) => JSON.parse(l) as LogLine).filter((l) => l.msg === 'authentication failed' && l.ip === ip);
}

describe('failed authentications', () => {
  it('after the limit, the source gets 429 for unknown keys, and keys known to be valid still get answers', async () => {
    const ip = '203.0.113.10';
    // A valid Principal key never used yet: the throttle cannot tell it from a guess.
    const unseen = (await issuePrincipalKey(server, principalId, 'live')).apiKey;
    // An access token verified before the throttle (a Principal's OAuth client).
    const token = await request<{ access_token: string }>(server, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: principalId, client_secret: principalKey },
    });
    expect(token.status).toBe(200);
    const bearer = token.body.access_token;
    expect((await request(server, 'GET', `/api/v1/principals/${principalId}`, { bearer })).status).toBe(200);
    // The Principal key authenticates once, from another address.
    expect(
      (
        await request(server, 'GET', `/api/v1/principals/${principalId}`, {
          apiKey: principalKey,
          headers: from('192.0.2.50'),
        })
      ).status,
    ).toBe(200);

    const keys: string[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const k = unknownKey();
      keys.push(k);
      expectUnauthorized(await clientCall(ip, k));
    }
    // Guesses: an unknown key and a valid key never seen authenticating get 429, before any lookup.
    const throttled = await clientCall(ip, unknownKey());
    expectEnvelope(throttled, 429, 'rate_limited');
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(throttled.body.message).toContain(`retry after ${retryAfter} s`);
    expectEnvelope(
      await request(server, 'GET', `/api/v1/principals/${principalId}`, { apiKey: unseen, headers: from(ip) }),
      429,
      'rate_limited',
    );
    expectEnvelope(
      await request(server, 'POST', '/oauth/token', {
        headers: from(ip),
        body: { grant_type: 'client_credentials', client_id: principalId, client_secret: unknownKey() },
      }),
      429,
      'rate_limited',
    );
    expectEnvelope(
      await request(server, 'POST', '/admin/v1/clients', {
        adminKey: 'wrong-admin-key-0123456789',
        headers: from(ip),
        body: { name: 'x' },
      }),
      429,
      'rate_limited',
    );
    // Customers behind the same address: keys known to be valid are answered, on both planes,
    // at /oauth/token, with a token, and with the operator key.
    expect((await clientCall(ip, tenant.liveKey)).status).toBe(200);
    expect(
      (await request(server, 'GET', `/api/v1/principals/${principalId}`, { apiKey: principalKey, headers: from(ip) }))
        .status,
    ).toBe(200);
    expect(
      (
        await request(server, 'POST', '/oauth/token', {
          headers: from(ip),
          body: { grant_type: 'client_credentials', client_id: principalId, client_secret: principalKey },
        })
      ).status,
    ).toBe(200);
    expect(
      (await request(server, 'GET', `/api/v1/principals/${principalId}`, { bearer, headers: from(ip) })).status,
    ).toBe(200);
    expect(
      (await request(server, 'GET', '/admin/v1/clients', { adminKey: server.adminKey, headers: from(ip) })).status,
    ).toBe(200);
    // Another source is not affected.
    expect((await clientCall('203.0.113.11', tenant.liveKey)).status).toBe(200);
    expectUnauthorized(await clientCall('203.0.113.11', unknownKey()));
    // The window ends: the unseen valid key works.
    await sleep(retryAfter * 1000 + 100);
    expect(
      (await request(server, 'GET', `/api/v1/principals/${principalId}`, { apiKey: unseen, headers: from(ip) })).status,
    ).toBe(200);

    // Logged: one warn line per failure with ip, route and class, never the key; the 429s of
    // the throttled source are not failures of their own.
    const logged = failuresOf(ip);
    expect(logged).toHaveLength(LIMIT);
    for (const l of logged) {
      expect(l.level).toBe(40);
      expect(l).toMatchObject({ route: '/api/v1/principals/:principal_id/agents', failure: 'unknown' });
    }
    const all = lines.join('\n');
    for (const k of [...keys, tenant.liveKey, principalKey, unseen]) expect(all).not.toContain(k);
    expect(all).toContain('source throttled');
  });

  it('logs the class of each failure: revoked, wrong plane, bad token, wrong admin key, bad client secret', async () => {
    const revoked = await issuePrincipalKey(server, principalId, 'live');
    await request(server, 'POST', `/admin/v1/credentials/${revoked.credentialId}/revoke`, {
      adminKey: server.adminKey,
    });
    const cases: [string, () => Promise<unknown>, string, string][] = [
      [
        '198.51.100.1',
        () =>
          request(server, 'GET', `/api/v1/principals/${principalId}`, {
            apiKey: revoked.apiKey,
            headers: from('198.51.100.1'),
          }),
        'revoked',
        '/api/v1/principals/:principal_id',
      ],
      [
        '198.51.100.2',
        () => clientCall('198.51.100.2', principalKey),
        'wrong_plane',
        '/api/v1/principals/:principal_id/agents',
      ],
      [
        '198.51.100.3',
        () =>
          request(server, 'GET', `/api/v1/principals/${principalId}`, {
            bearer: 'not.a.token',
            headers: from('198.51.100.3'),
          }),
        'token_invalid',
        '/api/v1/principals/:principal_id',
      ],
      [
        '198.51.100.4',
        () =>
          request(server, 'POST', '/admin/v1/clients', {
            adminKey: 'wrong-admin-key-0123456789',
            headers: from('198.51.100.4'),
            body: { name: 'x' },
          }),
        'admin_key',
        '/admin/v1/clients',
      ],
      [
        '198.51.100.5',
        () =>
          request(server, 'POST', '/oauth/token', {
            headers: from('198.51.100.5'),
            body: { grant_type: 'client_credentials', client_id: principalId, client_secret: unknownKey() },
          }),
        'unknown',
        '/oauth/token',
      ],
    ];
    for (const [ip, call, failure, route] of cases) {
      await call();
      const logged = failuresOf(ip);
      expect(logged, failure).toHaveLength(1);
      expect(logged[0]).toMatchObject({ failure, route });
    }
    // A credential that was found is named by its id (never by its key).
    expect(failuresOf('198.51.100.1')[0]?.credential_id).toBe(revoked.credentialId);
    expect(lines.join('\n')).not.toContain(revoked.apiKey);
  });
});
