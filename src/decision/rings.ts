// The bounded rings an agent's state keeps: timestamps in a sliding window, the last approved
// amounts, and the log amounts of a per-currency baseline.
import type { Units } from '../domain/money.js';

/** Approved amounts kept for the agent's baseline (mean approved amount). */
export const AMOUNT_HISTORY_SIZE = 50;
/** Approved amounts (as logs) kept by an AmountBaseline. */
export const BASELINE_SIZE = 32;

/**
 * Timestamps (ms) of events inside a sliding window, oldest first, in a growable ring.
 * Only the newest `keep` entries matter (a gate only asks "more than N?"), so older ones are
 * dropped instead of growing the buffer without bound.
 */
export class TimeWindow {
  private buf: Float64Array;
  private head = 0;
  private len = 0;

  constructor(capacity = 8) {
    this.buf = new Float64Array(capacity);
  }

  /** Drops entries older than `fromMs` and returns how many remain. */
  countSince(fromMs: number): number {
    const cap = this.buf.length;
    while (this.len > 0 && (this.buf[this.head] as number) < fromMs) {
      this.head = (this.head + 1) % cap;
      this.len--;
    }
    return this.len;
  }

  push(ms: number, keep: number): void {
    let cap = this.buf.length;
    if (this.len === cap) {
      if (cap < keep) {
        const next = new Float64Array(Math.min(cap * 2, Math.max(keep, 8)));
        for (let i = 0; i < this.len; i++) next[i] = this.buf[(this.head + i) % cap] as number;
        this.buf = next;
        this.head = 0;
        cap = next.length;
      } else {
        this.head = (this.head + 1) % cap;
        this.len--;
      }
    }
    this.buf[(this.head + this.len) % cap] = ms;
    this.len++;
    while (this.len > keep) {
      this.head = (this.head + 1) % cap;
      this.len--;
    }
  }

  get size(): number {
    return this.len;
  }

  /** Slots allocated (the buffer grows up to the gate's count + 1 and never shrinks). */
  get capacity(): number {
    return this.buf.length;
  }
}

/** The last AMOUNT_HISTORY_SIZE approved amounts and their exact sum. */
export class AmountHistory {
  private readonly buf: Units[] = new Array<Units>(AMOUNT_HISTORY_SIZE).fill(0n);
  private head = 0;
  count = 0;
  sum: Units = 0n;

  push(amount: Units): void {
    if (this.count === AMOUNT_HISTORY_SIZE) {
      this.sum -= this.buf[this.head] as Units;
      this.buf[this.head] = amount;
      this.head = (this.head + 1) % AMOUNT_HISTORY_SIZE;
    } else {
      this.buf[(this.head + this.count) % AMOUNT_HISTORY_SIZE] = amount;
      this.count++;
    }
    this.sum += amount;
  }
}

/** The last BASELINE_SIZE approved amounts of one currency, as natural logs, in a ring. */
export class AmountBaseline {
  readonly logs = new Float64Array(BASELINE_SIZE);
  count = 0;
  head = 0;

  push(amount: number): void {
    this.logs[this.head] = Math.log(Math.max(amount, 1e-8));
    this.head = (this.head + 1) % BASELINE_SIZE;
    if (this.count < BASELINE_SIZE) this.count++;
  }
}
