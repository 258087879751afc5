// Building an agent's actor no longer reads the agent's whole audit history: past
// ROLLUP_AFTER_ROWS rows the shard worker writes a rollup in the background, loads read the
// rollup plus the rows since its upto, and the caps and counts come out exactly as before.
// The history is written with SQL (the API cannot make time pass); its totals are read back
// from the database, so the test holds at any time of day or month.
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorize,
  authorizeBody,
  type EngineFixture,
  query,
  relaxRateGates,
  setup,
} from '../fixtures/engine-setup.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const ROLLUP_AFTER_ROWS = 1_000;
const DAILY_CAP = 1000;
let server: TestServer;
let f: EngineFixture;

beforeAll(async () => {
  server = await startTestServer();
  f = await setup(server);
  await relaxRateGates(server, f.apiKey);
});
afterAll(async () => {
  await server?.close();
});

type Row = Record<string, unknown>;

const one = async (fn: (sql: postgres.Sql) => Promise<Row[]>): Promise<Row> =>
  (await query(server, 'live', fn))[0] as Row;

let batch = 0;

/**
 * Writes `n` audit rows of the fixture's agent, the i-th created `ago` plus i times `step`
 * before now (intervals as text). `today` keeps them inside the current UTC day (clamped to
 * its start), so the day's total is known whatever the time of the run.
 */
function history(n: number, decision: string, amount: string, ago: string, step: string, today = false) {
  batch++;
  return query(
    server,
    'live',
    (sql) => sql`
      insert into authorizations (id, principal_id, agent_id, mandate_id, amount, currency, mcc, merchant_name,
        country, decision, reason_codes, gates_fired, processing_time_ms, created_at)
      select 'auth_hist' || ${batch}::int || '_' || g, ${f.principalId}, ${f.agentId}, ${f.mandateId},
        ${amount}::numeric, 'USD', '5411', 'Corner Grocery', 'USA', ${decision},
        case when ${decision} = 'APPROVE' then '{}'::text[] else '{mcc_blocked}'::text[] end,
        case when ${decision} = 'APPROVE' then '{}'::text[] else '{mcc_blocked}'::text[] end,
        0, case when ${today} then greatest(date_trunc('day', now() at time zone 'UTC') at time zone 'UTC',
                                        now() - ${ago}::interval - g * ${step}::interval)
                else now() - ${ago}::interval - g * ${step}::interval end
      from generate_series(1, ${n}::int) g`,
  );
}

/** Today's APPROVED total of the fixture's mandate in the audit log, in cents. */
async function todayCents(): Promise<number> {
  const r = await one(
    (sql) => sql`select coalesce(sum(amount), 0)::text as s from authorizations
      where agent_id = ${f.agentId} and mandate_id = ${f.mandateId} and decision = 'APPROVE'
        and created_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC'`,
  );
  return Math.round(Number(r.s) * 100);
}

const money = (cents: number) => (cents / 100).toFixed(2);

async function reload(): Promise<void> {
  for (const status of ['SUSPENDED', 'ACTIVE']) {
    const res = await request(server, 'PATCH', `/api/v1/agents/${f.agentId}/status`, {
      apiKey: f.apiKey,
      body: { status, reason: 'reload the actor in a test' },
    });
    expect(res.status, res.text).toBe(200);
  }
}

async function expectCapAt(remainingCents: number): Promise<void> {
  const over = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: money(remainingCents + 1) }));
  expect(over.status).toBe(200);
  expect(over.body.decision, JSON.stringify(over.body)).toBe('DECLINE');
  expect(over.body.reason_codes).toContain('daily_limit_exceeded');
}

describe('audit rollups', () => {
  it('summarise a long history in the background, and loads read the rollup plus the rows since', async () => {
    // Older history (well before any rollup's upto), today's decisions before and after it.
    await history(ROLLUP_AFTER_ROWS, 'APPROVE', '1.00', '30 days', '5 minutes');
    await history(700, 'DECLINE', '5.00', '10 days', '10 minutes');
    await history(30, 'APPROVE', '25.00', '6 minutes', '10 seconds', true);
    await history(9, 'APPROVE', '25.00', '10 seconds', '1 second', true);
    const used = await todayCents();
    expect(used).toBe(97_500);
    expect(
      await one((sql) => sql`select count(*)::int as n from agent_audit_rollups where agent_id = ${f.agentId}`),
    ).toEqual({ n: 0 });

    // Cold actor, no rollup yet: the whole history is read; the daily cap holds to the cent.
    await expectCapAt(DAILY_CAP * 100 - used);

    // More than ROLLUP_AFTER_ROWS rows were read: the worker writes the rollup in the background.
    let rollup: Row | undefined;
    for (let i = 0; i < 100 && rollup === undefined; i++) {
      rollup = (
        await query(
          server,
          'live',
          (sql) => sql`select upto, approved::int, declined::int, step_ups::int, mandates
          from agent_audit_rollups where agent_id = ${f.agentId}`,
        )
      )[0];
      if (rollup === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    expect(rollup, 'no rollup written').toBeDefined();
    const upto = rollup?.upto as Date;
    expect(Date.now() - upto.getTime()).toBeGreaterThanOrEqual(5 * 60_000 - 1_000);
    // It counts exactly the rows before its upto.
    const before = await one(
      (sql) => sql`select count(*) filter (where decision = 'APPROVE')::int as approved,
        count(*) filter (where decision = 'DECLINE')::int as declined,
        count(*) filter (where decision = 'STEP_UP')::int as step_ups
        from authorizations where agent_id = ${f.agentId} and created_at < ${upto}`,
    );
    expect({ approved: rollup?.approved, declined: rollup?.declined, step_ups: rollup?.step_ups }).toEqual(before);
    const totals = await one(
      (sql) => sql`select count(*) filter (where decision = 'APPROVE')::int as approved,
        count(*) filter (where decision = 'DECLINE')::int as declined from authorizations where agent_id = ${f.agentId}`,
    );

    // The rows the rollup summarises are no longer read: without them (a test-only deletion,
    // audit rows are never deleted by the service) a rebuilt actor still counts them, in its
    // daily cap and in /metrics.
    await query(
      server,
      'live',
      (sql) => sql`delete from authorizations where agent_id = ${f.agentId} and created_at < ${upto}`,
    );
    await reload();
    await expectCapAt(DAILY_CAP * 100 - used);
    const ok = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: money(DAILY_CAP * 100 - used) }));
    expect(ok.body.decision, JSON.stringify(ok.body)).toBe('APPROVE');
    await expectCapAt(0);

    const metrics = await request(server, 'GET', `/api/v1/agents/${f.agentId}/metrics`, { apiKey: f.apiKey });
    expect(metrics.status).toBe(200);
    // Since the totals: two cap probes declined and one approval.
    expect(metrics.body.successful_transactions).toBe((totals.approved as number) + 1);
    expect(metrics.body.declined_transactions).toBe((totals.declined as number) + 2);
  });
});
