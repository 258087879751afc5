// Decision receipts: the `receipt` of a POST /api/v1/authorize answer is a compact JWS (alg
// EdDSA, typ asas-receipt+jwt) signed by a key published at /.well-known/jwks.json. A merchant
// or PSP verifies it offline with jose, against the published keys or a saved copy of them.
import {
  type CryptoKey,
  compactVerify,
  createLocalJWKSet,
  createRemoteJWKSet,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from 'jose';

/** The protected header's `typ` of a receipt (access tokens are `JWT`). */
export const RECEIPT_TYP = 'asas-receipt+jwt';

/** What a receipt signs. */
export interface ReceiptClaims {
  readonly authorization_id: string;
  readonly agent_id: string;
  readonly mandate_id: string | null;
  /** Decimal text with exactly the currency's ISO 4217 minor units ("42.50" USD, "1000" JPY): compare as text. */
  readonly amount: string;
  readonly currency: string;
  /** The request's merchant_id, else its merchant_name; null when it gave neither. */
  readonly merchant: string | null;
  readonly decision: 'APPROVE' | 'DECLINE' | 'STEP_UP';
  /** The decision's time, in seconds since the epoch. */
  readonly iat: number;
}

export interface VerifiedReceipt {
  readonly claims: ReceiptClaims;
  /** The signing key's id (`rk_…`). */
  readonly kid: string;
}

/** The receipt does not verify: altered, signed by a key not published, or not a receipt. */
export class ReceiptVerificationError extends Error {
  override readonly name = 'ReceiptVerificationError';
}

type KeySource = (header: JWSHeaderParameters) => Promise<CryptoKey>;

/**
 * Verifies receipts against the service's published keys: `baseUrl`'s /.well-known/jwks.json
 * (fetched once and again on an unknown `kid`, as after a key rotation), or `jwks`, a saved
 * copy of it, for verifying offline.
 */
export function createReceiptVerifier(
  source: { baseUrl: string } | { jwks: JSONWebKeySet },
): (receipt: string) => Promise<VerifiedReceipt> {
  const keys: KeySource =
    'baseUrl' in source
      ? createRemoteJWKSet(new URL('/.well-known/jwks.json', source.baseUrl))
      : createLocalJWKSet(source.jwks);
  return (receipt) => verifyReceipt(receipt, keys);
}

async function verifyReceipt(receipt: string, keys: KeySource): Promise<VerifiedReceipt> {
  let verified: Awaited<ReturnType<typeof compactVerify>>;
  try {
    verified = await compactVerify(receipt, keys, { algorithms: ['EdDSA'] });
  } catch (err) {
    throw new ReceiptVerificationError(`the receipt does not verify: ${(err as Error).message}`, { cause: err });
  }
  const { payload, protectedHeader } = verified;
  if (protectedHeader.typ !== RECEIPT_TYP) {
    throw new ReceiptVerificationError(`not a decision receipt (typ ${String(protectedHeader.typ)})`);
  }
  const claims = JSON.parse(new TextDecoder().decode(payload)) as unknown;
  if (!isClaims(claims)) throw new ReceiptVerificationError('the receipt does not carry the claims of a decision');
  return { claims, kid: protectedHeader.kid ?? '' };
}

function isClaims(c: unknown): c is ReceiptClaims {
  if (c === null || typeof c !== 'object') return false;
  const r = c as Record<string, unknown>;
  const text = (v: unknown) => typeof v === 'string';
  const textOrNull = (v: unknown) => v === null || typeof v === 'string';
  return (
    text(r.authorization_id) &&
    text(r.agent_id) &&
    textOrNull(r.mandate_id) &&
    text(r.amount) &&
    text(r.currency) &&
    textOrNull(r.merchant) &&
    (r.decision === 'APPROVE' || r.decision === 'DECLINE' || r.decision === 'STEP_UP') &&
    typeof r.iat === 'number'
  );
}
