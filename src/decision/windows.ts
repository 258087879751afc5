// The window sums of an agent's mandates at load beyond what the audit rollup gives
// (docs/holds.md "Windows"). The rollup keeps UTC day and month sums, which is all a mandate with
// only daily and monthly caps under a UTC Principal needs. A mandate with a week, year or
// whole-life cap, or any mandate of a Principal in another time zone, has its window sums read
// from the audit log instead (its APPROVE rows since the earliest window start it needs; since
// its first use for a whole-life cap). Then the budget credits (migrations/0160) come off every
// window the original authorization counted in: a release or expiry gives back its amount and
// its count, the rest of a partial capture and a refund give back their amount.
import { fromDb, type Units } from '../domain/money.js';
import type { Sql } from '../storage/db.js';
import type { MandateState } from './agent-state.js';
import type { Windows } from './model/calendar.js';
import { reads } from './reads.js';

interface SumRow {
  mandate_id: string;
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

function needsLog(m: MandateState, timeZone: string): boolean {
  return timeZone !== 'UTC' || m.weekly !== null || m.yearly !== null || m.total !== null;
}

/**
 * The earliest window start the caps of `ms` need (null: their whole life). The week and year
 * are read only when a mandate caps them (the sums of an uncapped window are never compared).
 */
function earliest(ms: readonly MandateState[], w: Windows): Date | null {
  if (ms.some((m) => m.total !== null)) return null;
  let from = Math.min(w.day, w.month);
  if (ms.some((m) => m.weekly !== null)) from = Math.min(from, w.week);
  if (ms.some((m) => m.yearly !== null)) from = Math.min(from, w.year);
  return new Date(from);
}

export async function loadWindowSums(
  sql: Sql,
  agentId: string,
  mandates: readonly MandateState[],
  w: Windows,
  timeZone: string,
): Promise<void> {
  (await readWindowSums(sql, agentId, mandates, w, timeZone))();
}

/**
 * Reads what loadWindowSums sets (both reads at once where the pool allows it, see reads.ts)
 * and returns the function that sets it, to be called once the rollup and the audit totals are
 * in the mandates.
 */
export async function readWindowSums(
  sql: Sql,
  agentId: string,
  mandates: readonly MandateState[],
  w: Windows,
  timeZone: string,
): Promise<() => void> {
  if (mandates.length === 0) return () => {};
  const fromLog = mandates.filter((m) => needsLog(m, timeZone));
  const logged = async (): Promise<SumRow[]> => {
    if (fromLog.length === 0) return [];
    const from = earliest(fromLog, w);
    return sql<SumRow[]>`
      select mandate_id,
        coalesce(sum(amount) filter (where created_at >= ${new Date(w.day)}), 0)::text as day_sum,
        (count(*) filter (where created_at >= ${new Date(w.day)}))::int as day_n,
        coalesce(sum(amount) filter (where created_at >= ${new Date(w.week)}), 0)::text as week_sum,
        coalesce(sum(amount) filter (where created_at >= ${new Date(w.month)}), 0)::text as month_sum,
        (count(*) filter (where created_at >= ${new Date(w.month)}))::int as month_n,
        coalesce(sum(amount) filter (where created_at >= ${new Date(w.year)}), 0)::text as year_sum,
        coalesce(sum(amount), 0)::text as total_sum
      from authorizations
      where agent_id = ${agentId} and decision = 'APPROVE' and mandate_id in ${sql(fromLog.map((m) => m.id))}
        ${from === null ? sql`` : sql`and created_at >= ${from}`}
      group by mandate_id`;
  };
  const from = earliest(mandates, w);
  const credited = (): Promise<SumRow[]> => sql<SumRow[]>`
    select mandate_id,
      coalesce(sum(amount) filter (where authorized_at >= ${new Date(w.day)}), 0)::text as day_sum,
      coalesce(sum(count_back) filter (where authorized_at >= ${new Date(w.day)}), 0)::int as day_n,
      coalesce(sum(amount) filter (where authorized_at >= ${new Date(w.week)}), 0)::text as week_sum,
      coalesce(sum(amount) filter (where authorized_at >= ${new Date(w.month)}), 0)::text as month_sum,
      coalesce(sum(count_back) filter (where authorized_at >= ${new Date(w.month)}), 0)::int as month_n,
      coalesce(sum(amount) filter (where authorized_at >= ${new Date(w.year)}), 0)::text as year_sum,
      coalesce(sum(amount), 0)::text as total_sum
    from budget_credits
    where agent_id = ${agentId} and mandate_id in ${sql(mandates.map((m) => m.id))}
      ${from === null ? sql`` : sql`and authorized_at >= ${from}`}
    group by mandate_id`;
  const [rows, credits] = await reads(sql, logged, credited);
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
  };
}
