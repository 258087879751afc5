// Evidence across a Principal: merchant -> declines pointing to compromise by any of its agents
// decided on this thread (bounded; cleared when full). Risk scoring flags such a merchant for
// every agent of the Principal; the per-agent counts are in the state (evidence.ts).

const principalEvidence = new Map<string, number>();
const PRINCIPAL_EVIDENCE_SIZE = 50_000;
/** Declines pointing to compromise, by any agent of the Principal, that flag a merchant. */
export const PRINCIPAL_FLAG_COUNT = 2;

export function recordMerchantEvidence(principalId: string, merchant: string): void {
  if (merchant === '') return;
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
