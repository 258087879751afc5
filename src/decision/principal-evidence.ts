// Evidence across a Principal: merchant -> declines pointing to compromise by any of its agents
// (bounded; cleared when full). Risk scoring flags such a merchant for every agent of the
// Principal; the per-agent counts are in the state (evidence.ts).
//
// Each thread counts the declines it decides, and seeds the counts from the audit log when it
// loads an agent of a Principal it has not read for EVIDENCE_REFRESH_MS (load.ts): declines
// decided on other threads, on other instances and before a restart count too, from the next
// load on. Seeding keeps the larger of the two counts, so a decline is never counted twice.

const principalEvidence = new Map<string, number>();
const PRINCIPAL_EVIDENCE_SIZE = 50_000;
/** Declines pointing to compromise, by any agent of the Principal, that flag a merchant. */
export const PRINCIPAL_FLAG_COUNT = 2;
/** How often a thread reads a Principal's declines again, at most (milliseconds). */
export const EVIDENCE_REFRESH_MS = 60_000;
/** How far back the declines are read (milliseconds), and how many at most. */
export const EVIDENCE_WINDOW_MS = 30 * 86_400_000;
export const EVIDENCE_ROWS = 500;
const readAt = new Map<string, number>();
/** While a dry run evaluates (explain.ts): its declines are not counted. */
let suspended = false;

/** Runs `fn` (synchronous) with recordMerchantEvidence counting nothing. */
export function withoutEvidence<T>(fn: () => T): T {
  suspended = true;
  try {
    return fn();
  } finally {
    suspended = false;
  }
}

export function recordMerchantEvidence(principalId: string, merchant: string): void {
  if (merchant === '' || suspended) return;
  const key = `${principalId}\u0000${merchant}`;
  if (principalEvidence.size >= PRINCIPAL_EVIDENCE_SIZE) principalEvidence.clear();
  principalEvidence.set(key, (principalEvidence.get(key) ?? 0) + 1);
}

export function principalFlagged(principalId: string, merchant: string): boolean {
  return (
    principalEvidence.size > 0 &&
    (principalEvidence.get(`${principalId}\u0000${merchant}`) ?? 0) >= PRINCIPAL_FLAG_COUNT
  );
}

/** True when this thread should read the Principal's declines again (and notes that it will). */
export function evidenceDue(principalId: string, nowMs: number): boolean {
  const at = readAt.get(principalId);
  if (at !== undefined && nowMs - at < EVIDENCE_REFRESH_MS) return false;
  if (readAt.size >= PRINCIPAL_EVIDENCE_SIZE) readAt.clear();
  readAt.set(principalId, nowMs);
  return true;
}

/** Seeds the counts read from the audit log (merchant key -> declines pointing to compromise). */
export function seedMerchantEvidence(principalId: string, counts: ReadonlyMap<string, number>): void {
  for (const [merchant, n] of counts) {
    if (merchant === '') continue;
    const key = `${principalId}\u0000${merchant}`;
    if ((principalEvidence.get(key) ?? 0) >= n) continue;
    if (principalEvidence.size >= PRINCIPAL_EVIDENCE_SIZE) principalEvidence.clear();
    principalEvidence.set(key, n);
  }
}

/**
 * Forgets every count and read time: a thread that starts over from an empty audit log (the
 * quality harness's replays: each one a fresh service, with nothing learned from the last).
 */
export function clearMerchantEvidence(): void {
  principalEvidence.clear();
  readAt.clear();
}
