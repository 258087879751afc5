// Holds on two instances sharing one PostgreSQL database and one NATS server (docs/holds.md,
// docs/scale-out.md): a capture racing a release sent to different instances has one winner;
// the budget a settlement gives back counts in the agent's next decision whichever instance
// settled it and whichever receives the decision (the owning actor reloads); both instances
// sweep expiries, and each hold is expired once, with one event and one credit.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBody } from '../fixtures/authorize-setup.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';
import { principalOn, sharedDatabase } from '../fixtures/drills/shared-database.js';
import { request } from '../fixtures/server.js';

const DB = sharedDatabase('holds');
const ENV = { ...DB.env, WORKERS: '1', HOLD_EXPIRY_SWEEP_MS: '200' };

let a: ServiceProcess;
let b: ServiceProcess;
let sql: postgres.Sql;
let apiKey: string;
let agentId: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function decide(via: ServiceProcess, amount: string, over: Record<string, unknown> = {}) {
  const res = await request(via, 'POST', '/api/v1/authorize', {
    apiKey,
    body: authorizeBody(agentId, amount, { merchant_name: `Shop ${randomBytes(2).toString('hex')}`, ...over }),
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

beforeAll(async () => {
  a = await startServiceProcess(ENV);
  b = await startServiceProcess(ENV);
  sql = postgres(DB.databaseUrl, { max: 2, onnotice: () => {} });
  apiKey = (await principalOn(DB, a, { rapid_fire_max_count: 65_535, risk_velocity_max_count: 65_535 })).apiKey;
  const agent = await request(b, 'POST', '/api/v1/agents', {
    apiKey,
    body: { display_name: 'Shopping agent', capabilities: ['PURCHASE'] },
  });
  agentId = agent.body.id as string;
  for (const [currency, extra] of [
    ['USD', { max_daily_amount: '30.00' }],
    ['EUR', { max_monthly_amount: '1000.00', hold_expiry_seconds: 1 }],
  ] as const) {
    const m = await request(a, 'POST', '/api/v1/mandates', {
      apiKey,
      body: {
        agent_id: agentId,
        valid_until: new Date(Date.now() + 86_400_000).toISOString(),
        max_amount_per_transaction: '20.00',
        currency,
        ...extra,
      },
    });
    expect(m.status, m.text).toBe(201);
  }
}, 180_000);

afterAll(async () => {
  for (const p of [a, b]) await p?.cleanup();
  await sql?.end({ timeout: 5 });
  await DB.drop();
});

describe('holds across two instances', () => {
  it('one winner across instances; the budget given back counts at the next decision on either', async () => {
    const h1 = await decide(a, '10.00', { capture_method: 'manual' });
    const h2 = await decide(b, '10.00', { capture_method: 'manual' });
    const h3 = await decide(a, '10.00', { capture_method: 'manual' });
    expect([h1.status, h2.status, h3.status]).toEqual(['HELD', 'HELD', 'HELD']);
    expect((await decide(b, '0.01')).reason_codes).toContain('daily_limit_exceeded');

    const cap1 = await request(b, 'POST', `/api/v1/authorizations/${h1.authorization_id}/capture`, {
      apiKey,
      body: { amount: '4.00' },
    });
    expect(cap1.status, cap1.text).toBe(200);
    // h2: a release on A racing a capture on B.
    const [rel, cap] = await Promise.all([
      request(a, 'POST', `/api/v1/authorizations/${h2.authorization_id}/release`, { apiKey, body: {} }),
      request(b, 'POST', `/api/v1/authorizations/${h2.authorization_id}/capture`, { apiKey, body: {} }),
    ]);
    expect([rel.status, cap.status].sort()).toEqual([200, 409]);
    // Used: 4 (h1) + 10 (h3 held) + 10 if h2 was captured.
    // What is free, paid in amounts no larger than the ones before (no amount_outlier STEP_UP).
    const free = cap.status === 200 ? ['6.00'] : ['10.00', '6.00'];
    for (const [i, amount] of free.entries()) {
      const res = await decide(i % 2 === 0 ? b : a, amount);
      expect(res.decision, JSON.stringify(res)).toBe('APPROVE');
    }
    expect((await decide(a, '0.01')).reason_codes).toContain('daily_limit_exceeded');
  });

  it('both instances sweep; every due hold is expired once, with one event and one credit', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const h = await decide(i % 2 === 0 ? a : b, '1.00', { currency: 'EUR', capture_method: 'manual' });
      expect(h.status, JSON.stringify(h)).toBe('HELD');
      ids.push(h.authorization_id as string);
    }
    const end = Date.now() + 20_000;
    for (;;) {
      const [r] = await sql<{ n: number }[]>`
        select count(*)::int as n from holds where authorization_id in ${sql(ids)} and status = 'EXPIRED'`;
      if (r?.n === ids.length) break;
      if (Date.now() > end) throw new Error(`expired ${r?.n} of ${ids.length}`);
      await sleep(200);
    }
    await sleep(1_000);
    const rows = await sql<{ id: string; events: number; credits: number }[]>`
      select h.authorization_id as id,
        (select count(*)::int from outbox_events e where e.authorization_id = h.authorization_id
           and e.event_type = 'authorization.expired') as events,
        (select count(*)::int from budget_credits c where c.authorization_id = h.authorization_id) as credits
      from holds h where h.authorization_id in ${sql(ids)}`;
    expect(rows).toHaveLength(ids.length);
    for (const r of rows) expect([r.events, r.credits], r.id).toEqual([1, 1]);
  });
});
