// Rate limits over HTTP: 1,000 rapid requests from one key are refused with 429 once the key's
// bucket is spent (they used to all pass); a Client's keys share
// the per-Client limit; every 429 is the error envelope with Retry-After and the IETF RateLimit
// headers naming the limit that refused.
import { afterAll, describe, expect, it } from 'vitest';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, type HttpResult, request, startTestServer, type TestServer } from '../fixtures/server.js';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function server(env: Record<string, string>): Promise<TestServer> {
  const s = await startTestServer(env);
  servers.push(s);
  return s;
}

async function principalKeys(s: TestServer, n: number): Promise<{ clientId: string; keys: string[] }> {
  const client = await provisionClient(s);
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    const principalId = await insertPrincipalRow(s, 'live', client.clientId);
    keys.push((await issuePrincipalKey(s, principalId, 'live')).apiKey);
  }
  return { clientId: client.clientId, keys };
}

function expect429(res: HttpResult, policy: 'credential' | 'client'): void {
  expectEnvelope(res, 429, 'rate_limited');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"${policy}";r=0;t=\\d+$`));
  expect(res.headers.get('ratelimit-policy')).toContain(`"${policy}";q=`);
}

describe('a key over its limit', () => {
  it('gets 429 for 1,000 rapid requests once its burst is spent (they used to all pass)', async () => {
    // The defaults (1,000/s per key, burst 2,000: test/admin/client-rate-limits.test.ts) are
    // above what one test client sends; a limit of a tenth of them shows the same mechanism.
    const s = await server({
      RATE_LIMIT_REQUESTS_PER_SECOND: '100',
      RATE_LIMIT_BURST_REQUESTS: '200',
      RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '1000',
      RATE_LIMIT_CLIENT_BURST_REQUESTS: '2000',
    });
    const { keys } = await principalKeys(s, 1);
    const apiKey = keys[0] as string;
    const statuses: number[] = [];
    let first429: HttpResult | null = null;
    // 1,000 requests, 50 at a time. An invalid body keeps each one cheap (the limit is checked
    // right after authentication, before validation: 422 when allowed, 429 when refused), so
    // even a busy machine sends them faster than the 100/s refill.
    for (let i = 0; i < 20; i++) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, () => request(s, 'POST', '/api/v1/agents', { apiKey, body: {} })),
      );
      for (const r of batch) {
        statuses.push(r.status);
        if (r.status === 429 && first429 === null) first429 = r;
      }
    }
    const ok = statuses.filter((x) => x === 422).length;
    const limited = statuses.filter((x) => x === 429).length;
    expect(ok + limited).toBe(1_000);
    expect(limited).toBeGreaterThan(0);
    // The burst plus what refilled at 100/s while the requests ran.
    expect(ok).toBeGreaterThanOrEqual(200);
    expect(first429).not.toBeNull();
    expect429(first429 as HttpResult, 'credential');
    expect(first429?.headers.get('ratelimit-policy')).toBe('"credential";q=200;w=2, "client";q=2000;w=2');
  });
});

describe('per-Client limit', () => {
  it('is shared by every key of the Client and leaves other Clients alone', async () => {
    const s = await server({
      RATE_LIMIT_REQUESTS_PER_SECOND: '1000',
      RATE_LIMIT_BURST_REQUESTS: '1000',
      RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '1',
      RATE_LIMIT_CLIENT_BURST_REQUESTS: '6',
    });
    // Provisioning goes through the operator plane, which is not limited.
    const tenant = await principalKeys(s, 2);
    const other = await principalKeys(s, 1);
    const [k1, k2] = tenant.keys as [string, string];
    for (let i = 0; i < 3; i++) {
      expect((await request(s, 'GET', '/api/v1/agents', { apiKey: k1 })).status).toBe(200);
      expect((await request(s, 'GET', '/api/v1/agents', { apiKey: k2 })).status).toBe(200);
    }
    expect429(await request(s, 'GET', '/api/v1/agents', { apiKey: k1 }), 'client');
    expect429(await request(s, 'GET', '/api/v1/agents', { apiKey: k2 }), 'client');
    expect((await request(s, 'GET', '/api/v1/agents', { apiKey: other.keys[0] as string })).status).toBe(200);
  });
});
