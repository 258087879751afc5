// Reading a Principal's own audit rows of [from, to) oldest first, bounded per call in rows and
// in time, with a cursor to go on where a call stopped (the backtest and the shadow report).
// Rows are read in chunks on the (principal_id, created_at, id) index of migration 0240.
//
// The scans run in the range worker (range-runner.ts), off the thread that answers every
// tenant's /authorize (128 backtests in flight from one sandbox key on that thread turned 2-3% of
// another tenant's live purchases into DECLINE system_unavailable), and are bounded three ways
// besides rows and time per call: at most one scan in flight per Principal, at most
// HEAVY_READS_LIVE scans of live Principals and HEAVY_READS_SANDBOX of sandbox ones per instance
// (429 rate_limited with Retry-After past either), read in chunks of CHUNK_ROWS rows with a turn
// of the event loop between them.
import type { Environment } from '../domain/environment.js';
import { ApiError } from '../errors/registry.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import type { Sql } from '../storage/db.js';
import type { AuthorizationRow } from '../storage/rows/authorizations.js';
import type { DiffSummary } from './decision-diff.js';

/** Rows read per query (and replayed before the event loop gets a turn). */
const CHUNK_ROWS = 250;
/** Scans in flight per instance for live Principals, and for sandbox ones (never more than live). */
export const HEAVY_READS_LIVE = 2;
export const HEAVY_READS_SANDBOX = 1;

/**
 * The bound on scans in flight: one per Principal, HEAVY_READS_LIVE / HEAVY_READS_SANDBOX per
 * instance. `run` refuses at once (429 rate_limited, Retry-After: 1) rather than queue: a queued
 * scan would hold its caller's connection and memory while others' work waits behind it.
 */
export class HeavyReads {
  readonly #principals = new Set<string>();
  readonly #inFlight: Record<Environment, number> = { live: 0, sandbox: 0 };
  readonly #limits: Record<Environment, number>;

  constructor(limits: Record<Environment, number> = { live: HEAVY_READS_LIVE, sandbox: HEAVY_READS_SANDBOX }) {
    this.#limits = limits;
  }

  async run<T>(env: Environment, principalId: string, work: () => Promise<T>): Promise<T> {
    const key = `${env}:${principalId}`;
    if (this.#principals.has(key)) {
      throw new ApiError(
        'rate_limited',
        'A backtest or shadow report of this Principal is still running; retry after it.',
        {
          headers: { 'retry-after': '1' },
        },
      );
    }
    if (this.#inFlight[env] >= this.#limits[env]) {
      throw new ApiError('rate_limited', 'Too many backtests and shadow reports are running; retry shortly.', {
        headers: { 'retry-after': '1' },
      });
    }
    this.#principals.add(key);
    this.#inFlight[env]++;
    try {
      return await work();
    } finally {
      this.#principals.delete(key);
      this.#inFlight[env]--;
    }
  }
}

/** The instance's bound (one service per process). */
export const heavyReads = new HeavyReads();
/** Wall time a call reads and replays for before it stops and hands back a cursor. */
export const RANGE_TIME_BUDGET_MS = 2000;
export const RANGE_DEFAULT_ROWS = 5000;
export const RANGE_MAX_ROWS = 20_000;

/** An audit row as readRange reads it. */
export type RangeRow = Readonly<Pick<AuthorizationRow, 'id' | 'agent_id' | 'decision' | 'gates_fired' | 'amount'>> & {
  /** explanation->'replay' (null when absent). */
  readonly replay: unknown;
  /** The shadow decision (migration 0241), when asked for. */
  readonly shadow: unknown;
  /** created_at with microseconds (the cursor's form). */
  readonly ts: string;
};

export interface RangeScan {
  readonly rows: number;
  /** Where the next call goes on (null: the range is done). */
  readonly next_cursor: string | null;
  /** complete, row_limit (the call's limit was reached) or time_budget. */
  readonly stopped: 'complete' | 'row_limit' | 'time_budget';
}

/** A backtest's or shadow report's answer: the decisions' diff over the range and the scan's bounds. */
export type RangeReport = DiffSummary & RangeScan;

/** A report's fields as the routes answer them: the summary, then rows_read, stopped, next_cursor. */
export function summaryOf(r: RangeReport): Record<string, unknown> {
  const { rows, stopped, next_cursor, ...summary } = r;
  return { ...summary, rows_read: rows, stopped, next_cursor };
}

/** The rows a report reads: a Principal's audit rows of [from, to), from the cursor on. */
export interface RangeBounds {
  readonly principalId: string;
  readonly from: Date;
  readonly to: Date;
  readonly cursor: string | undefined;
  readonly limit: number;
  /** Wall time before the call stops (default RANGE_TIME_BUDGET_MS); checked between chunks. */
  readonly budgetMs?: number;
  /** Rows per query (default CHUNK_ROWS). */
  readonly chunkRows?: number;
}

export interface RangeQuery extends RangeBounds {
  /** Only rows with a shadow decision, and read it. */
  readonly shadowOnly: boolean;
}

/** Calls `each` for every row of the range in (created_at, id) order, within the bounds. */
export async function readRange(sql: Sql, q: RangeQuery, each: (row: RangeRow) => void): Promise<RangeScan> {
  const started = Date.now();
  let after = q.cursor === undefined ? null : decodeCursor(q.cursor, 'auth_');
  let rows = 0;
  for (;;) {
    const want = Math.min(q.chunkRows ?? CHUNK_ROWS, q.limit - rows);
    const chunk = await sql<RangeRow[]>`
      select id, agent_id, decision, gates_fired, amount::text as amount, explanation->'replay' as replay,
        ${q.shadowOnly ? sql`shadow` : sql`null::jsonb as shadow`},
        to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ts
      from authorizations
      where principal_id = ${q.principalId} and created_at >= ${q.from} and created_at < ${q.to}
        ${q.shadowOnly ? sql`and shadow is not null` : sql``}
        ${after === null ? sql`` : sql`and (created_at, id) > (${after.ts}::timestamptz, ${after.id})`}
      order by created_at, id
      limit ${want + 1}`;
    const page = chunk.length > want ? chunk.slice(0, want) : chunk;
    for (const row of page) each(row);
    // A turn of the event loop between chunks: decisions waiting on this thread go first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    rows += page.length;
    const last = page[page.length - 1];
    if (chunk.length <= want || last === undefined) return { rows, next_cursor: null, stopped: 'complete' };
    after = { ts: last.ts, id: last.id };
    if (rows >= q.limit) return { rows, next_cursor: encodeCursor(last.ts, last.id), stopped: 'row_limit' };
    if (Date.now() - started >= (q.budgetMs ?? RANGE_TIME_BUDGET_MS)) {
      return { rows, next_cursor: encodeCursor(last.ts, last.id), stopped: 'time_budget' };
    }
  }
}
