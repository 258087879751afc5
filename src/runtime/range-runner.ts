// Where the backtest and the shadow report run (range-reports.ts): on PostgreSQL, in the range
// worker (range-worker.ts), a worker thread with connections of its own, so that the scan and
// its replay never hold the thread that answers /authorize; on embedded PGlite, which runs the
// database inside this thread anyway, here. Either way bounded per Principal and per
// environment by HeavyReads (audit-range.ts).
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Thresholds } from '../decision/model/thresholds.js';
import type { Environment } from '../domain/environment.js';
import { ApiError } from '../errors/registry.js';
import type { Databases } from '../storage/db.js';
import { heavyReads, type RangeBounds, type RangeReport } from './audit-range.js';

import type { RangeAnswer, RangeJob } from './range-worker.js';

interface Pending {
  readonly resolve: (r: RangeReport) => void;
  readonly reject: (e: unknown) => void;
}

/** The process's range worker, started on first use and shared by every service in the process. */
class RangeWorker {
  #worker: Worker | null = null;
  readonly #pending = new Map<number, Pending>();
  #next = 1;

  run(job: Omit<RangeJob, 'id'>, log: Logger): Promise<RangeReport> {
    const worker = this.#start(log);
    const id = this.#next++;
    return new Promise<RangeReport>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ ...job, id } satisfies RangeJob);
    });
  }

  #start(log: Logger): Worker {
    if (this.#worker !== null) return this.#worker;
    const worker = new Worker(new URL('./range-worker.js', import.meta.url));
    worker.unref(); // idle, it keeps no process alive
    worker.on('message', (a: RangeAnswer) => {
      const p = this.#pending.get(a.id);
      if (p === undefined) return;
      this.#pending.delete(a.id);
      if (this.#pending.size === 0) worker.unref();
      if ('report' in a) p.resolve(a.report);
      else if (a.error.code !== null)
        p.reject(new ApiError(a.error.code, a.error.message, { details: a.error.details }));
      else p.reject(new Error(a.error.message));
    });
    // A worker that dies fails what it was running; the next call starts another.
    worker.on('error', (err) => log.error({ err }, 'range worker failed'));
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#worker = null;
      for (const p of this.#pending.values()) p.reject(new Error(`range worker exited (${code})`));
      this.#pending.clear();
    });
    this.#worker = worker;
    return worker;
  }
}

const rangeWorker = new RangeWorker();

/** A read fault is 503 service_unavailable; an answer about the request (a bad cursor) stays itself. */
function readFault(err: unknown): never {
  if (err instanceof ApiError) throw err;
  throw new ApiError('service_unavailable', undefined, { cause: err });
}

export class RangeRunner {
  readonly #dbs: Databases;
  readonly #log: Logger;
  readonly #onReport: (thread: 'worker' | 'main') => void;

  /** `onReport`: called for every report run (metrics), with where it ran. */
  constructor(dbs: Databases, log: Logger, onReport: (thread: 'worker' | 'main') => void = () => {}) {
    this.#dbs = dbs;
    this.#log = log;
    this.#onReport = onReport;
    // Embedded, the reports run here: their code is loaded now rather than by the first report.
    if (dbs.embedded) void inPlace();
  }

  #where(): 'worker' | 'main' {
    const thread = this.#dbs.embedded ? 'main' : 'worker';
    this.#onReport(thread);
    return thread;
  }

  /** The Principal's rows of the range decided again under `proposed` (429 past HeavyReads). */
  backtest(env: Environment, bounds: RangeBounds, proposed: Thresholds): Promise<RangeReport> {
    return heavyReads
      .run(env, bounds.principalId, () =>
        this.#where() === 'main'
          ? inPlace().then((r) => r.backtestReport(this.#dbs.forEnv(env), bounds, proposed))
          : rangeWorker.run({ kind: 'backtest', url: this.#dbs.urls[env], bounds: wire(bounds), proposed }, this.#log),
      )
      .catch(readFault);
  }

  /** The Principal's shadow decisions of the range against the real ones (429 past HeavyReads). */
  shadow(env: Environment, bounds: RangeBounds): Promise<RangeReport> {
    return heavyReads
      .run(env, bounds.principalId, () =>
        this.#where() === 'main'
          ? inPlace().then((r) => r.shadowReport(this.#dbs.forEnv(env), bounds))
          : rangeWorker.run({ kind: 'shadow', url: this.#dbs.urls[env], bounds: wire(bounds) }, this.#log),
      )
      .catch(readFault);
  }
}

/**
 * The reports' code, loaded into this thread only when a report runs here (embedded PGlite):
 * with PostgreSQL the main thread never loads the decision core they replay.
 */
function inPlace(): Promise<typeof import('./range-reports.js')> {
  return import('./range-reports.js');
}

function wire(b: RangeBounds): RangeJob['bounds'] {
  return { ...b, from: b.from.toISOString(), to: b.to.toISOString() };
}
