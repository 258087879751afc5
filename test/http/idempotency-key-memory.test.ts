// A warm actor remembers only its newest KEYS_PER_ACTOR idempotency keys (src/shard/key-memory.ts).
// A repeat of an older key is still answered right: the actor decides, the database's unique key
// conflicts, the recorded answer is replayed, the actor reloads, and nothing is counted twice.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KEYS_PER_ACTOR } from '../../src/shard/key-memory.js';
import { authorize, authorizeBody, type EngineFixture, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import { expectEnvelope, startTestServer, type TestServer } from '../fixtures/server.js';
import { withDb } from '../fixtures/test-db.js';

let server: TestServer;
let f: EngineFixture;

beforeAll(async () => {
  // One shard: the agent's actor stays warm between the requests.
  server = await startTestServer({ WORKERS: '1' });
  f = await setup(server);
  await relaxRateGates(server, f.apiKey);
});
afterAll(async () => {
  await server?.close();
});

it('answers a repeat of a key the warm actor no longer remembers from the database, counting nothing twice', async () => {
  const prefix = `key-memory-${Date.now().toString(36)}`;
  const keys = Array.from({ length: KEYS_PER_ACTOR + 8 }, (_, i) => `${prefix}-${i}`);
  const body = (key: string, amount = '1.00') =>
    authorizeBody(f.agentId, {
      amount,
      idempotency_key: key,
      intent_context: { intent_type: 'purchase', task_reference: 'weekly groceries' },
    });
  let first: Record<string, unknown> | undefined;
  let last: Record<string, unknown> | undefined;
  for (const key of keys) {
    const res = await authorize(server, f.apiKey, body(key));
    expect(res.status, res.text).toBe(200);
    expect(res.body.decision, res.text).toBe('APPROVE');
    first ??= res.body;
    last = res.body;
  }

  const again = await authorize(server, f.apiKey, body(keys[0] as string));
  expect(again.status, again.text).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body.authorization_id).toBe(first?.authorization_id);
  expect(again.body.receipt).toBe(first?.receipt);

  // The same key for another transaction: refused, from the database as from memory.
  expectEnvelope(await authorize(server, f.apiKey, body(keys[1] as string, '2.00')), 422, 'idempotency_key_reuse');

  // The next decision sees the spend of the keyed decisions once each.
  const next = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '1.00' }));
  expect(next.status, next.text).toBe(200);
  expect(next.body.daily_count_used).toBe((last?.daily_count_used as number) + 1);
  expect(next.body.daily_amount_used).toBe((last?.daily_amount_used as number) + 1);

  const rows = await withDb(
    server,
    'live',
    (sql) => sql<{ n: number }[]>`
      select count(*)::int as n from authorizations
      where principal_id = ${f.principalId} and idempotency_key like ${`${prefix}-%`}`,
  );
  expect(rows[0]?.n).toBe(keys.length);
});
