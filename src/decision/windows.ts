// The window sums of an agent's mandates at load beyond what the audit rollup gives
// (docs/holds.md "Windows"). The rollup keeps UTC day and month sums, which is all a mandate with
// only daily and monthly caps under a UTC Principal needs. A mandate with a week, year or
// whole-life cap, or any mandate of a Principal in another time zone, has its window sums read
// from the audit log instead (its APPROVE rows since the earliest window start it needs; since
// its first use for a whole-life cap). Then the budget credits (migrations/0160) come off every
// window the original authorization counted in: a release or expiry gives back its amount and
// its count, the rest of a partial capture and a refund give back their amount.
//
// A credit committed after the load reaches the actor as a message (src/shard/actors.ts
// creditAgent) and comes off the same windows in memory (applyCredit), so a release does not
// cost a reload. The credit sums are read in one statement with the agent's credit_seq
// (migrations/0310), which every credit bumps in its own transaction: a credit numbered above
// the loaded sequence is not in the sums, one at or below it is.
import { fromDb, type Units } from '../domain/money.js';
import type { Sql } from '../storage/db.js';
import type { AgentState, MandateState } from './agent-state.js';
import { markReached } from './caps.js';
import type { Windows } from './model/calendar.js';
import type { BudgetCredit } from './model/contract.js';
import { literal, reads, unprepared } from './reads.js';

/** Credits counted in memory since a load at most; beyond, the next one reloads the state. */
const MAX_APPLIED_CREDITS = 256;

/** The window sums of one mandate. */
export interface SumRow {
  mandate_id: string | null;
  day_sum: string;
  day_n: number;
  week_sum: string;
  month_sum: string;
  month_n: number;
  year_sum: string;
  total_sum: string;
}

function units(text: string): Units {
  return fromDb(text) ?? 0n;
}

/** Whether a mandate's window sums are read from the audit log (not only the rollup's UTC day and month). */
export function needsLog(m: MandateState, timeZone: string): boolean {
  return timeZone !== 'UTC' || m.weekly !== null || m.yearly !== null || m.total !== null;
}

/**
 * The earliest window start the caps of `ms` need (null: their whole life). The week and year
 * are read only when a mandate caps them (the sums of an uncapped window are never compared).
 */
export function earliest(ms: readonly MandateState[], w: Windows): Date | null {
  if (ms.some((m) => m.total !== null)) return null;
  let from = Math.min(w.day, w.month);
  if (ms.some((m) => m.weekly !== null)) from = Math.min(from, w.week);
  if (ms.some((m) => m.yearly !== null)) from = Math.min(from, w.year);
  return new Date(from);
}

/**
 * The agent's APPROVE amounts per mandate in the windows `w`, from the audit log from `from`
 * (null: their whole life), of the mandates `mandateIds` (null: of every mandate; the caller keeps
 * those it holds).
 */
export function loggedSums(
  sql: Sql,
  agentId: string,
  mandateIds: readonly string[] | null,
  w: Windows,
  from: Date | null,
): Promise<SumRow[]> {
  const day = literal(new Date(w.day));
  const month = literal(new Date(w.month));
  return unprepared<SumRow>(
    sql,
    `
    select mandate_id,
      coalesce(sum(amount) filter (where created_at >= ${day}), 0)::text as day_sum,
      (count(*) filter (where created_at >= ${day}))::int as day_n,
      coalesce(sum(amount) filter (where created_at >= ${literal(new Date(w.week))}), 0)::text as week_sum,
      coalesce(sum(amount) filter (where created_at >= ${month}), 0)::text as month_sum,
      (count(*) filter (where created_at >= ${month}))::int as month_n,
      coalesce(sum(amount) filter (where created_at >= ${literal(new Date(w.year))}), 0)::text as year_sum,
      coalesce(sum(amount), 0)::text as total_sum
    from authorizations
    where agent_id = ${literal(agentId)} and decision = 'APPROVE' and mandate_id is not null
      ${mandateIds === null ? '' : `and mandate_id in (${inList(mandateIds)})`}
      ${from === null ? '' : `and created_at >= ${literal(from)}`}
    group by mandate_id`,
  );
}

function inList(ids: readonly string[]): string {
  return ids.length === 0 ? 'null' : ids.map(literal).join(', ');
}

/** The credit sums of one mandate in windows `w`, with the agent's credit_seq they are as of. */
export type CreditRow = SumRow & { seq: string };

/**
 * The agent's budget credits per mandate, summed in the windows `w` from `from` (null: their
 * whole life), of the mandates `mandateIds` (null: of every mandate; the caller keeps those it
 * holds), read in one statement, one snapshot, with the sequence they are as of: a row with a null
 * mandate_id when the agent has no credits; none when the agent is gone.
 */
export function creditSums(
  sql: Sql,
  agentId: string,
  mandateIds: readonly string[] | null,
  w: Windows,
  from: Date | null,
): Promise<CreditRow[]> {
  const day = literal(new Date(w.day));
  const month = literal(new Date(w.month));
  return unprepared<CreditRow>(
    sql,
    `
    select s.credit_seq::text as seq, c.* from (select credit_seq from agents where id = ${literal(agentId)}) s
    left join lateral (
    select mandate_id,
      coalesce(sum(amount) filter (where authorized_at >= ${day}), 0)::text as day_sum,
      coalesce(sum(count_back) filter (where authorized_at >= ${day}), 0)::int as day_n,
      coalesce(sum(amount) filter (where authorized_at >= ${literal(new Date(w.week))}), 0)::text as week_sum,
      coalesce(sum(amount) filter (where authorized_at >= ${month}), 0)::text as month_sum,
      coalesce(sum(count_back) filter (where authorized_at >= ${month}), 0)::int as month_n,
      coalesce(sum(amount) filter (where authorized_at >= ${literal(new Date(w.year))}), 0)::text as year_sum,
      coalesce(sum(amount), 0)::text as total_sum
    from budget_credits
    where agent_id = ${literal(agentId)}
      ${mandateIds === null ? '' : `and mandate_id in (${inList(mandateIds)})`}
      ${from === null ? '' : `and authorized_at >= ${literal(from)}`}
    group by mandate_id
    ) c on true`,
  );
}

/**
 * Reads an agent's window sums (both reads at once where the pool allows it, see reads.ts)
 * and returns the function that sets it, to be called once the rollup and the audit totals are
 * in the mandates; that function returns the agent's credit_seq as of the credits read (-1:
 * nothing read). `early`: the sums already read in these windows from earliest() of the
 * mandates they are for, of these mandates or more: the credits (creditSums) and the audit log's
 * (loggedSums; for the mandates that need it).
 */
export async function readWindowSums(
  sql: Sql,
  agentId: string,
  mandates: readonly MandateState[],
  w: Windows,
  timeZone: string,
  early?: { readonly credited?: readonly CreditRow[] | undefined; readonly logged?: SumRow[] | undefined },
): Promise<() => number> {
  if (mandates.length === 0) return () => -1;
  const fromLog = mandates.filter((m) => needsLog(m, timeZone));
  const logged = (): Promise<SumRow[]> => {
    if (fromLog.length === 0) return Promise.resolve([]);
    if (early?.logged !== undefined) return Promise.resolve(early.logged);
    return loggedSums(
      sql,
      agentId,
      fromLog.map((m) => m.id),
      w,
      earliest(fromLog, w),
    );
  };
  const [rows, credits] = await reads(sql, logged, () =>
    early?.credited !== undefined
      ? Promise.resolve(early.credited)
      : creditSums(
          sql,
          agentId,
          mandates.map((m) => m.id),
          w,
          earliest(mandates, w),
        ),
  );
  return () => {
    const byId = new Map(rows.map((r) => [r.mandate_id, r]));
    for (const m of fromLog) {
      const r = byId.get(m.id);
      m.dayAmount = r === undefined ? 0n : units(r.day_sum);
      m.dayCount = r?.day_n ?? 0;
      m.weekAmount = r === undefined ? 0n : units(r.week_sum);
      m.monthAmount = r === undefined ? 0n : units(r.month_sum);
      m.monthCount = r?.month_n ?? 0;
      m.yearAmount = r === undefined ? 0n : units(r.year_sum);
      m.totalAmount = r === undefined ? 0n : units(r.total_sum);
    }
    for (const c of credits) {
      if (c.mandate_id === null) continue;
      const m = mandates.find((x) => x.id === c.mandate_id);
      if (m === undefined) continue;
      m.dayAmount -= units(c.day_sum);
      m.dayCount -= c.day_n;
      m.weekAmount -= units(c.week_sum);
      m.monthAmount -= units(c.month_sum);
      m.monthCount -= c.month_n;
      m.yearAmount -= units(c.year_sum);
      m.totalAmount -= units(c.total_sum);
    }
    const seq = credits[0]?.seq;
    return seq === undefined ? -1 : Number(seq);
  };
}

/**
 * Counts a budget credit committed after the load (DecisionCore.credit): off every window of
 * its mandate the original authorization counted in, as a reload would read it, and the
 * mandate's budget alerts recomputed as a reload would. False when the state cannot tell
 * whether it holds the credit (no sequence read), or the credit gives back a count that the
 * mandate's terms count (occurrences: read only at load); the actor then reloads.
 */
export function applyCredit(state: AgentState, credit: BudgetCredit): boolean {
  const m = state.mandates.find((x) => x.id === credit.mandateId);
  // A mandate the state does not hold (revoked, or an expired one not kept): no window to give back to.
  if (m === undefined) return true;
  if (state.creditSeq < 0) return false;
  if (credit.seq <= state.creditSeq || state.creditsApplied.includes(credit.seq)) return true;
  if (credit.countBack !== 0 && m.terms !== null && m.terms.counts) return false;
  if (state.creditsApplied.length >= MAX_APPLIED_CREDITS) return false;
  state.creditsApplied.push(credit.seq);
  const amount = BigInt(credit.amount) as Units;
  const at = credit.authorizedAtMs;
  if (at >= m.dayKey) {
    m.dayAmount -= amount;
    m.dayCount -= credit.countBack;
  }
  if (at >= m.weekKey) m.weekAmount -= amount;
  if (at >= m.monthKey) {
    m.monthAmount -= amount;
    m.monthCount -= credit.countBack;
  }
  if (at >= m.yearKey) m.yearAmount -= amount;
  m.totalAmount -= amount;
  m.alerted = 0;
  markReached(m);
  return true;
}
