// The one way a background job runs in rounds on a timer (the sweeps, the heartbeats, the
// polls): the timer does not keep the process alive; a round asked for while one runs is joined
// (or, for a job that says so, run once more after it), never run twice at once; a round that
// fails is logged as a warning and the next interval tries again; close() stops the timer and
// waits for the round that is running, and no round starts after it. The per-database form
// runs its round on each open database in turn.
import type { Logger } from 'pino';
import type { Environment } from '../domain/environment.js';
import type { Databases, Sql } from './db.js';

export interface PeriodicJobOptions {
  /** Milliseconds between two rounds started by the timer. */
  readonly intervalMs: number;
  /** One round. When it throws, `failed` is logged (warn, with the error) and nothing else happens. */
  readonly round: () => Promise<void>;
  readonly log: Logger;
  /** The warning of a failed round, e.g. 'hold expiry sweep failed; retried at the next interval'. */
  readonly failed: string;
  /**
   * A round asked for while one runs: 'join' (the default) waits for the running one; 'again'
   * runs one more after it (once, however many asked), for a job whose round must see what
   * changed while the running one was under way. Either way the caller waits for the last.
   */
  readonly overlap?: 'join' | 'again';
}

export interface DatabaseJobOptions extends Omit<PeriodicJobOptions, 'round'> {
  readonly dbs: Pick<Databases, 'forEnv' | 'isOpen'>;
  /** One round on one database; a failure is logged with its environment and the next database still runs. */
  readonly round: (sql: Sql, env: Environment) => Promise<void>;
}

const ENVIRONMENTS: readonly Environment[] = ['live', 'sandbox'];

export class PeriodicJob {
  readonly #options: PeriodicJobOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #closed = false;

  constructor(options: PeriodicJobOptions) {
    this.#options = options;
  }

  /**
   * A job whose round runs on every open database in turn (live, then sandbox); the embedded
   * sandbox before its first use holds nothing for it and is not opened for it.
   */
  static perDatabase(options: DatabaseJobOptions): PeriodicJob {
    const { dbs, round, log, failed } = options;
    return new PeriodicJob({
      ...options,
      round: async () => {
        for (const env of ENVIRONMENTS) {
          if (!dbs.isOpen(env)) continue;
          try {
            await round(dbs.forEnv(env), env);
          } catch (err) {
            log.warn({ err, env }, failed);
          }
        }
      },
    });
  }

  /** Starts the timer: the first round it starts is one interval away. */
  start(): void {
    if (this.#timer !== null || this.#closed) return;
    this.#timer = setInterval(() => void this.run(), this.#options.intervalMs);
    this.#timer.unref();
  }

  /** A round now (see `overlap`); resolves once it has ended, never rejects. After close: nothing. */
  run(): Promise<void> {
    if (this.#running !== null) {
      if (this.#options.overlap === 'again') this.#again = true;
      return this.#running;
    }
    if (this.#closed) return Promise.resolve();
    this.#running = this.#rounds().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #rounds(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#options.round();
      } catch (err) {
        this.#options.log.warn({ err }, this.#options.failed);
      }
    } while (this.#again && !this.#closed);
  }

  /** Stops the timer and waits for the round that is running; no round starts after. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }
}
