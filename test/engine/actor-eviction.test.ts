// The actor cache stays at its bounds however many agents are touched, and an agent whose actor
// was evicted is rebuilt from PostgreSQL with everything that decides its next answer: its daily
// cap still holds, a terminated session stays terminated, an idempotent repeat still replays.
// One shard (WORKERS=1) with a tiny count bound (ENGINE_MAX_ACTORS=5) and the smallest byte
// bound (ENGINE_MAX_ACTOR_BYTES=65536, about 15 ordinary actors or one that remembers ~33
// idempotency keys).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAgentWithMandate, authorize, authorizeBody, type EngineFixture, setup } from '../fixtures/engine-setup.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const MAX_ACTORS = 5;
const MAX_BYTES = 65_536;

let server: TestServer;
let f: EngineFixture;

beforeAll(async () => {
  server = await startTestServer({
    WORKERS: '1',
    ENGINE_MAX_ACTORS: String(MAX_ACTORS),
    ENGINE_MAX_ACTOR_BYTES: String(MAX_BYTES),
  });
  f = await setup(server);
  const put = await request(server, 'PUT', '/api/v1/thresholds', {
    apiKey: f.apiKey,
    body: {
      rapid_fire_max_count: 65_535,
      risk_velocity_max_count: 65_535,
      amount_outlier_multiplier: 65_535,
      merchant_decline_flag_count: 65_535,
    },
  });
  expect(put.status, put.text).toBe(200);
});
afterAll(async () => {
  await server?.close();
});

/** An agent of the fixture's Principal with a mandate of 60.00 per transaction and 100.00 a day. */
function newAgent(name: string): Promise<string> {
  return addAgentWithMandate(server, f.apiKey, name, { perTransaction: '60.00', daily: '100.00' });
}

async function shardGauges(): Promise<{ actors: number; bytes: number }> {
  const res = await request(server, 'GET', '/metrics', { adminKey: server.adminKey });
  expect(res.status).toBe(200);
  const value = (series: string) => {
    const line = res.text.split('\n').find((l) => l.startsWith(`${series} `));
    if (line === undefined) throw new Error(`no ${series} in /metrics`);
    return Number(line.slice(series.length + 1));
  };
  return { actors: value('asas_actor_cache_size{shard="0"}'), bytes: value('asas_actor_cache_bytes{shard="0"}') };
}

async function decide(agentId: string, over: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await authorize(server, f.apiKey, authorizeBody(agentId, over));
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('actor cache bounds', () => {
  it('keeps the count bound while 30 agents are touched, and an evicted agent keeps its cap and sessions', async () => {
    const a = await newAgent('evicted agent');
    expect(await decide(a, { amount: '60.00' })).toMatchObject({ decision: 'APPROVE', daily_amount_used: 60 });
    for (let i = 0; i < 3; i++) {
      expect((await decide(a, { amount: '70.00', session_id: 'ses-evict' })).decision).toBe('DECLINE');
    }

    const others: string[] = [];
    for (let i = 0; i < 30; i++) others.push(await newAgent(`other agent ${i}`));
    for (const o of others) {
      expect(await decide(o, { amount: '5.00' })).toMatchObject({ decision: 'APPROVE', daily_amount_used: 5 });
      expect((await shardGauges()).actors).toBeLessThanOrEqual(MAX_ACTORS);
    }
    // 30 agents decided after `a`: it is long out of the cache, which is exactly full.
    expect((await shardGauges()).actors).toBe(MAX_ACTORS);

    // Rebuilt from the database: the session stays terminated, the daily cap counts the 60.00.
    expect(await decide(a, { amount: '1.00', session_id: 'ses-evict' })).toMatchObject({
      decision: 'DECLINE',
      reason_codes: ['session_terminated'],
    });
    expect(await decide(a, { amount: '50.00' })).toMatchObject({
      decision: 'DECLINE',
      reason_codes: ['daily_limit_exceeded'],
      daily_amount_used: 60,
    });
    expect(await decide(a, { amount: '40.00' })).toMatchObject({ decision: 'APPROVE', daily_amount_used: 100 });
    expect(await decide(a, { amount: '0.01' })).toMatchObject({
      decision: 'DECLINE',
      reason_codes: ['daily_limit_exceeded'],
    });
    // Every other agent, evicted too by now, still counts its own 5.00.
    const o = others[0] as string;
    expect(await decide(o, { amount: '60.00' })).toMatchObject({ decision: 'APPROVE', daily_amount_used: 65 });
    expect(await decide(o, { amount: '35.01' })).toMatchObject({
      decision: 'DECLINE',
      reason_codes: ['daily_limit_exceeded'],
    });
  });

  it('keeps the byte bound when one agent remembers more idempotency keys than it allows', async () => {
    const k = await newAgent('keyed agent');
    const first: Record<string, unknown>[] = [];
    let fewest = MAX_ACTORS;
    for (let i = 0; i < 40; i++) {
      first.push(await decide(k, { amount: '1.00', idempotency_key: `keyed-${k}-${i}` }));
      const g = await shardGauges();
      expect(g.bytes).toBeLessThanOrEqual(MAX_BYTES);
      expect(g.actors).toBeLessThanOrEqual(MAX_ACTORS);
      fewest = Math.min(fewest, g.actors);
    }
    // The growing actor pushed the others out, then (alone over the bound) was not kept itself.
    expect(fewest).toBe(0);
    expect(first.every((r) => r.decision === 'APPROVE')).toBe(true);
    expect(first[39]?.daily_amount_used).toBe(40);
    // Repeats of the oldest and newest keys replay the recorded answers.
    for (const i of [0, 39]) {
      const again = await decide(k, { amount: '1.00', idempotency_key: `keyed-${k}-${i}` });
      expect(again.authorization_id).toBe(first[i]?.authorization_id);
      expect(again.daily_amount_used).toBe(first[i]?.daily_amount_used);
    }
    // The cap still holds: 40.00 used, 60.01 more is over the daily 100.00.
    expect(await decide(k, { amount: '60.00', idempotency_key: `keyed-${k}-over` })).toMatchObject({
      decision: 'APPROVE',
      daily_amount_used: 100,
    });
    expect(await decide(k, { amount: '0.01' })).toMatchObject({
      decision: 'DECLINE',
      reason_codes: ['daily_limit_exceeded'],
      daily_amount_used: 100,
    });
    const g = await shardGauges();
    expect(g.bytes).toBeGreaterThan(0);
    expect(g.bytes).toBeLessThanOrEqual(MAX_BYTES);
  });
});
