// The richer mandate terms in the decision core (docs/mandate-lifecycle.md "Terms"), decided at
// chosen instants: recurrence across the edges of its calendar periods in two time zones
// (America/New_York and Asia/Tokyo, the same UTC instants falling in different periods), a
// period that a DST change shortens (Europe/Berlin), the BIWEEKLY and QUARTERLY period starts,
// days of the week in the Principal's zone, the execution window, the minimum amount, payees and
// the merchant lock; then the occurrences and the lock rebuilt from PostgreSQL at load.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentState } from '../../src/decision/agent-state.js';
import { decisionCore } from '../../src/decision/core.js';
import { mandateFromRow } from '../../src/decision/mandate-row.js';
import { periodStartOf } from '../../src/decision/mandate-terms.js';
import { windowsOf } from '../../src/decision/model/calendar.js';
import type { AuditRow } from '../../src/decision/model/contract.js';
import { newAgentState } from '../../src/decision/state.js';
import { migrate } from '../../src/storage/migrate.js';
import type { StoredTerms } from '../../src/storage/rows/mandates.js';
import { request } from '../fixtures/decision-core.js';

const at = (text: string) => Date.parse(text);
const NEW_YORK = 'America/New_York';
const TOKYO = 'Asia/Tokyo';
const BERLIN = 'Europe/Berlin';

function agentIn(
  timeZone: string,
  terms: StoredTerms,
  nowMs: number,
  validFrom = '2025-01-01T00:00:00.000Z',
): AgentState {
  return newAgentState({
    agentId: 'agt_test',
    principalId: 'prn_test',
    clientId: 'cli_test',
    createdAtMs: at('2024-12-01T00:00:00.000Z'),
    timeZone,
    // Pacing gates out of the way: these tests decide many requests close together.
    overrides: { rapid_fire_max_count: 65_534, risk_velocity_max_count: 65_534 },
    mandates: [
      mandateFromRow(
        {
          id: 'mnd_test',
          rails: ['card'],
          currency: 'USD',
          max_amount_per_transaction: '100',
          max_daily_amount: null,
          max_monthly_amount: null,
          allowed_mccs: null,
          blocked_mccs: null,
          allowed_countries: null,
          blocked_countries: null,
          allowed_chains: null,
          allowed_assets: null,
          allowed_counterparties: null,
          crypto: null,
          valid_from: new Date(validFrom),
          valid_until: new Date('2030-01-01T00:00:00.000Z'),
          created_at: new Date(validFrom),
          terms,
        },
        nowMs,
        timeZone,
      ),
    ],
  });
}

function decide(s: AgentState, instant: string, over: { amount?: string; merchantId?: string | null } = {}) {
  const nowMs = at(instant);
  const ev = decisionCore.evaluate(
    s,
    request({ amount: over.amount ?? '10', merchantId: over.merchantId ?? null, receivedAtMs: nowMs }),
    nowMs,
  );
  return ev.response as { decision: string; reason_codes: string[]; reason_detail: string };
}

describe('recurrence: one approval per calendar period of the Principal time zone', () => {
  it('MONTHLY in New York: January ends at 04:59:59.999 UTC on 1 February, February starts at 05:00', () => {
    const s = agentIn(NEW_YORK, { recurrence: { frequency: 'MONTHLY' } }, at('2025-01-20T00:00:00.000Z'));
    expect(decide(s, '2025-02-01T04:30:00.000Z').decision).toBe('APPROVE'); // 31 January 23:30 -05:00
    const same = decide(s, '2025-02-01T04:59:59.999Z');
    expect(same.reason_codes).toEqual(['recurrence_period_used']);
    expect(same.reason_detail).toContain(NEW_YORK);
    expect(same.reason_detail).toContain('2025-01-01T05:00:00.000Z');
    expect(decide(s, '2025-02-01T05:00:00.000Z').decision).toBe('APPROVE'); // 1 February 00:00 -05:00
    expect(decide(s, '2025-02-28T12:00:00.000Z').reason_codes).toEqual(['recurrence_period_used']);
  });

  it('MONTHLY in Tokyo: the same UTC instants fall in February already; January ends at 14:59:59.999 UTC on 31 January', () => {
    const s = agentIn(TOKYO, { recurrence: { frequency: 'MONTHLY' } }, at('2025-01-20T00:00:00.000Z'));
    expect(decide(s, '2025-01-31T14:30:00.000Z').decision).toBe('APPROVE'); // 31 January 23:30 +09:00
    expect(decide(s, '2025-01-31T14:59:59.999Z').reason_codes).toEqual(['recurrence_period_used']);
    expect(decide(s, '2025-01-31T15:00:00.000Z').decision).toBe('APPROVE'); // 1 February 00:00 +09:00
    // 04:30 UTC on 1 February, January in New York, is February in Tokyo: used.
    expect(decide(s, '2025-02-01T04:30:00.000Z').reason_codes).toEqual(['recurrence_period_used']);
  });

  it('DAILY in Berlin across the spring change: 30 March 2025 runs 23 hours (23:00 UTC to 22:00 UTC)', () => {
    const s = agentIn(BERLIN, { recurrence: { frequency: 'DAILY' } }, at('2025-03-29T12:00:00.000Z'));
    expect(decide(s, '2025-03-29T22:59:59.999Z').decision).toBe('APPROVE'); // Saturday 23:59:59.999 +01:00
    expect(decide(s, '2025-03-29T23:00:00.000Z').decision).toBe('APPROVE'); // Sunday 00:00 +01:00
    expect(decide(s, '2025-03-30T21:59:59.999Z').reason_codes).toEqual(['recurrence_period_used']); // 23:59 +02:00
    expect(decide(s, '2025-03-30T22:00:00.000Z').decision).toBe('APPROVE'); // Monday 00:00 +02:00
  });

  it('max_occurrences counts over the life of the mandate, ahead of the period rule', () => {
    const s = agentIn(
      TOKYO,
      { recurrence: { frequency: 'WEEKLY', max_occurrences: 2 } },
      at('2025-05-01T00:00:00.000Z'),
    );
    expect(decide(s, '2025-05-05T01:00:00.000Z').decision).toBe('APPROVE'); // Monday 10:00 +09:00
    expect(decide(s, '2025-05-11T14:59:59.999Z').reason_codes).toEqual(['recurrence_period_used']); // Sunday 23:59
    expect(decide(s, '2025-05-11T15:00:00.000Z').decision).toBe('APPROVE'); // Monday 00:00 +09:00
    const third = decide(s, '2025-05-19T01:00:00.000Z');
    expect(third.reason_codes).toEqual(['recurrence_max_occurrences_reached']);
    expect(third.reason_detail).toContain('max_occurrences 2');
  });

  it('ON_DEMAND has no period: only max_occurrences bounds it', () => {
    const s = agentIn(
      NEW_YORK,
      { recurrence: { frequency: 'ON_DEMAND', max_occurrences: 3 } },
      at('2025-05-01T00:00:00.000Z'),
    );
    for (let i = 0; i < 3; i++) expect(decide(s, `2025-05-05T01:0${i}:00.000Z`).decision).toBe('APPROVE');
    expect(decide(s, '2025-05-05T01:05:00.000Z').reason_codes).toEqual(['recurrence_max_occurrences_reached']);
  });

  it('period starts: QUARTERLY from January, April, July, October; BIWEEKLY in pairs of weeks from valid_from', () => {
    const tokyoMay = windowsOf(TOKYO, at('2025-05-14T03:00:00.000Z'));
    expect(new Date(periodStartOf('QUARTERLY', tokyoMay, TOKYO, 0)).toISOString()).toBe('2025-03-31T15:00:00.000Z');
    const nyApril = windowsOf(NEW_YORK, at('2025-04-01T03:00:00.000Z')); // 31 March 23:00 -04:00
    expect(new Date(periodStartOf('QUARTERLY', nyApril, NEW_YORK, 0)).toISOString()).toBe('2025-01-01T05:00:00.000Z');
    // valid_from Wednesday 8 January 2025 (UTC): pairs of ISO weeks from Monday 6 January.
    const anchor = at('2025-01-08T10:00:00.000Z');
    const second = windowsOf('UTC', at('2025-01-15T10:00:00.000Z'));
    expect(new Date(periodStartOf('BIWEEKLY', second, 'UTC', anchor)).toISOString()).toBe('2025-01-06T00:00:00.000Z');
    const third = windowsOf('UTC', at('2025-01-22T10:00:00.000Z'));
    expect(new Date(periodStartOf('BIWEEKLY', third, 'UTC', anchor)).toISOString()).toBe('2025-01-20T00:00:00.000Z');
    const s = agentIn('UTC', { recurrence: { frequency: 'BIWEEKLY' } }, anchor, '2025-01-08T10:00:00.000Z');
    expect(decide(s, '2025-01-08T12:00:00.000Z').decision).toBe('APPROVE');
    expect(decide(s, '2025-01-19T23:59:59.999Z').reason_codes).toEqual(['recurrence_period_used']);
    expect(decide(s, '2025-01-20T00:00:00.000Z').decision).toBe('APPROVE');
  });
});

describe('days of the week, window, minimum amount, payees', () => {
  it('days_of_week are local days: Monday 01:00 in Tokyo is Sunday in New York', () => {
    const terms: StoredTerms = { execution_window: { days_of_week: ['MON'] } };
    const instant = '2025-05-18T16:00:00.000Z';
    expect(decide(agentIn(TOKYO, terms, at(instant)), instant).decision).toBe('APPROVE');
    const ny = decide(agentIn(NEW_YORK, terms, at(instant)), instant);
    expect(ny.reason_codes).toEqual(['day_of_week_not_allowed']);
    expect(ny.reason_detail).toContain('MON');
  });

  it('the execution window is inclusive at both ends', () => {
    const terms: StoredTerms = {
      execution_window: { not_before: '2025-05-01T00:00:00.000Z', not_after: '2025-05-31T23:59:59.999Z' },
    };
    const s = agentIn('UTC', terms, at('2025-04-30T00:00:00.000Z'));
    expect(decide(s, '2025-04-30T23:59:59.999Z').reason_codes).toEqual(['outside_execution_window']);
    expect(decide(s, '2025-05-01T00:00:00.000Z').decision).toBe('APPROVE');
    expect(decide(s, '2025-05-31T23:59:59.999Z').decision).toBe('APPROVE');
    expect(decide(s, '2025-06-01T00:00:00.000Z').reason_codes).toEqual(['outside_execution_window']);
  });

  it('minimum amount: exactly the minimum approves, a cent less declines', () => {
    const s = agentIn('UTC', { min_amount_per_transaction: '5.5' }, at('2025-05-01T00:00:00.000Z'));
    expect(decide(s, '2025-05-01T01:00:00.000Z', { amount: '5.49' }).reason_codes).toEqual(['amount_below_minimum']);
    expect(decide(s, '2025-05-01T01:00:01.000Z', { amount: '5.50' }).decision).toBe('APPROVE');
  });

  it('allowed payees compare merchant_id; the merchant lock holds the payee of the first approval', () => {
    const s = agentIn('UTC', { allowed_payees: ['m_1', 'm_2'], merchant_lock: true }, at('2025-05-01T00:00:00.000Z'));
    expect(decide(s, '2025-05-01T01:00:00.000Z').reason_codes).toEqual(['payee_not_allowed']);
    expect(decide(s, '2025-05-01T01:00:01.000Z', { merchantId: 'm_3' }).reason_codes).toEqual(['payee_not_allowed']);
    expect(decide(s, '2025-05-01T01:00:02.000Z', { merchantId: 'm_2' }).decision).toBe('APPROVE');
    const other = decide(s, '2025-05-01T01:00:03.000Z', { merchantId: 'm_1' });
    expect(other.reason_codes).toEqual(['payee_locked']);
    expect(other.reason_detail).toContain('m_2');
    expect(decide(s, '2025-05-01T01:00:04.000Z', { merchantId: 'm_2' }).decision).toBe('APPROVE');
  });
});

const BASE = process.env.TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432';
const NAME = `t_terms_${randomBytes(5).toString('hex')}`;
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

async function seed(agentId: string, timeZone: string, terms: StoredTerms): Promise<void> {
  const principalId = `prn_${agentId}`;
  await sql`insert into principals (id, client_id, principal_kind, verification_status, verification_mode,
      verification_type, profile, verification, timezone)
    values (${principalId}, 'cli_c', 'personal', 'VERIFIED', 'client_attested', 'KYC', '{}', '{}', ${timeZone})`;
  await sql`insert into agents (id, principal_id, client_id, name, did, did_method, capabilities, created_at)
    values (${agentId}, ${principalId}, 'cli_c', 'agent', ${`did:key:${agentId}`}, 'key', ${['PURCHASE']},
      ${new Date('2025-01-01T00:00:00.000Z')})`;
  await sql`insert into mandates (id, agent_id, principal_id, currency, max_amount_per_transaction,
      valid_from, valid_until, created_at, mandate_hash, terms)
    values (${`mnd_${agentId}`}, ${agentId}, ${principalId}, 'USD', '100',
      ${new Date('2025-01-01T00:00:00.000Z')}, ${new Date('2030-01-01T00:00:00.000Z')},
      ${new Date('2025-01-01T00:00:00.000Z')}, 'sha256:x', ${sql.json(terms as never)})`;
}

/** Loads the agent as its actor would at `instant` (an eviction, a restart), decides and commits. */
async function decideAt(agentId: string, instant: string, merchantId: string | null = null) {
  const nowMs = at(instant);
  const s = await decisionCore.load(sql as never, agentId, nowMs);
  if (s === null) throw new Error('agent not found');
  const t = s.mandates[0]?.terms;
  const loaded = { occurrences: t?.occurrences, period: t?.periodCount, locked: t?.lockedPayee };
  const ev = decisionCore.evaluate(
    s,
    request({ agentId, principalId: `prn_${agentId}`, merchantId, receivedAtMs: nowMs }),
    nowMs,
  );
  await insertAudit(ev.audit);
  const res = ev.response as { decision: string; reason_codes: string[] };
  return { loaded, decision: res.decision, reasons: res.reason_codes };
}

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

describe('occurrences and the merchant lock rebuilt from the audit log at load', () => {
  it('MONTHLY in Tokyo with max_occurrences 2, reloaded before every decision', async () => {
    await seed('agt_tyo', TOKYO, { recurrence: { frequency: 'MONTHLY', max_occurrences: 2 }, merchant_lock: true });
    let r = await decideAt('agt_tyo', '2025-01-31T14:30:00.000Z', 'm_1');
    expect(r).toMatchObject({ decision: 'APPROVE', loaded: { occurrences: 0, period: 0, locked: null } });
    r = await decideAt('agt_tyo', '2025-01-31T14:59:59.999Z', 'm_1');
    expect(r).toMatchObject({
      reasons: ['recurrence_period_used'],
      loaded: { occurrences: 1, period: 1, locked: 'm_1' },
    });
    r = await decideAt('agt_tyo', '2025-01-31T15:00:00.000Z', 'm_2');
    expect(r).toMatchObject({ reasons: ['payee_locked'], loaded: { occurrences: 1, period: 0 } });
    r = await decideAt('agt_tyo', '2025-01-31T15:00:00.001Z', 'm_1');
    expect(r.decision).toBe('APPROVE');
    r = await decideAt('agt_tyo', '2025-03-01T00:00:00.000Z', 'm_1');
    expect(r).toMatchObject({ reasons: ['recurrence_max_occurrences_reached'], loaded: { occurrences: 2, period: 0 } });
  });
});
