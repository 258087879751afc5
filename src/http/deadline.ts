// Answer deadlines at the edge: every request is answered by a bounded time whatever it waits
// on (a database that does not answer, a worker that is stuck). POST /authorize then answers
// its safe decision (AUTHORIZE_DEADLINE_MS), every other route 503 with Retry-After
// (REQUEST_DEADLINE_MS). The handler keeps running; whatever it answers later is dropped.
//
// Why not a setTimeout per request: at tens of thousands of requests per second, arming and
// clearing a timer per request costs measurably on the one edge thread. Requests with the same
// deadline are due in the order they arrive, so each deadline value keeps a FIFO queue; ONE
// coarse timer (every TICK_MS, armed only while something is queued) pops the due heads.
// Tracking a request is an array push; each request is looked at once more when it reaches
// the head. Answers go out between the deadline minus one tick and the deadline.
import { performance } from 'node:perf_hooks';

/** What the sweeper needs of a tracked request (the edge's own per-request record). */
export interface Deadlined {
  /** Set once the request was answered (or the client went away). */
  done: boolean;
  /** performance.now() at which the request is expired; set by track(). */
  dueAt: number;
}

/** Granularity of the deadlines, in milliseconds. */
export const TICK_MS = 10;

/** One deadline value: due times increase in push order. */
class DeadlineQueue<T extends Deadlined> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get empty(): boolean {
    return this.#head === this.#items.length;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** Expires every due item not yet answered and drops every answered one at the head. */
  sweep(now: number, expire: (item: T) => void): void {
    const items = this.#items;
    let i = this.#head;
    while (i < items.length) {
      const item = items[i] as T;
      if (!item.done) {
        if (item.dueAt > now) break;
        expire(item);
      }
      items[i] = undefined;
      i++;
    }
    if (i === items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (i >= 1024 && i * 2 >= items.length) {
      this.#items = items.slice(i);
      this.#head = 0;
    } else {
      this.#head = i;
    }
  }
}

export class DeadlineSweeper<T extends Deadlined> {
  readonly #expire: (item: T) => void;
  readonly #queues = new Map<number, DeadlineQueue<T>>();
  #timer: NodeJS.Timeout | null = null;
  readonly #tick = (): void => {
    this.#timer = null;
    const now = performance.now();
    let pending = false;
    for (const q of this.#queues.values()) {
      q.sweep(now, this.#expire);
      if (!q.empty) pending = true;
    }
    if (pending) this.#arm();
  };

  /** @param expire answers a request whose deadline passed (called at most once per request) */
  constructor(expire: (item: T) => void) {
    this.#expire = expire;
  }

  /** Tracks a request received at `now` (performance.now()) that must be answered within `deadlineMs`. */
  track(item: T, deadlineMs: number, now: number): void {
    item.dueAt = now + deadlineMs - TICK_MS;
    let q = this.#queues.get(deadlineMs);
    if (q === undefined) {
      q = new DeadlineQueue<T>();
      this.#queues.set(deadlineMs, q);
    }
    q.push(item);
    if (this.#timer === null) this.#arm();
  }

  #arm(): void {
    this.#timer = setTimeout(this.#tick, TICK_MS);
    // Pending requests keep the server alive, not this timer.
    this.#timer.unref();
  }
}
