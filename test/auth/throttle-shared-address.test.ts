// One tenant's wrong keys must not lock the others out of /authorize: an integrator calls for
// many Principals from one egress address (a cloud NAT). 50 requests with wrong keys throttle
// the address (AUTH_FAILURE_LIMIT's default); then the Principals whose keys authenticated
// before still get decisions from that address, while wrong keys and a valid key never seen get
// 429 without a lookup. The log records the failures and the throttle.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectUnauthorized, unknownKey } from '../fixtures/auth-modules.js';
import { type AuthorizeSetup, authorizeBody, authorizeSetup } from '../fixtures/authorize-setup.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

const NAT = '198.51.100.77';
const lines: string[] = [];
let server: TestServer;
let tenants: AuthorizeSetup[];

beforeAll(async () => {
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  // The default limit (50 failures a minute); the edge tells sources apart by X-Forwarded-For.
  server = await startTestServer({ AUTH_FAILURE_LIMIT: '50', TRUSTED_PROXIES: '127.0.0.1/32' }, { log });
  tenants = [await authorizeSetup(server), await authorizeSetup(server)];
});
afterAll(async () => {
  await server?.close();
});

const authorize = (apiKey: string, agentId: string, ip = NAT) =>
  request<{ decision: string }>(server, 'POST', '/api/v1/authorize', {
    apiKey,
    headers: { 'x-forwarded-for': ip },
    body: authorizeBody(agentId),
  });

describe('a throttled address shared by several tenants', () => {
  it('keeps deciding for valid keys while wrong keys get 429', async () => {
    // Both tenants' keys have authenticated before (set-up) and decide from the address.
    for (const t of tenants) expect((await authorize(t.principalKey, t.agentId)).body.decision).toBe('APPROVE');
    const [first] = tenants as [AuthorizeSetup];
    for (let i = 0; i < 50; i++) expectUnauthorized(await authorize(unknownKey(), first.agentId));

    // The address is throttled: guesses get 429 with Retry-After, before any lookup.
    const guess = await authorize(unknownKey(), first.agentId);
    expectEnvelope(guess, 429, 'rate_limited');
    expect(Number(guess.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Valid keys behind the same address get decisions, for every tenant, many times.
    for (let round = 0; round < 5; round++) {
      for (const t of tenants) {
        const res = await authorize(t.principalKey, t.agentId);
        expect(res.status).toBe(200);
        expect(res.body.decision).toBe('APPROVE');
      }
    }
    // Another address is not throttled at all.
    expectUnauthorized(await authorize(unknownKey(), first.agentId, '198.51.100.78'));

    const parsed = lines.map((l) => JSON.parse(l) as { msg: string; ip?: string; failure?: string });
    expect(parsed.filter((l) => l.msg === 'authentication failed' && l.ip === NAT)).toHaveLength(50);
    expect(parsed.filter((l) => l.msg.includes('source throttled') && l.ip === NAT)).toHaveLength(1);
  });
});
