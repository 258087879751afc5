// One circuit breaker in front of one database, for both threads: the shard workers' (their
// decisions and commits, with the deadlines it picks) and the edge's (its credential lookups,
// through run()). Both count failures by the one classifier (./unavailable.ts).
//
// After a connection-level failure (or `slowLimit` deadlines missed in a row) it stays open for
// `openMs`, and every decision in that window is answered with the safe decision at once instead
// of each waiting for a connect attempt. After the window the next attempts go through; the first
// success closes it. Through run() (openMs 0 at the edge), calls fail at once after a failure
// but one at a time that finds out whether the database is back: postgres.js queues a query
// until a connection takes it and nothing takes a queued query back when its request has long
// been answered, so without this every request of an outage left a lookup queued, and a
// returning database first worked through that backlog of dead requests while live ones waited.
//
// It also picks the deadlines. While the database has behaved for `troubleMemoryMs`, the
// relaxed deadlines apply (a busy machine is not an outage, and answering a healthy but slow
// moment with safe DECLINEs would be wrong); once a failure or a missed deadline was seen, the
// strict ones apply until the database answers again (a commit, a state load or a probe that
// succeeds after the trouble), so a hung database costs at most one relaxed wave and then every
// decision is bounded strictly, while a database that answers, however slowly, keeps the
// relaxed deadlines its round trips need (a missed deadline costs the decisions until its next
// answer, not the next `troubleMemoryMs`). Without an answer, the strict ones apply for
// `troubleMemoryMs` after the last trouble.
import { isDatabaseUnavailable } from './unavailable.js';

/** The error a guarded call fails with while the database is known to be away. */
export class DatabaseUnavailableError extends Error {
  /** A postgres.js connection error code: isDatabaseUnavailable() and the envelope know it. */
  readonly code = 'CONNECTION_CLOSED';
  constructor() {
    super('the database is unavailable');
    this.name = 'DatabaseUnavailableError';
  }
}

export class Breaker {
  readonly #openMs: number;
  readonly #slowLimit: number;
  readonly #troubleMemoryMs: number;
  #openUntil = 0;
  #failures = 0;
  #slow = 0;
  #lastTroubleAt = Number.NEGATIVE_INFINITY;
  #lastSuccessAt = Number.NEGATIVE_INFINITY;
  /** A call of run() is out to find out whether the database is back. */
  #probing = false;
  /** Called on every failure (the shard starts probing the database, see src/shard/shard.ts). */
  onFailure: (() => void) | null = null;

  /**
   * @param openMs how long the breaker stays open after a failure, in milliseconds
   * @param slowLimit missed deadlines in a row that open it (a slow moment is not an outage)
   * @param troubleMemoryMs how long after a failure the strict deadlines apply, in milliseconds
   */
  constructor(openMs: number, slowLimit = 3, troubleMemoryMs = 30_000) {
    this.#openMs = openMs;
    this.#slowLimit = slowLimit;
    this.#troubleMemoryMs = troubleMemoryMs;
  }

  /**
   * `strictMs` when the database failed or missed a deadline recently and has not answered
   * since, else `relaxedMs`.
   */
  deadline(strictMs: number, relaxedMs: number, nowMs: number): number {
    return this.troubled(nowMs) ? strictMs : relaxedMs;
  }

  /** The database failed or missed a deadline recently and has not answered since. */
  troubled(nowMs: number): boolean {
    return nowMs - this.#lastTroubleAt < this.#troubleMemoryMs && this.#lastSuccessAt <= this.#lastTroubleAt;
  }

  /** False while open: callers answer the safe decision without touching the database. */
  allows(nowMs: number): boolean {
    return nowMs >= this.#openUntil;
  }

  get open(): boolean {
    return Date.now() < this.#openUntil;
  }

  /** Consecutive failures since the last success. */
  get failures(): number {
    return this.#failures;
  }

  /** The database answered (a commit, a state load, a probe). */
  success(nowMs = Date.now()): void {
    this.#lastSuccessAt = nowMs;
    this.#failures = 0;
    this.#slow = 0;
    this.#openUntil = 0;
  }

  /** The database is unreachable or refusing work: open now. */
  failure(nowMs: number): void {
    this.#failures++;
    this.#lastTroubleAt = nowMs;
    this.#openUntil = nowMs + this.#openMs;
    this.onFailure?.();
  }

  /** A deadline was missed: open after `slowLimit` in a row. */
  slow(nowMs: number): void {
    this.#lastTroubleAt = nowMs;
    if (++this.#slow >= this.#slowLimit) {
      this.#slow = 0;
      this.failure(nowMs);
    }
  }

  /**
   * Runs `fn` (a database call) through the breaker, for callers that hold no deadline of their
   * own (the edge's credential lookups): while it is open, or once it has failed and until a call
   * succeeds, the call fails at once with DatabaseUnavailableError, except ONE at a time that goes
   * through to find out whether the database is back (half-open); its success closes it. A
   * failure counts when the one classifier (isDatabaseUnavailable) says the database is away.
   */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const troubled = this.#failures > 0;
    if (troubled && (now < this.#openUntil || this.#probing)) throw new DatabaseUnavailableError();
    if (troubled) this.#probing = true;
    try {
      const result = await fn();
      this.success();
      return result;
    } catch (err) {
      if (isDatabaseUnavailable(err)) this.failure(Date.now());
      else if (troubled) this.success();
      throw err;
    } finally {
      if (troubled) this.#probing = false;
    }
  }
}
