// A short circuit breaker in front of one database: after a connection-level failure (or
// `slowLimit` deadlines missed in a row) it stays open for `openMs`, and every decision in that
// window is answered with the safe decision at once instead of each waiting for a connect
// attempt. After the window the next attempts go through; the first success closes it.
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
import { isDatabaseUnavailable } from '../storage/unavailable.js';
import { isDeadline } from './deadline.js';

export class Breaker {
  readonly #openMs: number;
  readonly #slowLimit: number;
  readonly #troubleMemoryMs: number;
  #openUntil = 0;
  #failures = 0;
  #slow = 0;
  #lastTroubleAt = Number.NEGATIVE_INFINITY;
  #lastSuccessAt = Number.NEGATIVE_INFINITY;
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
    const troubled = nowMs - this.#lastTroubleAt < this.#troubleMemoryMs && this.#lastSuccessAt <= this.#lastTroubleAt;
    return troubled ? strictMs : relaxedMs;
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
}

/**
 * What counts against the breaker: the database unreachable or refusing work
 * (isDatabaseUnavailable, the one classifier), and an error with no code at all (a failure of
 * the driver itself rather than an answer of the database); never a missed deadline (the
 * breaker counts those as slow, src/shard/deadline.ts) nor a statement error.
 */
export function isUnavailable(err: unknown): boolean {
  if (isDeadline(err)) return false;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return true;
  return isDatabaseUnavailable(err);
}
