// Audit rollups (migrations/0070_agent_audit_rollups.sql): a summary of an agent's audit rows
// created before `upto`, so building its actor reads the summary and the rows from `upto` on
// instead of the agent's whole history (its cost no longer grows with the agent's age).
//
// A rollup is only ever moved forward, in the background (the shard worker schedules it when
// an agent's actor has seen ROLLUP_AFTER_ROWS audit rows past its rollup, or when building it
// missed its deadline), and `upto` stays ROLLUP_MARGIN_MS behind the clock: a decision that
// old has long been committed or abandoned (commit deadlines are at most seconds), so no row
// can still appear before `upto` once it is summarised. Writes are compare-and-set on the old
// `upto`, so two refreshes racing (two shards after a resize, say) cannot count a row twice.
import { fromDb, toDb, type Units } from '../../domain/money.js';
import type { Sql } from '../../storage/db.js';
import type { AgentAuditRollupRow, RollupMandateSums } from '../../storage/rows/agent-audit-rollups.js';
import { dayStartMs, monthStartMs } from './calendar.js';

/**
 * Audit rows past an agent's rollup after which the worker refreshes it: what a load reads at
 * most besides the last ROLLUP_MARGIN_MS of rows. A capture, release or refund reloads the
 * agent's actor, so a busy agent with holds loads often: at 5,000 each of those loads read up to
 * 5,000 rows (the soak's mix, 400/s: the loads' sums rose to 2.8 ms and ~450 pages a call).
 */
export const ROLLUP_AFTER_ROWS = 1_000;
/** How far behind the clock a rollup's `upto` is kept, in milliseconds. */
export const ROLLUP_MARGIN_MS = 5 * 60_000;

/** Per mandate: APPROVED amount and count in the month and in the UTC day that contain upto, before upto. */
export type MandateSums = RollupMandateSums;

export interface Rollup {
  readonly upto: Date;
  readonly approved: number;
  readonly declined: number;
  readonly stepUps: number;
  readonly mandates: Readonly<Record<string, MandateSums>>;
}

/** A row of the per-(mandate, decision) aggregate of audit rows, with month and day filters. */
export interface TotalsRow {
  mandate_id: string | null;
  decision: string;
  n: number;
  month_sum: string;
  month_n: number;
  day_sum: string;
  day_n: number;
}

/**
 * Per (mandate, decision), over the agent's audit rows in [from, to) (either bound may be
 * open): the number of rows, and the amount and number of those since `monthStart` and since
 * `dayStart` (callers keep the sums of the APPROVE rows).
 */
export function totals(
  sql: Sql,
  agentId: string,
  window: { from: Date | null; to: Date | null; monthStart: Date; dayStart: Date },
): Promise<TotalsRow[]> {
  return sql<TotalsRow[]>`
    select mandate_id, decision, count(*)::int as n,
           coalesce(sum(amount) filter (where created_at >= ${window.monthStart}), 0)::text as month_sum,
           (count(*) filter (where created_at >= ${window.monthStart}))::int as month_n,
           coalesce(sum(amount) filter (where created_at >= ${window.dayStart}), 0)::text as day_sum,
           (count(*) filter (where created_at >= ${window.dayStart}))::int as day_n
    from authorizations
    where agent_id = ${agentId}
      ${window.from === null ? sql`` : sql`and created_at >= ${window.from}`}
      ${window.to === null ? sql`` : sql`and created_at < ${window.to}`}
    group by mandate_id, decision`;
}

/** All-time decision counts (TrustStats has this shape). */
export interface Counts {
  approved: number;
  declined: number;
  stepUps: number;
}

/** APPROVED amount and count of a mandate in the current month and UTC day (MandateState has this shape). */
export interface Sums {
  monthAmount: Units;
  monthCount: number;
  dayAmount: Units;
  dayCount: number;
}

/**
 * Adds aggregate rows to `counts` (every decision) and each APPROVE row of a mandate to the
 * sums `sumsOf` gives for it (null: not tracked). Returns the number of audit rows added.
 */
export function fold(rows: readonly TotalsRow[], counts: Counts, sumsOf: (mandateId: string) => Sums | null): number {
  let n = 0;
  for (const r of rows) {
    n += r.n;
    if (r.decision === 'APPROVE') counts.approved += r.n;
    else if (r.decision === 'DECLINE') counts.declined += r.n;
    else counts.stepUps += r.n;
    if (r.decision !== 'APPROVE' || r.mandate_id === null) continue;
    const s = sumsOf(r.mandate_id);
    if (s === null) continue;
    s.monthAmount += fromDb(r.month_sum) ?? 0n;
    s.monthCount += r.month_n;
    s.dayAmount += fromDb(r.day_sum) ?? 0n;
    s.dayCount += r.day_n;
  }
  return n;
}

/** The agent's all-time decision counts: its rollup plus the rows since (GET /agents/{id}/metrics). */
export async function decisionCounts(sql: Sql, agentId: string, nowMs: number): Promise<Counts> {
  const rollup = await readRollup(sql, agentId);
  const counts = { approved: rollup?.approved ?? 0, declined: rollup?.declined ?? 0, stepUps: rollup?.stepUps ?? 0 };
  const rows = await totals(sql, agentId, {
    from: rollup?.upto ?? null,
    to: null,
    monthStart: new Date(monthStartMs(nowMs)),
    dayStart: new Date(dayStartMs(nowMs)),
  });
  fold(rows, counts, () => null);
  return counts;
}

type StoredRollup = Pick<AgentAuditRollupRow, 'upto' | 'approved' | 'declined' | 'step_ups' | 'mandates'>;

/** The rollup's columns as an agent query left-joins them under a rollup_ prefix (src/decision/load.ts). */
export interface JoinedRollup {
  rollup_upto: AgentAuditRollupRow['upto'] | null;
  rollup_approved: AgentAuditRollupRow['approved'] | null;
  rollup_declined: AgentAuditRollupRow['declined'] | null;
  rollup_step_ups: AgentAuditRollupRow['step_ups'] | null;
  rollup_mandates: AgentAuditRollupRow['mandates'] | null;
}

export async function readRollup(sql: Sql, agentId: string): Promise<Rollup | null> {
  const [r] = await sql<StoredRollup[]>`
    select upto, approved::text as approved, declined::text as declined, step_ups::text as step_ups, mandates
    from agent_audit_rollups where agent_id = ${agentId}`;
  return r === undefined ? null : fromStored(r);
}

function fromStored(r: StoredRollup): Rollup {
  return {
    upto: r.upto,
    approved: Number(r.approved),
    declined: Number(r.declined),
    stepUps: Number(r.step_ups),
    mandates: r.mandates ?? {},
  };
}

/** Parses the rollup columns of a joined row (all null when the agent has no rollup). */
export function rollupOf(r: JoinedRollup): Rollup | null {
  if (r.rollup_upto === null) return null;
  return fromStored({
    upto: r.rollup_upto,
    approved: r.rollup_approved ?? '0',
    declined: r.rollup_declined ?? '0',
    step_ups: r.rollup_step_ups ?? '0',
    mandates: r.rollup_mandates ?? {},
  });
}

/**
 * The month and day sums of a mandate as of `atMs`, from a rollup (its sums count only when
 * `atMs` is in the same month or day as its upto) and the aggregate of the rows after it.
 */
export function carried(rollup: Rollup | null, mandateId: string, atMs: number): Sums {
  const s = rollup?.mandates[mandateId];
  if (rollup === null || s === undefined) return { monthAmount: 0n, monthCount: 0, dayAmount: 0n, dayCount: 0 };
  const uptoMs = rollup.upto.getTime();
  const sameMonth = monthStartMs(uptoMs) === monthStartMs(atMs);
  const sameDay = dayStartMs(uptoMs) === dayStartMs(atMs);
  return {
    monthAmount: sameMonth ? (fromDb(s.month_sum) ?? 0n) : 0n,
    monthCount: sameMonth ? s.month_n : 0,
    dayAmount: sameDay ? (fromDb(s.day_sum) ?? 0n) : 0n,
    dayCount: sameDay ? s.day_n : 0,
  };
}

/**
 * Moves the agent's rollup forward to ROLLUP_MARGIN_MS before `nowMs`: the old rollup plus the
 * rows between the two. Returns false when there was nothing to do or another refresh won.
 */
export async function refreshRollup(sql: Sql, agentId: string, nowMs: number): Promise<boolean> {
  const uptoMs = nowMs - ROLLUP_MARGIN_MS;
  const upto = new Date(uptoMs);
  const old = await readRollup(sql, agentId);
  if (old !== null && old.upto.getTime() >= uptoMs) return false;
  const rows = await totals(sql, agentId, {
    from: old?.upto ?? null,
    to: upto,
    monthStart: new Date(monthStartMs(uptoMs)),
    dayStart: new Date(dayStartMs(uptoMs)),
  });
  const counts = { approved: old?.approved ?? 0, declined: old?.declined ?? 0, stepUps: old?.stepUps ?? 0 };
  const sums = new Map<string, Sums>();
  if (old !== null) for (const id of Object.keys(old.mandates)) sums.set(id, carried(old, id, uptoMs));
  fold(rows, counts, (id) => {
    let s = sums.get(id);
    if (s === undefined) {
      s = { monthAmount: 0n, monthCount: 0, dayAmount: 0n, dayCount: 0 };
      sums.set(id, s);
    }
    return s;
  });
  const mandates: Record<string, MandateSums> = {};
  for (const [id, s] of sums) {
    if (s.monthCount === 0 && s.dayCount === 0) continue;
    mandates[id] = {
      month_sum: toDb(s.monthAmount),
      month_n: s.monthCount,
      day_sum: toDb(s.dayAmount),
      day_n: s.dayCount,
    };
  }
  const written =
    old === null
      ? await sql`
          insert into agent_audit_rollups (agent_id, upto, approved, declined, step_ups, mandates)
          values (${agentId}, ${upto}, ${counts.approved}, ${counts.declined}, ${counts.stepUps}, ${sql.json(mandates as never)})
          on conflict (agent_id) do nothing`
      : await sql`
          update agent_audit_rollups
          set upto = ${upto}, approved = ${counts.approved}, declined = ${counts.declined}, step_ups = ${counts.stepUps},
              mandates = ${sql.json(mandates as never)}, updated_at = now()
          where agent_id = ${agentId} and upto = ${old.upto}`;
  return written.count === 1;
}
