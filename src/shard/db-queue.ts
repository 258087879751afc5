// Embedded PGlite serves one statement at a time and must not see pipelined queries on a
// connection, so in embedded mode every use of a worker's connection goes through this queue.
// On real PostgreSQL the queue is a pass-through.

export class DbQueue {
  readonly #serial: boolean;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(serial: boolean) {
    this.#serial = serial;
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.#serial) return fn();
    const next = this.#tail.then(fn, fn);
    this.#tail = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }
}
