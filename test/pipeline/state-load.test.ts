// load() against real PostgreSQL: a state rebuilt from the audit log decides like the state
// that wrote it (caps, sessions, pending step-ups, thresholds), so eviction and restart are safe.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentState } from '../../src/decision/agent-state.js';
import { decisionCore } from '../../src/decision/core.js';
import type { AuditRow, Evaluation } from '../../src/decision/model/contract.js';
import { decisionTime } from '../../src/decision/model/decision-time.js';
import { migrate } from '../../src/storage/migrate.js';
import { DAY, request, T0 } from '../fixtures/decision-core.js';

const BASE = process.env.TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432';
const NAME = `t_pipe_${randomBytes(5).toString('hex')}`;
let admin: postgres.Sql;
let sql: postgres.Sql;
// A minute ahead: mandates get valid_from = now() from the database when inserted.
const NOW = Date.now() + 60_000;

async function insertAudit(row: AuditRow): Promise<void> {
  await sql`insert into authorizations (id, principal_id, agent_id, mandate_id, amount, currency, mcc, merchant_id,
      merchant_name, country, decision, reason_codes, gates_fired, kya_score, trust_level, trust_score, risk_score,
      session_id, idempotency_key, processing_time_ms, response, created_at)
    values (${row.id}, ${row.principal_id}, ${row.agent_id}, ${row.mandate_id}, ${row.amount}, ${row.currency},
      ${row.mcc}, ${row.merchant_id}, ${row.merchant_name}, ${row.country}, ${row.decision}, ${row.reason_codes},
      ${row.gates_fired}, ${row.kya_score}, ${row.trust_level}, ${row.trust_score}, ${row.risk_score},
      ${row.session_id}, ${row.idempotency_key}, ${row.processing_time_ms}, ${sql.json(row.response as never)},
      ${row.created_at})`;
}

/** Decides like a worker: evaluate, then commit the audit row and the agent update. */
async function commit(state: AgentState, ev: Evaluation): Promise<Evaluation> {
  await insertAudit(ev.audit);
  if (ev.agentUpdate?.kya_score)
    await sql`update agents set kya_score = ${ev.agentUpdate.kya_score} where id = ${state.agentId}`;
  if (ev.agentUpdate?.trust_level)
    await sql`update agents set trust_level = ${ev.agentUpdate.trust_level} where id = ${state.agentId}`;
  return ev;
}

async function load(agentId: string, nowMs = NOW): Promise<AgentState> {
  const s = await decisionCore.load(sql as never, agentId, nowMs);
  if (s === null) throw new Error('agent not found');
  return s;
}

async function seedAgent(
  id: string,
  mandate: { daily?: string; monthly?: string; perTx?: string; blockedMccs?: string[] },
) {
  await sql`insert into agents (id, principal_id, client_id, name, did, did_method, capabilities, created_at)
    values (${id}, 'prn_p', 'cli_c', 'agent', ${`did:key:${id}`}, 'key', ${['PURCHASE']}, ${new Date(NOW - 48 * 3_600_000)})`;
  await sql`insert into mandates (id, agent_id, principal_id, currency, max_amount_per_transaction, max_daily_amount,
      max_monthly_amount, blocked_mccs, allowed_countries, valid_until, mandate_hash)
    values (${`mnd_${id}`}, ${id}, 'prn_p', 'USD', ${mandate.perTx ?? '100'}, ${mandate.daily ?? null},
      ${mandate.monthly ?? null}, ${mandate.blockedMccs ?? null}, ${['US', 'CAN']}, ${new Date(NOW + 86_400_000 * 30)}, 'sha256:x')`;
}

beforeAll(async () => {
  admin = postgres(`${BASE}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${NAME}"`);
  sql = postgres(`${BASE}/${NAME}`, { max: 2, onnotice: () => {}, types: {} });
  await migrate(sql as never, pino({ level: 'silent' }), 'test');
  await sql`insert into clients (id, name) values ('cli_c', 'c')`;
  await sql`insert into principals (id, client_id, principal_kind, verification_status, verification_mode,
      verification_type, profile, verification)
    values ('prn_p', 'cli_c', 'personal', 'VERIFIED', 'client_attested', 'KYC', '{}', '{}')`;
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists "${NAME}" with (force)`);
  await admin?.end({ timeout: 5 });
});

describe('load()', () => {
  it('returns null for an unknown agent', async () => {
    expect(await decisionCore.load(sql as never, 'agt_missing', NOW)).toBeNull();
  });

  it('rebuilds the agent, its mandate (countries as alpha-3) and thresholds', async () => {
    await seedAgent('agt_a', { daily: '50' });
    await sql`insert into thresholds (principal_id, overrides) values ('prn_p', ${sql.json({ rapid_fire_max_count: 7 })})`;
    const s = await load('agt_a');
    expect(decisionCore.principalOf(s)).toBe('prn_p');
    expect(s.status).toBe('ACTIVE');
    expect(s.mandates).toHaveLength(1);
    expect([...(s.mandates[0]?.allowedCountries ?? [])]).toEqual(['USA', 'CAN']);
    expect(s.thresholds.rapid_fire_max_count).toBe(7);
  });

  it('keeps the exact daily cap across a reload: 0.10 + 0.20 fill 0.30', async () => {
    await seedAgent('agt_cap', { daily: '0.30', perTx: '1' });
    let s = await load('agt_cap');
    const r = (amount: string) => request({ agentId: 'agt_cap', amount, country: 'USA' });
    expect((await commit(s, decisionCore.evaluate(s, r('0.1'), NOW))).decision).toBe('APPROVE');
    s = await load('agt_cap', NOW + 1000);
    expect(s.mandates[0]?.dayAmount).toBe(10_000_000n);
    expect((await commit(s, decisionCore.evaluate(s, r('0.2'), NOW + 1000))).decision).toBe('APPROVE');
    s = await load('agt_cap', NOW + 2000);
    const third = decisionCore.evaluate(s, r('0.01'), NOW + 2000);
    expect(third.decision).toBe('DECLINE');
    expect(third.response.reason_codes).toEqual(['daily_limit_exceeded']);
    expect(third.response.daily_amount_used).toBe(0.3);
    expect(s.stats.approved).toBe(2);
    expect(s.kyaScore).not.toBeNull();
  });

  it('rebuilds a terminated session and a pending step-up', async () => {
    await seedAgent('agt_ses', { perTx: '100' });
    let s = await load('agt_ses');
    s.thresholds = { ...s.thresholds };
    for (let i = 0; i < 3; i++) {
      await commit(
        s,
        decisionCore.evaluate(s, request({ agentId: 'agt_ses', sessionId: 'ses_x', amount: '500' }), NOW + i * 1000),
      );
    }
    // Five approvals of 10, then 60 is an outlier: STEP_UP.
    for (let i = 0; i < 5; i++) {
      await commit(
        s,
        decisionCore.evaluate(s, request({ agentId: 'agt_ses', amount: '10' }), NOW + 10_000 + i * 60_000),
      );
    }
    const step = await commit(
      s,
      decisionCore.evaluate(s, request({ agentId: 'agt_ses', amount: '60' }), NOW + 400_000),
    );
    expect(step.decision).toBe('STEP_UP');

    s = await load('agt_ses', NOW + 500_000);
    const later = decisionCore.evaluate(
      s,
      request({ agentId: 'agt_ses', sessionId: 'ses_x', amount: '1' }),
      NOW + 500_000,
    );
    expect(later.response.reason_codes).toEqual(['session_terminated']);
    expect(later.events.some((e) => e.eventType === 'session.terminate')).toBe(false);

    s = await load('agt_ses', NOW + 500_000);
    const confirmed = decisionCore.evaluate(
      s,
      request({ agentId: 'agt_ses', amount: '60', stepUpConfirmed: true }),
      NOW + 600_000,
    );
    expect(confirmed.decision).toBe('APPROVE');
    expect(confirmed.response.reason_codes).toEqual(['step_up_confirmed']);
  });

  it('rebuilds the time the state is current to from created_at, as the live state counted it', async () => {
    await seedAgent('agt_time', {});
    const live = await load('agt_time');
    // Decided at their receive times (src/decision/model/decision-time.ts), which become created_at.
    for (const t of [NOW + 1000, NOW + 1500, NOW + 4000]) {
      await commit(live, decisionCore.evaluate(live, request({ agentId: 'agt_time', receivedAtMs: t }), t));
    }
    expect(live.decidedUpToMs).toBe(NOW + 4000);
    // Loaded as of an earlier time (the receive time of the request the load is for): the
    // newest decision's time stands, so no later decision goes back before it.
    const reloaded = await load('agt_time', NOW + 2000);
    expect(decisionCore.decidedUpTo?.(reloaded)).toBe(live.decidedUpToMs);
    expect(reloaded.requests.countSince(NOW + 1500)).toBe(2);
    // Loaded as of a later time: its calendar windows are that time's, and so is the floor.
    expect((await load('agt_time', NOW + 9000)).decidedUpToMs).toBe(NOW + 9000);
  });

  it('counts rows another instance stamped just past midnight in their own day (clock skew)', async () => {
    await seedAgent('agt_mid', { daily: '100', perTx: '100' });
    // The next UTC midnight after NOW; the old owner's clock runs 500 ms ahead of the new one's.
    const midnight = (Math.floor(NOW / DAY) + 1) * DAY;
    const r = (receivedAtMs: number) => request({ agentId: 'agt_mid', amount: '60', country: 'USA', receivedAtMs });
    const ahead = await load('agt_mid', midnight + 100);
    expect((await commit(ahead, decisionCore.evaluate(ahead, r(midnight + 200), midnight + 200))).decision).toBe(
      'APPROVE',
    );
    // The shard moves to an instance whose clock still reads the day before: its first decision
    // is at the newest row's time (decision-time.ts), in the new day, where 60 of 100 are spent.
    const behind = await load('agt_mid', midnight - 300);
    expect(behind.mandates[0]?.dayAmount).toBe(60n * 100_000_000n);
    // As the actor decides it: at its receive time, clamped to the state's (decision-time.ts).
    const at = decisionTime(midnight - 300, behind.decidedUpToMs, midnight - 300);
    expect(at).toBe(midnight + 200);
    const next = decisionCore.evaluate(behind, r(midnight - 300), at);
    expect(next.decision).toBe('DECLINE');
    expect(next.response.reason_codes).toEqual(['daily_limit_exceeded']);
    expect(next.response.daily_amount_used).toBe(60);
  });

  it('reads the trust level written by a promotion', async () => {
    await seedAgent('agt_pro', {});
    await sql`update thresholds set overrides = ${sql.json({ verified_min_successful_txns: 2, verified_min_age_hours: 1 })}`;
    let s = await load('agt_pro');
    for (let i = 0; i < 2; i++) {
      await commit(
        s,
        decisionCore.evaluate(s, request({ agentId: 'agt_pro', amount: '1', receivedAtMs: T0 }), NOW + i * 1000),
      );
    }
    s = await load('agt_pro', NOW + 5000);
    expect(s.trustLevel).toBe('VERIFIED');
    expect(s.stats).toEqual({ approved: 2, declined: 0, stepUps: 0 });
  });
});
