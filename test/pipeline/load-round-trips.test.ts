// How many round trips a state load costs on PostgreSQL (src/decision/load.ts), counted through a
// latency proxy (100 ms each way): the statements a load sends within one round trip go out
// together, so they are dispatched within a few milliseconds of each other, and a statement that
// waits for an answer goes out at least 200 ms after the one it waited for. A fresh pool of 4
// connections that never ran a load: an agent of a UTC Principal (day and month caps, budget
// credits, a rollup) loads in one round trip; an agent of a Principal in another time zone in
// two the first time this thread sees that Principal and in one afterwards; an agent with a
// weekly cap in two. Every state equals the state the same rows give loaded one statement after
// another (a pool of one connection, no speculative reads), so the speculation changes nothing
// but the time.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentState } from '../../src/decision/agent-state.js';
import { decisionCore } from '../../src/decision/core.js';
import { refreshRollup } from '../../src/decision/model/rollup.js';
import { migrate } from '../../src/storage/migrate.js';
import { type LatencyProxy, startLatencyProxy } from '../fixtures/latency-proxy.js';

const BASE = process.env.TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432';
const NAME = `t_rt_${randomBytes(5).toString('hex')}`;
const DELAY_MS = 100;
const HOUR = 3_600_000;
const NOW = Date.now();

let admin: postgres.Sql;
let direct: postgres.Sql;
let proxy: LatencyProxy;
let slow: postgres.Sql;
/** When each statement of the pool behind the proxy was dispatched to a connection. */
let sent: number[] = [];

async function seed(principal: string, timezone: string, agent: string, mandate: { weekly?: string }): Promise<void> {
  await direct`insert into principals (id, client_id, principal_kind, verification_status, verification_mode,
      verification_type, profile, verification, timezone)
    values (${principal}, 'cli_c', 'personal', 'VERIFIED', 'client_attested', 'KYC', '{}', '{}', ${timezone})
    on conflict (id) do nothing`;
  await direct`insert into agents (id, principal_id, client_id, name, did, did_method, capabilities, created_at)
    values (${agent}, ${principal}, 'cli_c', 'agent', ${`did:key:${agent}`}, 'key', ${['PURCHASE']},
      ${new Date(NOW - 30 * 24 * HOUR)})`;
  const mandateId = `mnd_${agent}`;
  await direct`insert into mandates (id, agent_id, principal_id, currency, max_amount_per_transaction, max_daily_amount,
      max_monthly_amount, max_weekly_amount, valid_until, mandate_hash)
    values (${mandateId}, ${agent}, ${principal}, 'USD', '100', '500', '5000', ${mandate.weekly ?? null},
      ${new Date(NOW + 30 * 24 * HOUR)}, 'sha256:x')`;
  // Twelve decisions over the last two days, the newest a minute ago; a release of the first.
  for (let i = 0; i < 12; i++) {
    const at = new Date(NOW - 60_000 - i * 4 * HOUR);
    await direct`insert into authorizations (id, principal_id, agent_id, mandate_id, amount, currency, merchant_name,
        decision, reason_codes, gates_fired, processing_time_ms, response, created_at)
      values (${`auth_${agent}_${i}`}, ${principal}, ${agent}, ${mandateId}, ${String(10 + i)}, 'USD', 'Acme Books',
        ${i % 5 === 4 ? 'DECLINE' : 'APPROVE'}, ${i % 5 === 4 ? ['daily_limit_exceeded'] : ['approved']},
        ${i % 5 === 4 ? ['mandate_daily'] : []}, 1, '{}', ${at})`;
  }
  await direct`insert into budget_credits (id, authorization_id, principal_id, agent_id, mandate_id, kind, amount,
      count_back, authorized_at)
    values (${`bcr_${agent}`}, ${`auth_${agent}_0`}, ${principal}, ${agent}, ${mandateId}, 'release', '10', 1,
      ${new Date(NOW - 60_000)})`;
}

/** The statements' dispatch times grouped into round trips: a gap of more than half the way. */
function roundTrips(times: readonly number[]): number {
  let n = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const t of [...times].sort((a, b) => a - b)) {
    if (t - last > DELAY_MS / 2) n++;
    last = t;
  }
  return n;
}

/** Loads through the slow pool; the state and the round trips it took. */
async function loadSlow(agentId: string, hint: string): Promise<{ state: AgentState | null; trips: number }> {
  sent = [];
  const state = await decisionCore.load(slow as never, agentId, NOW, hint);
  return { state, trips: roundTrips(sent) };
}

/** The same agent loaded one statement after another (one connection: no speculative reads). */
async function loadPlain(agentId: string): Promise<AgentState | null> {
  const one = postgres(`${BASE}/${NAME}`, { max: 1, onnotice: () => {}, types: {} });
  try {
    return await decisionCore.load(one as never, agentId, NOW);
  } finally {
    await one.end({ timeout: 5 });
  }
}

beforeAll(async () => {
  admin = postgres(`${BASE}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${NAME}"`);
  direct = postgres(`${BASE}/${NAME}`, { max: 2, onnotice: () => {}, types: {} });
  await migrate(direct as never, pino({ level: 'silent' }), 'test');
  await direct`insert into clients (id, name) values ('cli_c', 'c')`;
  await seed('prn_utc', 'UTC', 'agt_utc', {});
  await seed('prn_berlin', 'Europe/Berlin', 'agt_berlin1', {});
  await seed('prn_berlin', 'Europe/Berlin', 'agt_berlin2', {});
  await seed('prn_week', 'UTC', 'agt_week', { weekly: '2000' });
  // The UTC agent also has a revoked mandate with an approval and a credit (not held by the
  // state: its credit must be skipped) and an expired one (kept, for mandate_expired).
  await direct`insert into mandates (id, agent_id, principal_id, currency, max_amount_per_transaction, status,
      valid_until, mandate_hash)
    values ('mnd_revoked', 'agt_utc', 'prn_utc', 'USD', '100', 'REVOKED', ${new Date(NOW + 30 * 24 * HOUR)}, 'sha256:r'),
      ('mnd_expired', 'agt_utc', 'prn_utc', 'EUR', '100', 'ACTIVE', ${new Date(NOW - 24 * HOUR)}, 'sha256:e')`;
  await direct`insert into authorizations (id, principal_id, agent_id, mandate_id, amount, currency, merchant_name,
      decision, reason_codes, gates_fired, processing_time_ms, response, created_at)
    values ('auth_revoked', 'prn_utc', 'agt_utc', 'mnd_revoked', '7', 'USD', 'Acme Books', 'APPROVE', ${['approved']},
      ${[]}, 1, '{}', ${new Date(NOW - 2 * HOUR)})`;
  await direct`insert into budget_credits (id, authorization_id, principal_id, agent_id, mandate_id, kind, amount,
      count_back, authorized_at)
    values ('bcr_revoked', 'auth_revoked', 'prn_utc', 'agt_utc', 'mnd_revoked', 'release', '7', 1, ${new Date(NOW - 2 * HOUR)})`;
  // A rollup of the UTC agent's older rows: the load reads the rows since its upto.
  await refreshRollup(direct as never, 'agt_utc', NOW);
  const target = new URL(BASE);
  proxy = await startLatencyProxy({ host: target.hostname, port: Number(target.port || 5432) }, 0);
  slow = postgres(`postgres://${target.username}@127.0.0.1:${proxy.port}/${NAME}`, {
    max: 4,
    onnotice: () => {},
    types: {},
    debug: () => sent.push(performance.now()),
  });
  // All four connections open (each statement takes one while the others are busy).
  await Promise.all([0, 1, 2, 3].map(() => slow`select pg_sleep(0.05)`));
  proxy.setDelay(DELAY_MS);
}, 60_000);

afterAll(async () => {
  await slow?.end({ timeout: 5 });
  await proxy?.close();
  await direct?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists "${NAME}" with (force)`);
  await admin?.end({ timeout: 5 });
});

describe('a state load on PostgreSQL', () => {
  it('an agent of a UTC Principal with day and month caps: one round trip on connections that never ran a load', async () => {
    const { state, trips } = await loadSlow('agt_utc', 'prn_utc');
    expect(state?.stats.approved).toBe(11);
    expect(state?.mandates.map((m) => m.id).sort()).toEqual(['mnd_agt_utc', 'mnd_expired']);
    expect(state?.auditRowsSinceRollup).toBeLessThan(12);
    expect(trips).toBe(1);
    expect(state).toEqual(await loadPlain('agt_utc'));
  });

  it('another time zone: two round trips the first time, one once the thread knows the Principal', async () => {
    const first = await loadSlow('agt_berlin1', 'prn_berlin');
    expect(first.trips).toBe(2);
    expect(first.state).toEqual(await loadPlain('agt_berlin1'));
    const second = await loadSlow('agt_berlin2', 'prn_berlin');
    expect(second.trips).toBe(1);
    expect(second.state).toEqual(await loadPlain('agt_berlin2'));
  });

  it('a weekly cap: two round trips (its week is read from the audit log)', async () => {
    const { state, trips } = await loadSlow('agt_week', 'prn_week');
    expect(trips).toBe(2);
    expect(state).toEqual(await loadPlain('agt_week'));
  });

  it('a wrong hint costs a round trip, never a wrong state; an unknown agent one round trip', async () => {
    // The thread knows prn_berlin's zone (from a load of one of its agents): its guess is wrong for agt_utc.
    await loadSlow('agt_berlin2', 'prn_berlin');
    const { state, trips } = await loadSlow('agt_utc', 'prn_berlin');
    expect(trips).toBe(2);
    expect(state).toEqual(await loadPlain('agt_utc'));
    expect(await loadSlow('agt_missing', 'prn_utc')).toEqual({ state: null, trips: 1 });
  });
});
