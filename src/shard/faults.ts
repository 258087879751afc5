// What counts against a shard's breaker (src/storage/breaker.ts).

import { isDeadline } from '../errors/deadline.js';
import { isDatabaseUnavailable } from '../storage/unavailable.js';

/**
 * What counts against the breaker: the database unreachable or refusing work
 * (isDatabaseUnavailable, the one classifier), and an error with no code at all (a failure of
 * the driver itself rather than an answer of the database); never a missed deadline (the
 * breaker counts those as slow, src/errors/deadline.ts) nor a statement error.
 */
export function isUnavailable(err: unknown): boolean {
  if (isDeadline(err)) return false;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return true;
  return isDatabaseUnavailable(err);
}
