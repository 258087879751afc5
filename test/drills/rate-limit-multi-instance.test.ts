// Rate limits across instances: two instances on one PostgreSQL database find each other in the
// instance registry (table `instances`) and each enforces half of the configured limit, so the
// pair allows the configured burst, not twice it; when one stops, the other takes the whole
// limit again. A Client's own limits (operator plane) reach every instance.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteStream, ownStream } from '../fixtures/drills/nats-stream.js';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

// Instances sharing a database must share one NATS (src/cluster/instances.ts refuses the
// in-process bus next to another live instance); this file's own stream and subject prefix.
const NATS = ownStream('rlmi');

const LIMITS = {
  ...NATS,
  RATE_LIMIT_REQUESTS_PER_SECOND: '1',
  RATE_LIMIT_BURST_REQUESTS: '10',
  RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '0',
  INSTANCE_HEARTBEAT_SECONDS: '1',
  // Instances on one database share its secrets key (docs/secrets.md).
  SECRETS_KEY: randomBytes(32).toString('base64'),
};

let a: TestServer;
let b: TestServer | null = null;

beforeAll(async () => {
  a = await startTestServer(LIMITS);
  b = await startTestServer({ ...LIMITS, DATABASE_URL: a.dbUrls.live, SANDBOX_DATABASE_URL: a.dbUrls.sandbox });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await deleteStream(NATS.NATS_STREAM);
});

async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How many of `n` back-to-back requests with a fresh key `server` lets through. */
async function allowed(server: TestServer, apiKey: string, n: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) {
    const res = await request(server, 'POST', '/api/v1/agents', { apiKey, body: {} });
    expect([422, 429]).toContain(res.status);
    if (res.status === 422) ok++;
  }
  return ok;
}

async function freshKey(): Promise<string> {
  const client = await provisionClient(a);
  const principalId = await insertPrincipalRow(a, 'live', client.clientId);
  return (await issuePrincipalKey(a, principalId, 'live')).apiKey;
}

describe('rate limits on two instances sharing one database', () => {
  it('registers both instances and splits the burst between them', async () => {
    await until(() => a.app.instances.live === 2 && (b as TestServer).app.instances.live === 2, 5_000);
    const sql = postgres(a.dbUrls.live, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ id: string }[]>`select id from instances order by id`;
      expect(rows.map((r) => r.id).sort()).toEqual([a.app.instances.id, (b as TestServer).app.instances.id].sort());
    } finally {
      await sql.end({ timeout: 5 });
    }
    const apiKey = await freshKey();
    const onA = await allowed(a, apiKey, 8);
    const onB = await allowed(b as TestServer, apiKey, 8);
    // 10 cluster-wide: 5 per instance (plus at most one token refilled at 0.5/s meanwhile).
    expect(onA).toBeGreaterThanOrEqual(5);
    expect(onA).toBeLessThanOrEqual(6);
    expect(onB).toBeGreaterThanOrEqual(5);
    expect(onB).toBeLessThanOrEqual(6);
  });

  it("applies a Client's own limits, set on one instance, on the other within the poll interval", async () => {
    const client = await provisionClient(a);
    const principalId = await insertPrincipalRow(a, 'live', client.clientId);
    const apiKey = (await issuePrincipalKey(a, principalId, 'live')).apiKey;
    const put = await request(a, 'PUT', `/admin/v1/clients/${client.clientId}/rate-limits`, {
      adminKey: a.adminKey,
      body: { credential_burst_requests: 40 },
    });
    expect(put.status, put.text).toBe(200);
    // CLIENT_LIMITS_POLL_MS (5 s) and a margin: b reads the row on its next poll.
    await new Promise((r) => setTimeout(r, 6_500));
    // 40 cluster-wide: 20 per instance, on the instance that took the PUT and on the other.
    const onB = await allowed(b as TestServer, apiKey, 26);
    expect(onB).toBeGreaterThanOrEqual(20);
    expect(onB).toBeLessThanOrEqual(21);
    const onA = await allowed(a, apiKey, 26);
    expect(onA).toBeGreaterThanOrEqual(20);
    expect(onA).toBeLessThanOrEqual(21);
  });

  it('gives the whole limit back to the survivor when an instance stops', async () => {
    await (b as TestServer).close();
    b = null;
    await until(() => a.app.instances.live === 1, 5_000);
    const apiKey = await freshKey();
    const onA = await allowed(a, apiKey, 14);
    expect(onA).toBeGreaterThanOrEqual(10);
    expect(onA).toBeLessThanOrEqual(11);
  });
});
