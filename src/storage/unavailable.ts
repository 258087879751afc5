// A leaf module (no imports): the breaker (at the edge and in the shard workers) classifies with it.
/**
 * The one classifier of database availability (the one breaker, src/storage/breaker.ts, at the
 * edge and in the shard workers, and the error envelope): true for a failure to reach the
 * database or a database refusing work, as opposed to an error in a query. postgres.js
 * connection errors (CONNECT_TIMEOUT, CONNECTION_CLOSED, CONNECTION_ENDED, CONNECTION_DESTROYED),
 * socket errors (ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE, EHOSTUNREACH...) and SQLSTATE classes 08 (connection), 53
 * (insufficient resources), 57 (operator intervention: shutdown, terminated backends, a
 * cancelled statement) and 3D000 (the database does not exist).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  if (code.startsWith('CONNECT')) return true;
  if (/^E[A-Z]+$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('53') || code.startsWith('57') || code === '3D000';
}

/**
 * A transaction that lost a race with another and was rolled back: SQLSTATE 40001
 * (serialization_failure), 40P01 (deadlock_detected), 55P03 (lock_not_available). Not the
 * database away (the breaker does not count it) and not the request's fault: the error envelope
 * answers it 503 with Retry-After, as the same request sent again succeeds.
 */
export function isTransientConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01' || code === '55P03';
}
