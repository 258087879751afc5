// What makes two POST /authorize requests "the same" for their idempotency_key: the transaction
// itself (agent, amount, currency, merchant, MCC, country, rail and crypto block, session,
// step_up_confirmed), as normalised at the edge (so "4.00" and 4 or "US" and "USA" are the
// same). intent_context is left out on purpose: it is the agent's account of why, which an
// agent re-words when it retries, and a retry of the same payment must replay, not fail.
// Computed on the shard thread, only for requests that carry a key.
import { createHash } from 'node:crypto';
import type { AuthorizeRequest } from '../decision/model/contract.js';

export function requestFingerprint(r: AuthorizeRequest): string {
  const crypto =
    r.crypto === null ? null : [r.crypto.chain ?? null, r.crypto.asset ?? null, r.crypto.counterparty ?? null];
  const text = JSON.stringify([
    r.agentId,
    r.amount,
    r.currency,
    r.merchantName,
    r.merchantId,
    r.mcc,
    r.country,
    r.rail,
    crypto,
    r.sessionId,
    r.stepUpConfirmed,
    // Only a hold adds its capture method, so fingerprints recorded before holds existed still match.
    ...(r.captureMethod === 'manual' ? ['manual'] : []),
  ]);
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}
