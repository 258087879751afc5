// Loading an agent's state from PostgreSQL: the agent row, its mandates, its audit totals
// (rollup.ts) and its newest audit rows, replayed by history.ts.
import { fromDb } from '../domain/money.js';
import type { Sql } from '../storage/db.js';
import type { AgentRow } from '../storage/rows/agents.js';
import type { AuthorizationRow } from '../storage/rows/authorizations.js';
import type { PrincipalRow } from '../storage/rows/principals.js';
import type { StepUpRow } from '../storage/rows/step-ups.js';
import type { ShadowThresholdsRow, ThresholdsRow } from '../storage/rows/thresholds.js';
import { type AgentState, MAX_PENDING_STEP_UPS, type MandateState } from './agent-state.js';
import { markReached } from './caps.js';
import { pointsToCompromise } from './evidence.js';
import { type HistoryRow, replayHistory } from './history.js';
import { dbTimeMs, type LoadedMandateRow, mandateFromRow } from './mandate-row.js';
import { readTermsUsage } from './mandate-terms.js';
import { dayStartMs, monthStartMs, type Windows, windowsOf } from './model/calendar.js';
import { carried, fold, type JoinedRollup, rollupOf, type TotalsRow, totals } from './model/rollup.js';
import type { ThresholdOverrides } from './model/thresholds.js';
import { type BudgetRow, loadBudget } from './principal-budget.js';
import { EVIDENCE_ROWS, EVIDENCE_WINDOW_MS, evidenceDue, seedMerchantEvidence } from './principal-evidence.js';
import { concurrent, literal, reads, unprepared } from './reads.js';
import { merchantKeyOf, newAgentState } from './state.js';
import { addPendingStepUp } from './step-up.js';
import { shadowSetOf } from './threshold-eval.js';
import { creditSums, earliest, loggedSums, needsLog, readWindowSums } from './windows.js';

/** Audit rows read at load to rebuild windows, sessions, baselines and pending step-ups. */
export const RECENT_ROWS = 200;

/**
 * Principals' time zones as this thread last loaded them (at most ZONES_SIZE): the zone a load's
 * first round trip guesses the agent's calendar windows in (UTC for a Principal not seen yet).
 */
const zones = new Map<string, string>();
const ZONES_SIZE = 4096;

function rememberZone(principalId: string, timeZone: string): void {
  if (zones.get(principalId) === timeZone) return;
  if (zones.size >= ZONES_SIZE) zones.clear();
  zones.set(principalId, timeZone);
}

/**
 * Loads an agent's state: the agent row with its Principal's threshold overrides (live and
 * shadow) and its audit rollup, its unexpired ACTIVE mandates and the newest expired one per
 * rail coverage and currency, today's and this month's APPROVED totals per mandate with the
 * all-time decision counts (the rollup plus the rows since its upto), and its RECENT_ROWS
 * newest audit rows. All on primary keys or the authorizations (agent_id, created_at) and
 * mandates (agent_id, created_at) indexes.
 *
 * On PostgreSQL (reads.ts) the first round trip reads the agent row, its mandates and its newest
 * rows, and with them, speculatively, what most agents need besides: the totals since the rollup
 * (the upto as the database has it), the budget credits in the calendar windows of `nowMs` in
 * the time zone this thread last saw for `principalHint` (the requesting Principal; UTC when
 * unknown) from the day's or month's start, and the Principal's evidence when due. Each is kept
 * only when the agent row confirms its guess (the same upto; the same windows and time zone; no
 * mandate with a week, year or whole-life cap; the same Principal); what is not kept, and what
 * only some agents need (window sums from the audit log for another time zone or a week, year or
 * whole-life cap, mandate terms, the budget slice, the open step-ups under the 'principal'
 * policy) is read in a second round trip, all together. An agent of a UTC Principal, or of one
 * this thread has loaded an agent of, with day and month caps only, no Principal budget and the
 * default step-up policy: one round trip. One query after another on the embedded database,
 * without the speculative reads.
 */
export async function loadAgentState(
  sql: Sql,
  agentId: string,
  nowMs: number,
  principalHint?: string,
): Promise<AgentState | null> {
  const now = new Date(nowMs);
  const speculate = concurrent(sql);
  const guessZone = (principalHint === undefined ? undefined : zones.get(principalHint)) ?? 'UTC';
  const guess = windowsOf(guessZone, nowMs);
  const guessFrom = Math.min(guess.day, guess.month);
  const guessDay = dayStartMs(nowMs);
  const guessMonth = monthStartMs(nowMs);
  const evidenceEarly = speculate && principalHint !== undefined && evidenceDue(principalHint, nowMs);
  // The audit log's window sums only for a Principal known to be in another time zone: for a
  // UTC one most agents need none (the rollup's UTC day and month are theirs).
  const guessLogged = speculate && guessZone !== 'UTC';
  const [agents, mandateRows, recent, earlyTotals, earlyCredits, , earlyLogged] = await reads(
    sql,
    () => agentRow(sql, agentId),
    () => mandateRowsOf(sql, agentId, now),
    () => recentRows(sql, agentId),
    () =>
      speculate
        ? totalsSinceRollup(sql, agentId, { monthStart: new Date(guessMonth), dayStart: new Date(guessDay) })
        : Promise.resolve(null),
    () => (speculate ? creditSums(sql, agentId, null, guess, new Date(guessFrom)) : Promise.resolve(null)),
    () => (evidenceEarly ? loadPrincipalEvidence(sql, principalHint as string, nowMs) : Promise.resolve()),
    () => (guessLogged ? loggedSums(sql, agentId, null, guess, new Date(guessFrom)) : Promise.resolve(null)),
  );
  const agent = agents[0];
  if (!agent) return null;
  // The state's time, which its calendar windows are those of: this clock's, or the newest
  // decision's when that is later (another instance, whose clock runs ahead of this one within
  // the cluster's bound, decided it). Every decision of this state is at or after it
  // (decision-time.ts), so a row stamped just past a midnight this clock has not reached is
  // counted in its own day, not in the day before, which the first decision would roll over.
  const newest = recent[0];
  const asOfMs = newest === undefined ? nowMs : Math.max(nowMs, dbTimeMs(newest.created_at));

  const mandates: MandateState[] = [];
  const timeZone = agent.timezone ?? 'UTC';
  rememberZone(agent.principal_id, timeZone);
  for (const row of mandateRows) mandates.push(mandateFromRow(row, asOfMs, timeZone));
  // The rollup summarises the rows before its upto; only the rows since are read (rollup.ts).
  const rollup = rollupOf(agent);
  const windows = windowsOf(timeZone, asOfMs);
  // The speculative reads of the first round trip, where the agent row confirms their guesses.
  const totalsKept =
    earlyTotals !== null &&
    sameTime(earlyTotals.upto, rollup?.upto ?? null) &&
    dayStartMs(asOfMs) === guessDay &&
    monthStartMs(asOfMs) === guessMonth
      ? earlyTotals.rows
      : null;
  const windowsKept = timeZone === guessZone && sameWindows(windows, guess);
  const creditsKept =
    earlyCredits !== null && windowsKept && earliest(mandates, windows)?.getTime() === guessFrom
      ? earlyCredits
      : undefined;
  const fromLog = mandates.filter((m) => needsLog(m, timeZone));
  const loggedKept =
    earlyLogged !== null && windowsKept && earliest(fromLog, windows)?.getTime() === guessFrom
      ? earlyLogged
      : undefined;
  // The evidence read in the first round trip is the agent's Principal's: not read again.
  const evidenceRead = evidenceEarly && agent.principal_id === principalHint;
  const [rows, applyWindowSums, budget, openStepUps, , applyTermsUsage] = await reads(
    sql,
    () =>
      totalsKept !== null
        ? Promise.resolve(totalsKept)
        : totals(sql, agentId, {
            from: rollup?.upto ?? null,
            to: null,
            monthStart: new Date(monthStartMs(asOfMs)),
            dayStart: new Date(dayStartMs(asOfMs)),
          }),
    // The UTC day and month sums of the rollup and totals are all most mandates need; windows in
    // another time zone, the week, year and whole-life caps are read from the audit log, and
    // budget credits (holds released, expired or partly captured, refunds) come off every
    // window (windows.ts).
    () =>
      readWindowSums(sql, agentId, mandates, windows, timeZone, {
        credited: creditsKept,
        logged: loggedKept,
      }),
    // The agent's slice of its Principal's budget and its spend in the window (principal-budget.ts).
    () => loadBudget(sql, agentId, agent.principal_id, agent, timeZone, asOfMs),
    () =>
      agent.step_up_confirmation === 'principal' ? openStepUpRows(sql, agentId, new Date(asOfMs)) : Promise.resolve([]),
    () =>
      !evidenceRead && evidenceDue(agent.principal_id, asOfMs)
        ? loadPrincipalEvidence(sql, agent.principal_id, asOfMs)
        : Promise.resolve(),
    // Occurrences and the merchant lock of mandates with such terms (mandate-terms.ts).
    () => readTermsUsage(sql, agentId, mandates, windows, timeZone),
  );

  const state = newAgentState({
    agentId: agent.id,
    principalId: agent.principal_id,
    clientId: agent.client_id,
    status: agent.status,
    trustLevel: agent.trust_level,
    kyaScore: agent.kya_score === null ? null : Number(agent.kya_score),
    createdAtMs: dbTimeMs(agent.created_at),
    capabilities: agent.capabilities,
    mandates,
    overrides: sanitizeOverrides(agent.overrides),
    timeZone,
    stepUpByPrincipal: agent.step_up_confirmation === 'principal',
  });
  state.shadow = shadowSetOf(state.overrides, agent.shadow_overrides);

  if (rollup !== null) {
    state.stats.approved += rollup.approved;
    state.stats.declined += rollup.declined;
    state.stats.stepUps += rollup.stepUps;
    for (const m of mandates) {
      const c = carried(rollup, m.id, asOfMs);
      m.dayAmount = c.dayAmount;
      m.dayCount = c.dayCount;
      m.monthAmount = c.monthAmount;
      m.monthCount = c.monthCount;
    }
  }
  state.auditRowsSinceRollup = fold(rows, state.stats, (id) => mandates.find((m) => m.id === id) ?? null);
  state.creditSeq = applyWindowSums();
  applyTermsUsage();
  for (const m of mandates) markReached(m);
  state.budget = budget;

  const history: HistoryRow[] = [];
  for (let i = recent.length - 1; i >= 0; i--) history.push(historyRowOf(recent[i] as RecentRow));
  replayHistory(state, history, asOfMs, recent.length >= RECENT_ROWS);
  // The calendar windows above are those of asOfMs: no decision of this state goes before it.
  if (asOfMs > state.decidedUpToMs) state.decidedUpToMs = asOfMs;
  if (state.stepUpByPrincipal) addOpenStepUps(state, openStepUps);
  return state;
}

/**
 * totals() from the agent's rollup's upto as the database has it now (all rows when it has no
 * rollup), with that upto: a load's first round trip reads it before it has the agent row
 * (load.ts), and uses it only when the upto is the one the agent row read.
 */
async function totalsSinceRollup(
  sql: Sql,
  agentId: string,
  window: { monthStart: Date; dayStart: Date },
): Promise<{ upto: Date | null; rows: TotalsRow[] }> {
  const rows = await unprepared<TotalsRow & { upto: Date | null }>(
    sql,
    `
    with r as (select upto from agent_audit_rollups where agent_id = ${literal(agentId)})
    select (select upto from r) as upto, t.* from (select 1) one left join lateral (
      select mandate_id, decision, count(*)::int as n,
             coalesce(sum(amount) filter (where created_at >= ${literal(window.monthStart)}), 0)::text as month_sum,
             (count(*) filter (where created_at >= ${literal(window.monthStart)}))::int as month_n,
             coalesce(sum(amount) filter (where created_at >= ${literal(window.dayStart)}), 0)::text as day_sum,
             (count(*) filter (where created_at >= ${literal(window.dayStart)}))::int as day_n
      from authorizations
      where agent_id = ${literal(agentId)} and created_at >= coalesce((select upto from r), '-infinity'::timestamptz)
      group by mandate_id, decision
    ) t on true`,
  );
  return { upto: rows[0]?.upto ?? null, rows: rows.filter((r) => r.decision !== null) };
}

function sameTime(a: Date | null, b: Date | null): boolean {
  return a === null || b === null ? a === b : a.getTime() === b.getTime();
}

function sameWindows(a: Windows, b: Windows): boolean {
  return a.day === b.day && a.week === b.week && a.month === b.month && a.year === b.year;
}

/**
 * The agent row with its Principal's settings, thresholds (live and shadow), budget and the
 * agent's audit rollup, each left-joined (null: none).
 */
type AgentLoadRow = Pick<
  AgentRow,
  'id' | 'principal_id' | 'client_id' | 'status' | 'trust_level' | 'kya_score' | 'created_at' | 'capabilities'
> & {
  overrides: ThresholdsRow['overrides'] | null;
  shadow_overrides: ShadowThresholdsRow['overrides'] | null;
  timezone: PrincipalRow['timezone'] | null;
  step_up_confirmation: PrincipalRow['step_up_confirmation'] | null;
} & JoinedRollup &
  BudgetRow;

/** The agent's AgentLoadRow (none when the agent does not exist). */
function agentRow(sql: Sql, agentId: string) {
  return unprepared<AgentLoadRow>(
    sql,
    `
    select a.id, a.principal_id, a.client_id, a.status, a.trust_level, a.kya_score::text as kya_score,
           a.created_at, a.capabilities, t.overrides, s.overrides as shadow_overrides, r.upto as rollup_upto,
           r.approved::text as rollup_approved,
           r.declined::text as rollup_declined, r.step_ups::text as rollup_step_ups,
           r.mandates as rollup_mandates, p.timezone, p.step_up_confirmation, pb.amount::text as budget_amount,
           pb.currency as budget_currency, pb.budget_window, pb.effective_from as budget_effective_from,
           pb.version::text as budget_version
    from agents a left join thresholds t on t.principal_id = a.principal_id
      left join agent_audit_rollups r on r.agent_id = a.id
      left join principals p on p.id = a.principal_id
      left join shadow_thresholds s on s.principal_id = a.principal_id
      left join principal_budgets pb on pb.principal_id = a.principal_id
    where a.id = ${literal(agentId)}`,
  );
}

/**
 * Every unexpired ACTIVE mandate (at most 100 per agent: src/runtime/mandate-store.ts) and, of
 * the expired ones, only the newest of each group that mandateFromRow cannot tell apart in rail
 * coverage and currency (the groups are finer than that: by the stored rails, whether the crypto
 * block, chains and assets are set, and the currency as stored). That is all selectMandate can
 * ever report (mandate_expired names the newest mandate covering the rail in the currency;
 * currency_mismatch the newest covering the rail), so the expired mandates an agent piles up
 * over the years are neither all read nor all kept.
 */
function mandateRowsOf(sql: Sql, agentId: string, now: Date) {
  return unprepared<LoadedMandateRow>(
    sql,
    `
  with m as (
    select id, rails, currency, max_amount_per_transaction::text as max_amount_per_transaction,
           max_daily_amount::text as max_daily_amount, max_monthly_amount::text as max_monthly_amount,
           allowed_mccs, blocked_mccs, allowed_countries, blocked_countries, allowed_chains,
           allowed_assets, allowed_counterparties, crypto, valid_from, valid_until, created_at,
           max_weekly_amount::text as max_weekly_amount, max_yearly_amount::text as max_yearly_amount,
           max_total_amount::text as max_total_amount, max_daily_count, max_monthly_count,
           hold_expiry_seconds, budget_alert_share::text as budget_alert_share, terms
    from mandates
    where agent_id = ${literal(agentId)} and status = 'ACTIVE'
  ), kept as (
    select * from m where valid_until > ${literal(now)}
    union all
    (select distinct on (rails, crypto is null, cardinality(allowed_chains) > 0,
                         cardinality(allowed_assets) > 0, currency) *
     from m where valid_until <= ${literal(now)}
     order by rails, crypto is null, cardinality(allowed_chains) > 0, cardinality(allowed_assets) > 0,
              currency, created_at desc, id desc)
  )
  select * from kept
  order by created_at desc, id desc`,
  );
}

/** An audit row as recentRows reads it; voided: authorization_voids holds it (audit/voids.ts). */
export type RecentRow = Pick<
  AuthorizationRow,
  | 'id'
  | 'mandate_id'
  | 'amount'
  | 'currency'
  | 'mcc'
  | 'country'
  | 'decision'
  | 'reason_codes'
  | 'gates_fired'
  | 'merchant_id'
  | 'merchant_name'
  | 'session_id'
  | 'trust_score'
  | 'created_at'
  | 'step_up_id'
  | 'answers_slow'
> & { voided?: boolean };

/** The HistoryRow replayHistory folds of an audit row read back. */
export function historyRowOf(r: RecentRow): HistoryRow {
  return {
    id: r.id,
    amount: fromDb(r.amount) ?? 0n,
    currency: r.currency,
    mcc: r.mcc,
    country: r.country,
    decision: r.decision,
    reasonCodes: r.reason_codes ?? [],
    gatesFired: r.gates_fired ?? [],
    merchant: merchantKeyOf(r.merchant_id, r.merchant_name),
    merchantName: r.merchant_name,
    sessionId: r.session_id,
    trustScore: r.trust_score === null ? null : Number(r.trust_score),
    atMs: dbTimeMs(r.created_at),
    stepUpId: r.step_up_id,
    mandateId: r.mandate_id,
    slowAnswers: r.answers_slow === true,
    voided: r.voided === true,
  };
}

/** The agent's RECENT_ROWS newest audit rows, newest first. */
function recentRows(sql: Sql, agentId: string) {
  return unprepared<RecentRow>(
    sql,
    `
    select id, mandate_id, amount::text as amount, currency, mcc, country, decision, reason_codes, gates_fired,
           merchant_id, merchant_name, session_id, trust_score::text as trust_score, created_at, step_up_id,
           answers_slow,
           exists (select 1 from authorization_voids v where v.authorization_id = authorizations.id) as voided
    from authorizations
    where agent_id = ${literal(agentId)}
    order by created_at desc, id desc
    limit ${literal(RECENT_ROWS)}`,
  );
}

/**
 * Under the 'principal' policy the agent's open step-ups come from step_ups (migrations/0211),
 * which knows which ones the Principal confirmed and which were used (replayHistory leaves the
 * STEP_UP rows that have a step_up_id to this): unexpired, not USED, newest last.
 */
export type OpenStepUpRow = Pick<
  StepUpRow,
  'id' | 'authorization_id' | 'amount' | 'currency' | 'merchant_id' | 'merchant_name' | 'status' | 'expires_at'
>;

function openStepUpRows(sql: Sql, agentId: string, now: Date): Promise<readonly OpenStepUpRow[]> {
  return sql<OpenStepUpRow[]>`
    select id, authorization_id, amount::text as amount, currency, merchant_id, merchant_name, status, expires_at
    from step_ups
    where agent_id = ${agentId} and status <> 'USED' and expires_at > ${now}
    order by expires_at desc
    limit ${MAX_PENDING_STEP_UPS}`;
}

/** Adds the open step-ups read (newest first) to the state's pending ones, oldest first. */
export function addOpenStepUps(state: AgentState, rows: readonly OpenStepUpRow[]): void {
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i] as OpenStepUpRow;
    addPendingStepUp(state, {
      authorizationId: r.authorization_id,
      amount: fromDb(r.amount) ?? 0n,
      currency: r.currency,
      merchant: merchantKeyOf(r.merchant_id, r.merchant_name),
      expiresAtMs: dbTimeMs(r.expires_at),
      stepUpId: r.id,
      confirmed: r.status === 'CONFIRMED',
      declined: r.status === 'DECLINED',
    });
  }
}

function sanitizeOverrides(raw: Record<string, unknown> | null): ThresholdOverrides {
  if (!raw || typeof raw !== 'object') return {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  return out as ThresholdOverrides;
}

/**
 * The Principal's DECLINEs of the last EVIDENCE_WINDOW_MS (EVIDENCE_ROWS newest at most, on the
 * partial index of migrations/0150) that point to compromise, counted per merchant, seeded into
 * this thread's Principal-wide evidence (principal-evidence.ts).
 */
async function loadPrincipalEvidence(sql: Sql, principalId: string, nowMs: number): Promise<void> {
  const rows = await unprepared<Pick<AuthorizationRow, 'merchant_id' | 'merchant_name' | 'reason_codes'>>(
    sql,
    `
    select merchant_id, merchant_name, reason_codes from authorizations
    where principal_id = ${literal(principalId)} and decision = 'DECLINE'
      and created_at > ${literal(new Date(nowMs - EVIDENCE_WINDOW_MS))}
    order by created_at desc limit ${literal(EVIDENCE_ROWS)}`,
  );
  const counts = new Map<string, number>();
  for (const r of rows) {
    if (!pointsToCompromise(r.reason_codes ?? [])) continue;
    const key = merchantKeyOf(r.merchant_id, r.merchant_name);
    if (key !== '') counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  seedMerchantEvidence(principalId, counts);
}
