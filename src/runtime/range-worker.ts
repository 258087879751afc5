// The range worker: a worker thread that runs the backtest and the shadow report (range-reports.ts)
// with connections of its own, so that reading and deciding again up to 20,000 audit rows never
// holds the thread that answers /authorize. One per process, started by range-runner.ts on first
// use. Each job names its database URL: a pool of one connection per URL, closed when idle.
import { parentPort } from 'node:worker_threads';
import postgres from 'postgres';
import type { Thresholds } from '../decision/model/thresholds.js';
import { ApiError, type ErrorCode, type ErrorDetail } from '../errors/registry.js';
import type { Sql } from '../storage/db.js';
import type { RangeBounds, RangeReport } from './audit-range.js';
import { backtestReport, shadowReport } from './range-reports.js';

/** A job as the runner posts it (dates as ISO text). */
export interface RangeJob {
  readonly id: number;
  readonly kind: 'backtest' | 'shadow';
  readonly url: string;
  readonly bounds: Omit<RangeBounds, 'from' | 'to'> & { readonly from: string; readonly to: string };
  readonly proposed?: Thresholds;
}

export type RangeAnswer =
  | { readonly id: number; readonly report: RangeReport }
  | {
      readonly id: number;
      readonly error: {
        readonly code: ErrorCode | null;
        readonly message: string;
        readonly details?: readonly ErrorDetail[];
      };
    };

const pools = new Map<string, Sql>();

function poolFor(url: string): Sql {
  let sql = pools.get(url);
  if (sql === undefined) {
    sql = postgres(url, { max: 1, idle_timeout: 30, connect_timeout: 5, onnotice: () => {} }) as unknown as Sql;
    pools.set(url, sql);
  }
  return sql;
}

async function run(job: RangeJob): Promise<RangeReport> {
  const sql = poolFor(job.url);
  const bounds: RangeBounds = { ...job.bounds, from: new Date(job.bounds.from), to: new Date(job.bounds.to) };
  return job.kind === 'backtest' ? backtestReport(sql, bounds, job.proposed as Thresholds) : shadowReport(sql, bounds);
}

parentPort?.on('message', (job: RangeJob) => {
  run(job).then(
    (report) => parentPort?.postMessage({ id: job.id, report } satisfies RangeAnswer),
    (err: unknown) =>
      parentPort?.postMessage({
        id: job.id,
        error: {
          code: err instanceof ApiError ? err.code : null,
          message: err instanceof Error ? err.message : String(err),
          details: err instanceof ApiError ? err.details : undefined,
        },
      } satisfies RangeAnswer),
  );
});
