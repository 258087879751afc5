// Main-thread view of whether one database answers, so work on the request path does not pile
// up behind a database that is away. After a query failed for want of the database
// (isDatabaseUnavailable: refused, reset, connect timeout...), further calls fail at once,
// except ONE at a time that goes through to find out whether it is back (half-open); its
// success lets everything through again.
//
// Why: postgres.js queues a query until a connection can take it, and nothing takes a queued
// query back when its request has long been answered (the edge's answer deadline). Without
// this, every request of an outage left a lookup in the queue, and once the database returned
// it first worked through that backlog of dead requests while live ones waited.
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

export class Availability {
  #down = false;
  #probing = false;

  /** False while the database is known to be away. */
  get up(): boolean {
    return !this.#down;
  }

  /** Runs `fn` (a database call) unless the database is known to be away and a probe is out. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.#down) {
      try {
        return await fn();
      } catch (err) {
        if (isDatabaseUnavailable(err)) this.#down = true;
        throw err;
      }
    }
    if (this.#probing) throw new DatabaseUnavailableError();
    this.#probing = true;
    try {
      const result = await fn();
      this.#down = false;
      return result;
    } catch (err) {
      if (!isDatabaseUnavailable(err)) this.#down = false;
      throw err;
    } finally {
      this.#probing = false;
    }
  }
}
