// A daily cap across the days a Principal's zone changes its offset at midnight (docs/holds.md
// "Windows"), decided at chosen instants through the functions a shard runs: the decision core's
// evaluate, and its load from real PostgreSQL (the window sums read from the audit log since the
// window start), as after an eviction or a restart. America/Santiago skips 00:00 on Sunday
// 7 September 2025 (the day starts at 01:00 -03:00, 04:00 UTC); America/Havana has 00:00 twice
// on Sunday 2 November 2025 (the day starts at the first, 04:00 UTC). The transitions
// themselves are checked against this runtime's tz database in calendar-transitions.test.ts.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentState } from '../../src/decision/agent-state.js';
import { decisionCore } from '../../src/decision/core.js';
import { mandateFromRow } from '../../src/decision/mandate-row.js';
import type { AuditRow, Evaluation } from '../../src/decision/model/contract.js';
import { newAgentState } from '../../src/decision/state.js';
import { migrate } from '../../src/storage/migrate.js';
import { request } from '../fixtures/decision-core.js';

const at = (text: string) => Date.parse(text);
const SANTIAGO = 'America/Santiago';
const HAVANA = 'America/Havana';

describe('a daily cap of 30 in memory (evaluate at chosen instants)', () => {
  function agentIn(timeZone: string, nowMs: number): AgentState {
    return newAgentState({
      agentId: 'agt_test',
      principalId: 'prn_test',
      clientId: 'cli_test',
      createdAtMs: at('2025-01-01T00:00:00.000Z'),
      timeZone,
      mandates: [
        mandateFromRow(
          {
            id: 'mnd_test',
            rails: ['card'],
            currency: 'USD',
            max_amount_per_transaction: '100',
            max_daily_amount: '30',
            max_monthly_amount: null,
            allowed_mccs: null,
            blocked_mccs: null,
            allowed_countries: null,
            blocked_countries: null,
            allowed_chains: null,
            allowed_assets: null,
            allowed_counterparties: null,
            crypto: null,
            valid_from: new Date('2025-01-01T00:00:00.000Z'),
            valid_until: new Date('2030-01-01T00:00:00.000Z'),
            created_at: new Date('2025-01-01T00:00:00.000Z'),
          },
          nowMs,
          timeZone,
        ),
      ],
    });
  }
  const decide = (s: AgentState, amount: string, instant: string) => {
    const ev = decisionCore.evaluate(s, request({ amount, receivedAtMs: at(instant) }), at(instant));
    return ev.response as { decision: string; reason_codes: string[]; daily_amount_used: number };
  };

  it('America/Santiago, 7 September 2025: Saturday ends at 03:59:59.999 UTC, Sunday (from 01:00 local) runs 23 hours', () => {
    const s = agentIn(SANTIAGO, at('2025-09-06T12:00:00.000Z'));
    expect(decide(s, '20', '2025-09-07T03:30:00.000Z').decision).toBe('APPROVE'); // Saturday 23:30 -04:00
    expect(decide(s, '15', '2025-09-07T03:59:59.999Z').reason_codes).toEqual(['daily_limit_exceeded']);
    const sunday = decide(s, '20', '2025-09-07T04:00:00.000Z'); // Sunday 01:00 -03:00
    expect(sunday.decision).toBe('APPROVE');
    expect(sunday.daily_amount_used).toBe(20);
    expect(decide(s, '15', '2025-09-08T02:59:59.999Z').reason_codes).toEqual(['daily_limit_exceeded']);
    const monday = decide(s, '15', '2025-09-08T03:00:00.000Z'); // Monday 00:00 -03:00
    expect(monday.decision).toBe('APPROVE');
    expect(monday.daily_amount_used).toBe(15);
  });

  it('America/Havana, 2 November 2025: both passes of 00:00-00:59 are one Sunday of 25 hours', () => {
    const s = agentIn(HAVANA, at('2025-11-01T12:00:00.000Z'));
    expect(decide(s, '20', '2025-11-02T03:59:59.999Z').decision).toBe('APPROVE'); // Saturday 23:59:59.999 -04:00
    expect(decide(s, '20', '2025-11-02T04:00:00.000Z').daily_amount_used).toBe(20); // Sunday, first 00:00
    expect(decide(s, '15', '2025-11-02T05:00:00.000Z').reason_codes).toEqual(['daily_limit_exceeded']); // second 00:00
    expect(decide(s, '10', '2025-11-02T05:30:00.000Z').daily_amount_used).toBe(30);
    expect(decide(s, '0.01', '2025-11-03T04:59:59.999Z').reason_codes).toEqual(['daily_limit_exceeded']);
    expect(decide(s, '15', '2025-11-03T05:00:00.000Z').daily_amount_used).toBe(15); // Monday 00:00 -05:00
  });
});

const BASE = process.env.TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432';
const NAME = `t_pipe_${randomBytes(5).toString('hex')}`;
let admin: postgres.Sql;
let sql: postgres.Sql;

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

/** An agent of a Principal in `timeZone` with one mandate: daily cap 30, weekly cap 100. */
async function seed(agentId: string, timeZone: string): Promise<void> {
  const principalId = `prn_${agentId}`;
  await sql`insert into principals (id, client_id, principal_kind, verification_status, verification_mode,
      verification_type, profile, verification, timezone)
    values (${principalId}, 'cli_c', 'personal', 'VERIFIED', 'client_attested', 'KYC', '{}', '{}', ${timeZone})`;
  await sql`insert into agents (id, principal_id, client_id, name, did, did_method, capabilities, created_at)
    values (${agentId}, ${principalId}, 'cli_c', 'agent', ${`did:key:${agentId}`}, 'key', ${['PURCHASE']},
      ${new Date('2025-01-01T00:00:00.000Z')})`;
  await sql`insert into mandates (id, agent_id, principal_id, currency, max_amount_per_transaction, max_daily_amount,
      max_weekly_amount, valid_from, valid_until, created_at, mandate_hash)
    values (${`mnd_${agentId}`}, ${agentId}, ${principalId}, 'USD', '100', '30', '100',
      ${new Date('2025-01-01T00:00:00.000Z')}, ${new Date('2030-01-01T00:00:00.000Z')},
      ${new Date('2025-01-01T00:00:00.000Z')}, 'sha256:x')`;
}

/** Loads the agent as its actor would at `instant`, decides `amount` and commits the audit row. */
async function decideAt(agentId: string, amount: string, instant: string) {
  const nowMs = at(instant);
  const s = await decisionCore.load(sql as never, agentId, nowMs);
  if (s === null) throw new Error('agent not found');
  const m = s.mandates[0];
  const loaded = { day: m?.dayAmount, week: m?.weekAmount };
  const ev: Evaluation = decisionCore.evaluate(
    s,
    request({ agentId, principalId: `prn_${agentId}`, amount, receivedAtMs: nowMs }),
    nowMs,
  );
  await insertAudit(ev.audit);
  const res = ev.response as { decision: string; reason_codes: string[]; reason_detail?: string };
  return { loaded, decision: res.decision, reasons: res.reason_codes, detail: res.reason_detail };
}

/** Units of the money type (8 decimals). */
const units = (whole: number) => BigInt(whole) * 100_000_000n;

beforeAll(async () => {
  admin = postgres(`${BASE}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${NAME}"`);
  sql = postgres(`${BASE}/${NAME}`, { max: 2, onnotice: () => {}, types: {} });
  await migrate(sql as never, pino({ level: 'silent' }), 'test');
  await sql`insert into clients (id, name) values ('cli_c', 'c')`;
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists "${NAME}" with (force)`);
  await admin?.end({ timeout: 5 });
});

describe('a daily cap of 30 rebuilt from the audit log at chosen instants (load, then evaluate)', () => {
  it('America/Santiago: a Saturday spend before the skipped midnight is not counted again on Sunday', async () => {
    await seed('agt_scl', SANTIAGO);
    // Saturday 6 September 23:30 -04:00.
    let r = await decideAt('agt_scl', '20', '2025-09-07T03:30:00.000Z');
    expect(r.loaded.day).toBe(0n);
    expect(r.decision).toBe('APPROVE');
    // Saturday's last ms: 20 + 15 is over 30.
    r = await decideAt('agt_scl', '15', '2025-09-07T03:59:59.999Z');
    expect(r.loaded.day).toBe(units(20));
    expect(r.reasons).toEqual(['daily_limit_exceeded']);
    expect(r.detail).toContain(SANTIAGO);
    // Sunday's first instant, 01:00 -03:00: Saturday's 20 stays in Saturday (a day starting at
    // 23:00 Saturday, 03:00 UTC, would read it again and decline).
    r = await decideAt('agt_scl', '20', '2025-09-07T04:00:00.000Z');
    expect(r.loaded.day).toBe(0n);
    expect(r.decision).toBe('APPROVE');
    r = await decideAt('agt_scl', '15', '2025-09-07T20:00:00.000Z');
    expect(r.loaded).toEqual({ day: units(20), week: units(40) });
    expect(r.reasons).toEqual(['daily_limit_exceeded']);
    r = await decideAt('agt_scl', '10', '2025-09-08T02:59:59.999Z'); // Sunday 23:59:59.999 -03:00
    expect(r.decision).toBe('APPROVE');
    // Monday 00:00 -03:00: a new day and a new week.
    r = await decideAt('agt_scl', '30', '2025-09-08T03:00:00.000Z');
    expect(r.loaded).toEqual({ day: 0n, week: 0n });
    expect(r.decision).toBe('APPROVE');
  });

  it('America/Havana: the spends of both 00:00-00:59 passes count in one Sunday', async () => {
    await seed('agt_hav', HAVANA);
    let r = await decideAt('agt_hav', '20', '2025-11-02T03:59:59.999Z'); // Saturday 23:59:59.999 -04:00
    expect(r.decision).toBe('APPROVE');
    r = await decideAt('agt_hav', '20', '2025-11-02T04:30:00.000Z'); // Sunday 00:30 -04:00
    expect(r.loaded.day).toBe(0n);
    expect(r.decision).toBe('APPROVE');
    // Sunday 00:30 -05:00, the second time: the first pass's 20 is today's (a day starting at the
    // second 00:00 would forget it and approve).
    r = await decideAt('agt_hav', '15', '2025-11-02T05:30:00.000Z');
    expect(r.loaded.day).toBe(units(20));
    expect(r.reasons).toEqual(['daily_limit_exceeded']);
    r = await decideAt('agt_hav', '10', '2025-11-03T04:59:59.999Z'); // Sunday 23:59:59.999 -05:00
    expect(r.loaded).toEqual({ day: units(20), week: units(40) });
    expect(r.decision).toBe('APPROVE');
    r = await decideAt('agt_hav', '20', '2025-11-03T05:00:00.000Z'); // Monday 00:00 -05:00
    expect(r.loaded).toEqual({ day: 0n, week: 0n });
    expect(r.decision).toBe('APPROVE');
  });
});
