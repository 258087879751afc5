// Signed statements about portable mandates (docs/ap2.md "Receipts and statements"): the AP2-style
// receipt of every verdict on a presented Payment Mandate, and a Principal's remaining-budget
// statement for a mandate. Both are compact JWS signed with the service's receipt key (EdDSA,
// src/receipts/keys.ts), so a merchant or credential provider verifies them offline against
// GET /.well-known/jwks.json with any JOSE library, as it does decision receipts. Signed here on
// the main thread (not on the hot path: one presentation or one statement request each).
import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ReceiptKeys } from '../receipts/keys.js';

/** The `iss` of every statement: this service (the verifier of AP2's Mandate Receipt). */
export const STATEMENT_ISSUER = 'agent-spending-authorization';
/** `typ` of an AP2 payment receipt issued by this service. */
export const AP2_RECEIPT_TYP = 'ap2-payment-receipt+jwt';
/** `typ` of the public status of a Payment Mandate by its hash. */
export const AP2_STATUS_TYP = 'ap2-mandate-status+jwt';
/** `typ` of a remaining-budget statement. */
export const BUDGET_STATEMENT_TYP = 'asas-budget-statement+jwt';

/** Signs `claims` (iss and iat added) as a compact JWS with the current receipt key. */
export async function signStatement(
  keys: ReceiptKeys,
  typ: string,
  claims: Record<string, unknown>,
  nowMs = Date.now(),
): Promise<string> {
  const material = keys.material();
  const key = createPrivateKey({ key: Buffer.from(material.pkcs8), format: 'der', type: 'pkcs8' });
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'EdDSA', kid: material.kid, typ })
    .setIssuer(STATEMENT_ISSUER)
    .setIssuedAt(Math.floor(nowMs / 1000))
    .sign(key);
}

/** AP2's error vocabulary (agent_authorization.md "Errors") for a service error code or a DECLINE. */
export function ap2ErrorOf(code: string): 'invalid_credential' | 'unresolved_constraint' | 'invalid_mandate' {
  if (code === 'unresolved_constraint') return 'unresolved_constraint';
  if (code === 'decline' || code === 'ap2_mandate_already_consumed' || code === 'mandate_not_active') {
    return 'invalid_mandate';
  }
  return 'invalid_credential';
}
