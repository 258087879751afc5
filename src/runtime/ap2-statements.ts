// Signed statements about portable mandates (docs/ap2.md "Receipts and statements"): the AP2-style
// receipt of every verdict on a presented Payment Mandate, and a Principal's remaining-budget
// statement for a mandate. Both are compact JWS signed with the service's receipt key (EdDSA,
// src/receipts/keys.ts), so a merchant or credential provider verifies them offline against
// GET /.well-known/jwks.json with any JOSE library, as it does decision receipts. Signed here on
// the main thread (not on the hot path: one presentation or one statement request each).
import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { currencyExponent } from '../domain/currency.js';
import type { Environment } from '../domain/environment.js';
import { formatAmount, SCALE, type Units } from '../domain/money.js';
import type { ReceiptKeys } from '../receipts/keys.js';

/** The `iss` of every statement: this service (the verifier of AP2's Mandate Receipt). */
export const STATEMENT_ISSUER = 'agent-spending-authorization';
/** `typ` of an AP2 payment receipt issued by this service. */
export const AP2_RECEIPT_TYP = 'ap2-payment-receipt+jwt';
/** `typ` of the public status of a Payment Mandate by its hash. */
export const AP2_STATUS_TYP = 'ap2-mandate-status+jwt';
/** `typ` of a remaining-budget statement. */
export const BUDGET_STATEMENT_TYP = 'asas-budget-statement+jwt';

/**
 * The `iss` of a statement made in `environment`: STATEMENT_ISSUER in live, STATEMENT_ISSUER
 * followed by `/sandbox` in the sandbox. Both environments sign with the one receipt key set
 * (published in one JWKS), so a sandbox statement verifies against the JWKS like a live one: the
 * `environment` claim and this issuer are what tell them apart, and a verifier that pins the live
 * issuer (jose's `issuer` option) refuses a sandbox statement offered as live.
 */
export function statementIssuer(environment: Environment): string {
  return environment === 'live' ? STATEMENT_ISSUER : `${STATEMENT_ISSUER}/${environment}`;
}

/**
 * Signs `claims` with `environment` (the environment whose data it states) as a compact JWS with
 * the current receipt key; iss (statementIssuer) and iat are added.
 */
export async function signStatement(
  keys: ReceiptKeys,
  typ: string,
  environment: Environment,
  claims: Record<string, unknown>,
  nowMs = Date.now(),
): Promise<string> {
  const material = keys.material();
  const key = createPrivateKey({ key: Buffer.from(material.pkcs8), format: 'der', type: 'pkcs8' });
  return new SignJWT({ ...claims, environment })
    .setProtectedHeader({ alg: 'EdDSA', kid: material.kid, typ })
    .setIssuer(statementIssuer(environment))
    .setIssuedAt(Math.floor(nowMs / 1000))
    .sign(key);
}

/**
 * An amount as a statement shows it: decimal text with exactly the currency's ISO 4217 minor
 * units ("199.50" USD, "200" JPY, "1.500" BHD), as decision receipts show theirs.
 */
export function moneyText(units: Units, currency: string): string {
  return formatAmount(units, currencyExponent(currency) ?? 2);
}

/**
 * An amount as AP2 writes one (types/amount.json, the closed mandate's payment_amount): the
 * currency and an integer of its minor units (27999 = 279.99 USD).
 */
export function ap2Amount(units: Units, currency: string): { currency: string; amount: number } {
  const places = currencyExponent(currency) ?? 2;
  return { currency, amount: Number(units / 10n ** BigInt(SCALE - places)) };
}

/** AP2's error vocabulary (agent_authorization.md "Errors") for a service error code or a DECLINE. */
export function ap2ErrorOf(code: string): 'invalid_credential' | 'unresolved_constraint' | 'invalid_mandate' {
  if (code === 'unresolved_constraint') return 'unresolved_constraint';
  if (code === 'decline' || code === 'ap2_mandate_already_consumed' || code === 'mandate_not_active') {
    return 'invalid_mandate';
  }
  return 'invalid_credential';
}
