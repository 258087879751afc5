// Decision receipts: a compact JWS (RFC 7515, alg EdDSA over Ed25519) that a merchant or PSP
// verifies offline against /.well-known/jwks.json with any JOSE library (docs/guide.md "Decision
// receipts", examples/verify-receipt.mjs).
//
// Signed on the shard thread as the decision goes to be recorded (src/shard/receipt.ts), so the
// receipt is part of the stored response and an idempotent replay returns it byte for byte, and
// the edge thread (the busiest) does no signing. Built by hand with node:crypto: one synchronous
// Ed25519 signature (measured 38 µs on a loaded VM) and two base64url encodings, no promise;
// jose's CompactSign is async and took 71 µs there. test/receipts/ verifies the result with jose.
import { createPrivateKey, type KeyObject, sign } from 'node:crypto';

/** The protected header's `typ`: a receipt is not an access token (those are `JWT`). */
export const RECEIPT_TYP = 'asas-receipt+jwt';

/** A receipt key as it crosses to a shard thread: its kid and PKCS#8 DER private half. */
export interface ReceiptKeyMaterial {
  readonly kid: string;
  readonly pkcs8: Uint8Array;
}

/**
 * The payload, in this order. `amount` is decimal text with exactly the currency's ISO 4217
 * minor units ("10.00" USD, "1000" JPY, "1.500" BHD), so verifiers compare text, never floats.
 */
export interface ReceiptClaims {
  readonly authorization_id: string;
  readonly agent_id: string;
  readonly mandate_id: string | null;
  readonly amount: string;
  readonly currency: string;
  /** The request's merchant_id, else its merchant_name; null when it gave neither. */
  readonly merchant: string | null;
  readonly decision: string;
  /** Seconds since the epoch: the decision's time (the response's `timestamp`). */
  readonly iat: number;
}

interface Signer {
  readonly kid: string;
  readonly key: KeyObject;
  /** base64url of the protected header, followed by the dot. */
  readonly prefix: string;
}

let current: Signer | null = null;

/** Sets (or, with null, clears) the key this thread signs receipts with. */
export function useReceiptKey(material: ReceiptKeyMaterial | null): void {
  if (material === null) {
    current = null;
    return;
  }
  if (current?.kid === material.kid) return;
  const header = JSON.stringify({ alg: 'EdDSA', kid: material.kid, typ: RECEIPT_TYP });
  current = {
    kid: material.kid,
    key: createPrivateKey({ key: Buffer.from(material.pkcs8), format: 'der', type: 'pkcs8' }),
    prefix: `${Buffer.from(header, 'utf8').toString('base64url')}.`,
  };
}

/** The kid this thread signs with, or null when it has no receipt key. */
export function receiptKid(): string | null {
  return current === null ? null : current.kid;
}

/** The compact JWS of `claims`, or null when this thread has no receipt key. */
export function signReceipt(claims: ReceiptClaims): string | null {
  const s = current;
  if (s === null) return null;
  const input = s.prefix + Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return `${input}.${sign(null, Buffer.from(input, 'latin1'), s.key).toString('base64url')}`;
}
