// Per-credential rate limits over HTTP: after authentication, a credential over its bucket
// gets 429 rate_limited in the error envelope with Retry-After and the IETF RateLimit /
// RateLimit-Policy headers; other credentials keep their own budget; on /authorize the 429 is
// a transport answer (no decision, nothing in the authorization log).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizeSetup, authorizeBody, authorizeSetup } from '../fixtures/authorize-setup.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let setup: AuthorizeSetup;
const BURST = 4;

beforeAll(async () => {
  // 1 request per second sustained, bursts of 4, per credential.
  server = await startTestServer({ RATE_LIMIT_REQUESTS_PER_SECOND: '1', RATE_LIMIT_BURST_REQUESTS: String(BURST) });
  setup = await authorizeSetup(server);
  // Let the buckets used by the setup refill completely.
  await new Promise((r) => setTimeout(r, BURST * 1000 + 100));
});
afterAll(async () => {
  await server?.close();
});

describe('rate limits', () => {
  it('answers 429 rate_limited with Retry-After and RateLimit headers once the burst is spent', async () => {
    const path = `/api/v1/principals/${setup.principalId}/agents`;
    const statuses: number[] = [];
    for (let i = 0; i < BURST; i++) {
      statuses.push((await request(server, 'GET', path, { apiKey: setup.clientKey })).status);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    const res = await request(server, 'GET', path, { apiKey: setup.clientKey });
    const env = expectEnvelope(res, 429, 'rate_limited');
    expect(env.request_id).toBe(res.headers.get('x-request-id'));
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('ratelimit-policy')).toBe(`"credential";q=${BURST};w=${BURST}`);
    expect(res.headers.get('ratelimit')).toMatch(/^"credential";r=0;t=\d+$/);
  });

  it('keeps a separate budget per credential, and checks the credential before the limit', async () => {
    // The Client key is spent (previous test); the Principal key still has its burst.
    const res = await request(server, 'GET', `/api/v1/principals/${setup.principalId}`, { apiKey: setup.principalKey });
    expect(res.status).toBe(200);
    // A wrong key is 401, not 429.
    expectEnvelope(await request(server, 'GET', '/api/v1/agents', { apiKey: 'mdt_live_nope' }), 401, 'unauthorized');
  });

  it('refuses /authorize over the limit with a 429 envelope, not a decision, and logs nothing', async () => {
    const answers: { status: number; decision?: unknown; id?: unknown }[] = [];
    for (let i = 0; i < BURST + 2; i++) {
      const res = await request(server, 'POST', '/api/v1/authorize', {
        apiKey: setup.principalKey,
        body: authorizeBody(setup.agentId),
      });
      answers.push({ status: res.status, decision: res.body.decision, id: res.body.authorization_id });
      if (res.status === 429) {
        expectEnvelope(res, 429, 'rate_limited');
        expect(res.body.decision).toBeUndefined();
        expect(res.headers.get('retry-after')).not.toBeNull();
      }
    }
    const limited = answers.filter((a) => a.status === 429).length;
    const decided = answers.filter((a) => a.status === 200);
    expect(limited).toBeGreaterThanOrEqual(2);
    expect(decided.every((a) => typeof a.decision === 'string')).toBe(true);
    // Wait for a token, then read the log: exactly the decided requests are in it.
    await new Promise((r) => setTimeout(r, 1100));
    const log = await request<{ items: { id: string }[] }>(
      server,
      'GET',
      `/api/v1/authorize/log/agent/${setup.agentId}?limit=100`,
      { apiKey: setup.principalKey },
    );
    expect(log.status).toBe(200);
    expect(log.body.items.map((i) => i.id).sort()).toEqual(decided.map((a) => a.id as string).sort());
  });
});
