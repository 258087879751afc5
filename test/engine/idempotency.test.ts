// idempotency_key on POST /authorize: a repeat replays the original decision and never counts
// twice, whether it arrives after the original, at the same time as it, or at an actor rebuilt
// cold from the database; the key reused for another agent of the same Principal is refused.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addAgentWithMandate,
  authorize,
  authorizeBody,
  type EngineFixture,
  query,
  setup,
} from '../fixtures/engine-setup.js';
import { expectEnvelope, startTestServer, type TestServer } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { ShardedEngine } = (await import(`${DIST}engine/engine.js`)) as typeof import('../../src/engine/engine.js');

let server: TestServer;
let f: EngineFixture;
let n = 0;
const newKey = () => `idem-${Date.now().toString(36)}-${n++}`;

async function rowsForKey(key: string) {
  return query(
    server,
    'live',
    (sql) =>
      sql<{ id: string; agent_id: string }[]>`
      select id, agent_id from authorizations where principal_id = ${f.principalId} and idempotency_key = ${key}`,
  );
}

async function decidedEvents(authorizationId: string): Promise<number> {
  const rows = await query(
    server,
    'live',
    (sql) =>
      sql<{ n: number }[]>`
      select count(*)::int as n from outbox_events
      where event_type = 'authorization.decided' and payload->'data'->>'id' = ${authorizationId}`,
  );
  return rows[0]?.n ?? 0;
}

beforeAll(async () => {
  server = await startTestServer();
  f = await setup(server);
});
afterAll(async () => {
  await server?.close();
});

describe('idempotent replay', () => {
  it('replays a repeat after the original without counting it again', async () => {
    const key = newKey();
    const first = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '7.00', idempotency_key: key }));
    const again = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '7.00', idempotency_key: key }));
    expect(first.body.decision, first.text).toBe('APPROVE');
    expect(again.status).toBe(200);
    expect(again.body.authorization_id).toBe(first.body.authorization_id);
    expect(again.body.decision).toBe(first.body.decision);
    expect(again.body.daily_amount_used).toBe(first.body.daily_amount_used);
    const next = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '1.00' }));
    expect(next.body.daily_count_used).toBe((first.body.daily_count_used as number) + 1);
    expect(await rowsForKey(key)).toHaveLength(1);
    expect(await decidedEvents(first.body.authorization_id as string)).toBe(1);
  });

  it('decides concurrent duplicates once and answers them all with that decision', async () => {
    const key = newKey();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '3.00', idempotency_key: key })),
      ),
    );
    const ids = new Set(results.map((r) => r.body.authorization_id));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(String(id)).toMatch(/^auth_/);
    expect(await rowsForKey(key)).toHaveLength(1);
    expect(await decidedEvents(id as string)).toBe(1);
  });

  it('refuses a key first used for another agent of the same Principal: 422 idempotency_key_reuse', async () => {
    // The key is the Principal's; reusing it for another agent is a different transaction.
    const secondId = await addAgentWithMandate(server, f.apiKey, 'Second agent', {
      perTransaction: '100.00',
      daily: '500.00',
    });
    const key = newKey();
    const first = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '2.00', idempotency_key: key }));
    expect(first.status, first.text).toBe(200);
    const other = await authorize(server, f.apiKey, authorizeBody(secondId, { amount: '2.00', idempotency_key: key }));
    expectEnvelope(other, 422, 'idempotency_key_reuse');
    const rows = await rowsForKey(key);
    expect(rows).toEqual([{ id: first.body.authorization_id, agent_id: f.agentId }]);
    // The second agent's totals were not touched by the refused request.
    const fresh = await authorize(server, f.apiKey, authorizeBody(secondId, { amount: '5.00' }));
    expect(fresh.body.decision).toBe('APPROVE');
    expect(fresh.body.daily_count_used).toBe(1);
    expect(fresh.body.daily_amount_used).toBe(5);
  });

  it('replays from the database at an actor built cold (another engine on the same database)', async () => {
    const key = newKey();
    const first = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '4.00', idempotency_key: key }));
    expect(first.body.decision).toBe('APPROVE');
    const client = (await query(
      server,
      'live',
      (sql) => sql<{ client_id: string }[]>`select client_id from agents where id = ${f.agentId}`,
    )) as { client_id: string }[];
    const engine = await ShardedEngine.start({
      workers: 1,
      urls: server.dbUrls,
      embedded: server.app.services.dbs.embedded,
      // Embedded PGlite serves one session: the engine must run on the service's own pools.
      shared: server.app.services.dbs.embedded
        ? { live: server.app.services.dbs.live, sandbox: server.app.services.dbs.sandbox }
        : undefined,
      log: pino({ level: 'silent' }),
    });
    try {
      const reply = await engine.authorize({
        requestId: 'req_cold',
        environment: 'live',
        clientId: client[0]?.client_id as string,
        principalId: f.principalId,
        agentId: f.agentId,
        amount: '4',
        currency: 'USD',
        merchantName: 'Corner Grocery',
        merchantId: null,
        mcc: '5411',
        country: 'USA',
        rail: 'CARD',
        crypto: null,
        intent: {
          intentType: 'purchase',
          taskReference: 'weekly groceries 0',
          reasoningSummary: null,
          confidence: null,
          alternativesConsidered: null,
        },
        sessionId: null,
        idempotencyKey: key,
        stepUpConfirmed: false,
        receivedAtMs: Date.now(),
      });
      const response = JSON.parse(reply.body) as Record<string, unknown>;
      expect(response.authorization_id).toBe(first.body.authorization_id);
      expect(response.decision).toBe('APPROVE');
      expect(reply.decision).toBe('APPROVE');
    } finally {
      await engine.close();
    }
    expect(await rowsForKey(key)).toHaveLength(1);
  });
});
