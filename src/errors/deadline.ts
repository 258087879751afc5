// The one error of a missed deadline, on either side of the thread boundary: the edge's answer
// deadline (src/http/deadline.ts) and each database step of a shard (src/shard/deadline.ts) raise
// it. The breaker counts it as slow, never as the database gone (src/shard/faults.ts).

/** `code` of the error this service raises when something misses its deadline. */
export const DEADLINE = 'DEADLINE';

/** Something missed its deadline (`<what> deadline passed`). */
export class DeadlineError extends Error {
  readonly code = DEADLINE;
  constructor(what: string) {
    super(`${what} deadline passed`);
  }
}

/** True for a missed deadline (DeadlineError or anything else carrying code DEADLINE). */
export function isDeadline(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === DEADLINE;
}
