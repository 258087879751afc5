// AP2 Payment Mandates as SD-JWT VCs (docs/ap2.md): verifying an open mandate against the issuer
// keys a Principal registered and the key its agent registered, mapping its constraints onto a
// mandate's terms (or naming the ones this service cannot enforce), and verifying a closed
// mandate presented in a chain after it (AP2's Delegate SD-JWT: tokens joined by `~~`, each hop
// signed by the previous hop's `cnf` key and bound to it by `sd_hash`).
//
// The SD-JWT mechanics (the issuer-signed JWT, the disclosures and their digests, the claims they
// disclose) are @sd-jwt/core's; this module picks the key, checks what AP2 adds (vct, cnf, exp,
// the delegate payload, the binding hash) and maps constraints. Hashes are base64url SHA-256 of
// the ASCII of a token written with its trailing `~` (how AP2 computes `sd_hash` and a receipt's
// `reference`).
import { createHash, createPublicKey, type KeyObject, verify as verifySignature } from 'node:crypto';
import { SDJwtInstance } from '@sd-jwt/core';
import { digest } from '@sd-jwt/crypto-nodejs';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { currencyExponent, isIsoCurrency } from '../domain/currency.js';
import { expandNumberText, formatAmount, readAmount, SCALE, type Units } from '../domain/money.js';
import { ApiError, type ErrorDetail } from '../errors/registry.js';
import type { Frequency, StoredTerms } from '../storage/rows/mandates.js';

export const OPEN_VCT = 'mandate.payment.open.1';
export const CLOSED_VCT = 'mandate.payment.1';

const FREQUENCIES: readonly Frequency[] = [
  'ON_DEMAND',
  'DAILY',
  'WEEKLY',
  'BIWEEKLY',
  'MONTHLY',
  'QUARTERLY',
  'ANNUALLY',
];

/** Signature algorithms accepted for issuers and agents (JOSE names), with node:crypto's digest. */
const ALGS: Readonly<Record<string, string | null>> = {
  ES256: 'sha256',
  ES384: 'sha384',
  EdDSA: null,
  RS256: 'sha256',
};

/** A token written as AP2 hashes it: with its trailing `~`. */
export function normalizeToken(token: string): string {
  const t = token.trim();
  return t.endsWith('~') ? t : `${t}~`;
}

/** base64url SHA-256 of the ASCII of a token (normalised): its `sd_hash`, and the AP2 reference. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(normalizeToken(token), 'ascii').digest('base64url');
}

/**
 * The identity of an open mandate: base64url SHA-256 of its issuer-signed JWT (the part before the
 * first `~`). Disclosures can be reordered or repeated without changing what the issuer signed, so
 * the whole token's hash does not identify the grant; this one does (unique per environment).
 */
export function issuerJwtHash(token: string): string {
  const jwt = token.trim().split('~')[0] ?? '';
  return createHash('sha256').update(jwt, 'ascii').digest('base64url');
}

function b64json(part: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

interface Parsed {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly disclosures: readonly string[];
}

/** The issuer-signed JWT's header and payload and the disclosures; 422 ap2_malformed_credential. */
function parse(token: string): Parsed {
  const parts = normalizeToken(token).split('~');
  const jwt = parts[0] ?? '';
  const segs = jwt.split('.');
  const header = segs.length === 3 ? b64json(segs[0] as string) : null;
  const payload = segs.length === 3 ? b64json(segs[1] as string) : null;
  if (header === null || payload === null) throw new ApiError('ap2_malformed_credential');
  return { header, payload, disclosures: parts.slice(1, -1) };
}

/**
 * Every disclosure must be one whose digest the JWT or another disclosure references (SD-JWT
 * RFC 9901 §7.1 step 3): a changed disclosure no longer matches its digest and is refused, not
 * silently left out.
 */
function checkDisclosures(p: Parsed): void {
  const referenced = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (k === '_sd' && Array.isArray(x)) for (const d of x) if (typeof d === 'string') referenced.add(d);
        if (k === '...' && typeof x === 'string') referenced.add(x);
        walk(x);
      }
    }
  };
  walk(p.payload);
  const alg = p.payload._sd_alg;
  if (alg !== undefined && alg !== 'sha-256')
    throw new ApiError('ap2_malformed_credential', '_sd_alg must be sha-256.');
  for (const d of p.disclosures) {
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(d, 'base64url').toString('utf8'));
    } catch {
      throw new ApiError('ap2_invalid_disclosure', 'A disclosure is not base64url JSON.');
    }
    if (!Array.isArray(decoded) || decoded.length < 2 || decoded.length > 3) {
      throw new ApiError('ap2_invalid_disclosure', 'A disclosure is not a [salt, (name,) value] array.');
    }
    walk(decoded);
  }
  for (const d of p.disclosures) {
    if (!referenced.has(createHash('sha256').update(d, 'ascii').digest('base64url'))) {
      throw new ApiError('ap2_invalid_disclosure');
    }
  }
}

/**
 * Where the mandate content still holds a digest no disclosure of the token reveals: an `_sd`
 * entry (a hidden claim) or an array element `{"...": digest}` (a hidden element), each named by
 * its path in the content (`constraints.1`, `_sd`). @sd-jwt/core drops them when it unpacks the
 * claims, so a hidden constraint would otherwise be silently ignored. Inside an allowed-list
 * (`constraints.N.allowed`) hiding is allowed: an element not disclosed is not allowed, which only
 * makes the mandate stricter (and an element without a disclosed id is refused by mapConstraints).
 */
function undisclosedInContent(p: Parsed): string[] {
  const byDigest = new Map<string, unknown[]>();
  for (const d of p.disclosures) {
    const decoded = JSON.parse(Buffer.from(d, 'base64url').toString('utf8')) as unknown[];
    byDigest.set(createHash('sha256').update(d, 'ascii').digest('base64url'), decoded);
  }
  const found: string[] = [];
  const join = (path: string, k: string | number) => (path === '' ? String(k) : `${path}.${k}`);
  const walk = (v: unknown, path: string, inContent: boolean): void => {
    const allowedList = /(^|\.)constraints\.\d+\.allowed(\.|$)/.test(path);
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        const o = obj(x);
        if (o !== null && Object.keys(o).length === 1 && typeof o['...'] === 'string') {
          const dis = byDigest.get(o['...']);
          if (dis === undefined) {
            if (inContent && !allowedList) found.push(join(path, i));
          } else walk(dis[1], join(path, i), inContent || (path === 'delegate_payload' && i === 0));
        } else walk(x, join(path, i), inContent || (path === 'delegate_payload' && i === 0));
      });
      return;
    }
    const o = obj(v);
    if (o === null) return;
    for (const [k, x] of Object.entries(o)) {
      if (k === '_sd' && Array.isArray(x)) {
        let hidden = false;
        for (const d of x) {
          const dis = typeof d === 'string' ? byDigest.get(d) : undefined;
          if (dis === undefined) hidden = true;
          else walk(dis[2], join(path, String(dis[1])), inContent);
        }
        if (hidden && inContent && !allowedList) found.push(join(path, '_sd'));
      } else if (k !== '_sd_alg') walk(x, join(path, k), inContent);
    }
  };
  // AP2 v0.2 carries the content in delegate_payload[0]; a plain SD-JWT VC at the top level.
  const delegated = Array.isArray(p.payload.delegate_payload);
  walk(p.payload, '', !delegated);
  const prefix = 'delegate_payload.0.';
  return found.map((f) =>
    delegated && f.startsWith(prefix) ? f.slice(prefix.length) : f === 'delegate_payload.0' ? '' : f,
  );
}

/** The public key of a JWK; null when it is not one node:crypto can use. */
export function keyOf(jwk: JWK): KeyObject | null {
  try {
    const key = createPublicKey({ key: jwk as never, format: 'jwk' });
    return key.type === 'public' ? key : null;
  } catch {
    return null;
  }
}

/** A closed mandate is presented within this long of its iat (docs/ap2.md). */
export const CLOSED_MAX_AGE_SECONDS = 86_400;

/** The SD-JWT claims of a token whose signature verifies with `key` under `alg`; else 422. */
async function verified(token: string, alg: string, key: KeyObject, nowMs: number): Promise<Record<string, unknown>> {
  const hashName = ALGS[alg];
  if (hashName === undefined)
    throw new ApiError('ap2_invalid_signature', `Signature algorithm ${alg} is not accepted.`);
  const sd = new SDJwtInstance({
    hasher: digest,
    verifier: (data: string, sig: string) =>
      verifySignature(
        hashName,
        Buffer.from(data, 'ascii'),
        alg.startsWith('ES') ? { key, dsaEncoding: 'ieee-p1363' } : key,
        Buffer.from(sig, 'base64url'),
      ),
  });
  try {
    // Top-level iat, nbf and exp (if any) are checked here with 5 minutes of skew; AP2 puts the
    // mandate's own exp in the delegate payload, which the caller checks.
    const { payload } = await sd.verify(normalizeToken(token), {
      currentDate: Math.floor(nowMs / 1000),
      skewSeconds: 300,
    });
    return payload as Record<string, unknown>;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/signature/i.test(message)) throw new ApiError('ap2_invalid_signature');
    if (/expired/i.test(message)) throw new ApiError('ap2_credential_expired');
    if (/digest|disclos/i.test(message)) throw new ApiError('ap2_invalid_disclosure');
    throw new ApiError('ap2_malformed_credential', `The SD-JWT does not verify: ${message}`);
  }
}

/**
 * The mandate content of verified claims: AP2 v0.2 puts it in `delegate_payload[0]` (disclosed);
 * a plain SD-JWT VC has it at the top level.
 */
function contentOf(claims: Record<string, unknown>): Record<string, unknown> {
  const d = claims.delegate_payload;
  if (Array.isArray(d)) {
    const first = d[0];
    if (first === null || typeof first !== 'object' || Array.isArray(first) || '...' in first) {
      throw new ApiError('ap2_malformed_credential', 'delegate_payload[0] is not disclosed.');
    }
    return first as Record<string, unknown>;
  }
  return claims;
}

/** An ACTIVE issuer key of the Principal: its kid and public JWK. */
export interface IssuerKey {
  readonly kid: string;
  readonly jwk: JWK;
}

/** What an open Payment Mandate grants, verified. */
export interface OpenMandate {
  /** tokenHash of the credential as imported. */
  readonly hash: string;
  /** issuerJwtHash of the credential: what identifies the grant. */
  readonly jwtHash: string;
  readonly credential: string;
  readonly kid: string;
  readonly content: Record<string, unknown>;
  readonly cnfJwk: JWK;
  readonly cnfThumbprint: string;
  readonly iatMs: number | null;
  readonly expMs: number;
  /** Paths in the content of digests no disclosure reveals (undisclosedInContent). */
  readonly undisclosed: readonly string[];
}

/**
 * Verifies an open Payment Mandate: its kid names one of `keys` (422 ap2_unknown_issuer_key), the
 * signature verifies, every disclosure matches a digest, vct is mandate.payment.open.1, exp is in
 * the future, and its cnf key is `agentJwk` (by RFC 7638 thumbprint).
 */
export async function verifyOpenMandate(
  credential: string,
  keys: readonly IssuerKey[],
  agentJwk: JWK | null,
  nowMs: number,
): Promise<OpenMandate> {
  const p = parse(credential);
  const kid = p.header.kid;
  const alg = p.header.alg;
  if (typeof alg !== 'string') throw new ApiError('ap2_malformed_credential', 'The JWT header has no alg.');
  const key = typeof kid === 'string' ? keys.find((k) => k.kid === kid) : undefined;
  if (key === undefined) throw new ApiError('ap2_unknown_issuer_key');
  checkDisclosures(p);
  const issuerKey = keyOf(key.jwk);
  if (issuerKey === null) {
    throw new ApiError('ap2_unknown_issuer_key', `The issuer key ${key.kid} is not a usable public key.`);
  }
  const claims = await verified(credential, alg, issuerKey, nowMs);
  const content = contentOf(claims);
  if (content.vct !== OPEN_VCT) {
    throw new ApiError(
      'ap2_wrong_vct',
      `vct is ${JSON.stringify(content.vct ?? null)}; an open Payment Mandate has ${OPEN_VCT}.`,
    );
  }
  // The mandate's own exp (in its content) and the credential's (top level) both bound it: the earlier.
  const exps = [content.exp, claims.exp].filter((e): e is number => typeof e === 'number' && Number.isFinite(e));
  if (exps.length === 0) throw new ApiError('ap2_malformed_credential', 'The mandate has no exp.');
  const exp = Math.min(...exps);
  if (exp * 1000 <= nowMs) throw new ApiError('ap2_credential_expired');
  const cnf = content.cnf as { jwk?: JWK } | undefined;
  if (cnf?.jwk === undefined || typeof cnf.jwk !== 'object') {
    throw new ApiError('ap2_malformed_credential', 'An open mandate needs cnf.jwk, the agent key it binds.');
  }
  let thumbprint: string;
  try {
    thumbprint = await calculateJwkThumbprint(cnf.jwk);
  } catch {
    throw new ApiError('ap2_malformed_credential', 'cnf.jwk is not a public JWK.');
  }
  const agent = agentJwk === null ? null : await calculateJwkThumbprint(agentJwk).catch(() => null);
  if (agent === null || agent !== thumbprint) throw new ApiError('ap2_agent_key_not_registered');
  const iat = content.iat ?? claims.iat;
  return {
    hash: tokenHash(credential),
    jwtHash: issuerJwtHash(credential),
    credential: normalizeToken(credential),
    kid: key.kid,
    content,
    cnfJwk: cnf.jwk,
    cnfThumbprint: thumbprint,
    iatMs: typeof iat === 'number' ? iat * 1000 : null,
    expMs: exp * 1000,
    undisclosed: undisclosedInContent(p),
  };
}

/** A mandate's fields mapped from the constraints of an open Payment Mandate. */
export interface MappedMandate {
  readonly currency: string;
  readonly perTransaction: Units;
  readonly total: Units | null;
  readonly terms: StoredTerms;
  /** payment.reference's conditional_transaction_id (kept; the merchant holding the checkout checks it). */
  readonly reference: string | null;
}

function obj(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** Minor units (AP2 integers) of `currency` as exact units; null when not a non-negative integer. */
function minor(value: unknown, currency: string): Units | null {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return null;
  const places = currencyExponent(currency) ?? 2;
  return BigInt(value) * 10n ** BigInt(SCALE - places);
}

/**
 * Maps the constraints (and the pre-set payee and payment_amount) of an open Payment Mandate onto
 * a mandate: payment.amount_range -> currency, max_amount_per_transaction and
 * min_amount_per_transaction; payment.budget -> max_total_amount; payment.agent_recurrence ->
 * recurrence; payment.allowed_payees and payee -> allowed_payees (by merchant id);
 * payment.execution_date -> execution_window; payment.reference -> kept as the reference.
 * Every constraint holds at once, so they are intersected, never combined by OR or last-wins:
 * the smallest maximum and budget, the largest minimum (a pre-set amount is both), the payees
 * every allowed-list (and the pre-set payee) names, the latest not_before and earliest
 * not_after, the fewest occurrences of one frequency. What cannot be intersected (recurrences of
 * different frequencies, two references) or leaves nothing payable (a minimum above the maximum,
 * no payee in common, an empty window) is refused.
 * Anything else (payment instruments, PISPs, unknown types, an allowed payee without a disclosed
 * id, currencies that disagree, a claim of the content left undisclosed) is 422
 * unresolved_constraint naming each one in details.
 */
export function mapConstraints(content: Record<string, unknown>, undisclosed: readonly string[] = []): MappedMandate {
  const problems: ErrorDetail[] = [];
  const unresolved = (field: string, message: string) => problems.push({ field, code: 'not_allowed', message });
  // A constraint the issuer signed but the holder did not disclose cannot be enforced: refused, not
  // dropped (AP2: an unknown constraint fails).
  for (const field of undisclosed) {
    unresolved(field === '' ? 'content' : field, 'holds a selectively disclosable claim that is not disclosed');
  }
  const constraints = Array.isArray(content.constraints) ? content.constraints : [];
  let currency: string | null = null;
  const setCurrency = (c: unknown, field: string): boolean => {
    if (typeof c !== 'string' || !isIsoCurrency(c.toUpperCase())) {
      unresolved(field, 'currency is not an ISO 4217 code');
      return false;
    }
    const up = c.toUpperCase();
    if (currency !== null && currency !== up) {
      unresolved(field, `currency ${up} differs from ${currency} of another constraint (no conversion is made)`);
      return false;
    }
    currency = up;
    return true;
  };
  // Raw bounds with where they came from, converted once the currency is known.
  const maxes: { value: unknown; field: string }[] = [];
  const mins: { value: unknown; field: string }[] = [];
  const budgets: { value: unknown; field: string }[] = [];
  let reference: string | null = null;
  const terms: StoredTerms = {};
  let payees: Set<string> | null = null;
  const narrowPayees = (ids: Iterable<string>) => {
    const next = new Set(ids);
    payees = payees === null ? next : new Set([...(payees as Set<string>)].filter((x) => next.has(x)));
  };
  let notBefore: number | null = null;
  let notAfter: number | null = null;
  constraints.forEach((raw, i) => {
    const c = obj(raw);
    const field = `constraints.${i}`;
    const type = c?.type;
    switch (type) {
      case 'payment.amount_range':
        if (setCurrency(c?.currency, field)) {
          if (c?.max !== undefined && c?.max !== null) maxes.push({ value: c.max, field: `${field}.max` });
          if (c?.min !== undefined && c?.min !== null) mins.push({ value: c.min, field: `${field}.min` });
        }
        break;
      case 'payment.budget':
        if (setCurrency(c?.currency, field)) budgets.push({ value: c?.max, field: `${field}.max` });
        break;
      case 'payment.agent_recurrence': {
        const f = c?.frequency;
        const n = c?.max_occurrences;
        if (typeof f !== 'string' || !FREQUENCIES.includes(f as Frequency)) unresolved(field, 'unknown frequency');
        else if (n !== undefined && (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1)) {
          unresolved(field, 'max_occurrences must be a positive integer');
        } else if (terms.recurrence !== undefined && terms.recurrence.frequency !== f) {
          unresolved(
            field,
            `a second recurrence with another frequency (${f}, ${terms.recurrence.frequency}) cannot be enforced at once`,
          );
        } else {
          const had = terms.recurrence?.max_occurrences;
          const most =
            had === undefined ? (n as number | undefined) : n === undefined ? had : Math.min(had, n as number);
          terms.recurrence =
            most === undefined ? { frequency: f as Frequency } : { frequency: f as Frequency, max_occurrences: most };
        }
        break;
      }
      case 'payment.allowed_payees': {
        const allowed = Array.isArray(c?.allowed) ? (c?.allowed as unknown[]) : [];
        if (allowed.length === 0) unresolved(field, 'allowed is empty');
        const ids: string[] = [];
        allowed.forEach((m, j) => {
          const id = obj(m)?.id;
          if (typeof id === 'string' && id.length > 0) ids.push(id);
          else
            unresolved(`${field}.allowed.${j}`, 'an allowed payee without a disclosed merchant id cannot be matched');
        });
        narrowPayees(ids);
        break;
      }
      case 'payment.execution_date': {
        for (const k of ['not_before', 'not_after'] as const) {
          const v = c?.[k];
          if (v === undefined) continue;
          const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN;
          if (Number.isNaN(ms)) unresolved(`${field}.${k}`, 'is not an ISO 8601 date-time');
          else if (k === 'not_before') notBefore = notBefore === null ? ms : Math.max(notBefore, ms);
          else notAfter = notAfter === null ? ms : Math.min(notAfter, ms);
        }
        break;
      }
      case 'payment.reference':
        if (typeof c?.conditional_transaction_id !== 'string')
          unresolved(field, 'conditional_transaction_id is missing');
        else if (reference !== null && reference !== c.conditional_transaction_id) {
          unresolved(field, 'a second payment.reference names another checkout');
        } else reference = c.conditional_transaction_id;
        break;
      default:
        unresolved(
          field,
          `constraint ${typeof type === 'string' ? type : '(no type)'} cannot be enforced by this service (it sees no payment instrument or PISP in /authorize)`,
        );
    }
  });
  const payee = obj(content.payee)?.id;
  if (content.payee !== undefined) {
    // The pre-set payee is the only payee: it narrows the allowed-lists to itself.
    if (typeof payee === 'string' && payee.length > 0) narrowPayees([payee]);
    else unresolved('payee', 'the pre-set payee has no merchant id');
  }
  const preset = obj(content.payment_amount);
  if (preset !== null && setCurrency(preset.currency, 'payment_amount')) {
    // A pre-set amount is the only amount: both a maximum and a minimum.
    maxes.push({ value: preset.amount, field: 'payment_amount.amount' });
    mins.push({ value: preset.amount, field: 'payment_amount.amount' });
  }
  for (const k of ['payment_instrument', 'pisp', 'execution_date']) {
    if (content[k] !== undefined) unresolved(k, `the pre-set ${k} cannot be enforced by this service`);
  }
  const cur = currency as string | null;
  let perTransaction: Units | null = null;
  let total: Units | null = null;
  let minimum: Units | null = null;
  if (cur !== null) {
    for (const m of maxes) {
      const u = minor(m.value, cur);
      if (u === null || u === 0n) unresolved(m.field, 'must be a positive integer of minor units');
      else if (perTransaction === null || u < perTransaction) perTransaction = u;
    }
    for (const m of mins) {
      const u = minor(m.value, cur);
      if (u === null) unresolved(m.field, 'must be a non-negative integer of minor units');
      else if (u > 0n && (minimum === null || u > minimum)) minimum = u;
    }
    for (const b of budgets) {
      // payment.budget.max is a number of major units (AP2 example: 1000.00 USD), with at most
      // the currency's ISO 4217 minor units (10.001 USD, 100.5 JPY: no such amount is payable).
      const text = typeof b.value === 'number' && Number.isFinite(b.value) ? expandNumberText(String(b.value)) : null;
      const u = text === null ? 'must be a positive amount' : readAmount(text, currencyExponent(cur) ?? 2, cur);
      if (typeof u === 'string') unresolved(b.field, u);
      else if (u <= 0n) unresolved(b.field, 'must be a positive amount');
      else if (total === null || u < total) total = u;
    }
    if (perTransaction === null && total !== null) perTransaction = total;
    if (perTransaction !== null && total !== null && total < perTransaction) perTransaction = total;
    if (minimum !== null && perTransaction !== null && minimum > perTransaction) {
      unresolved('constraints', 'the minimum amount is above the maximum: no amount is payable under every constraint');
    } else if (minimum !== null) terms.min_amount_per_transaction = formatAmount(minimum);
  }
  if (cur === null || perTransaction === null) {
    if (problems.length === 0) {
      unresolved(
        'constraints',
        'an open Payment Mandate needs payment.amount_range or payment.budget: no amount is bounded',
      );
    }
  }
  const allowed = payees as Set<string> | null;
  if (allowed !== null && allowed.size === 0 && problems.length === 0) {
    unresolved('constraints', 'no payee is allowed by every payee constraint');
  }
  if (notBefore !== null || notAfter !== null) {
    if (notBefore !== null && notAfter !== null && notBefore > notAfter) {
      unresolved('constraints', 'the execution dates leave no time to pay in');
    }
    const window: NonNullable<StoredTerms['execution_window']> = {};
    if (notBefore !== null) window.not_before = new Date(notBefore).toISOString();
    if (notAfter !== null) window.not_after = new Date(notAfter).toISOString();
    terms.execution_window = window;
  }
  if (problems.length > 0) {
    throw new ApiError('unresolved_constraint', undefined, { details: problems });
  }
  if (allowed !== null && allowed.size > 0) terms.allowed_payees = [...allowed].sort();
  terms.presentation_only = true;
  return { currency: cur as string, perTransaction: perTransaction as Units, total, terms, reference };
}

/** What a closed Payment Mandate presented after an open one says, verified. */
export interface ClosedMandate {
  readonly hash: string;
  readonly transactionId: string;
  readonly payeeId: string;
  readonly payeeName: string | null;
  /** Exact decimal text with the currency's ISO 4217 minor units ("199.50" USD, "200" JPY). */
  readonly amount: string;
  /** payment_amount.amount as signed: an integer of the currency's minor units (AP2 types/amount.json). */
  readonly minorAmount: number;
  readonly currency: string;
}

/**
 * Splits a chain (open `~~` closed) into its two tokens; 422 ap2_malformed_credential when it is
 * not two tokens.
 */
export function splitChain(chain: string): { open: string; closed: string } {
  const at = chain.indexOf('~~');
  if (at < 0)
    throw new ApiError('ap2_malformed_credential', 'The chain must be the open mandate, ~~, then the closed one.');
  const open = chain.slice(0, at);
  const closed = chain.slice(at + 2);
  if (closed.includes('~~'))
    throw new ApiError('ap2_malformed_credential', 'Only a chain of two mandates is accepted.');
  return { open: normalizeToken(open), closed: normalizeToken(closed) };
}

/**
 * Verifies the closed mandate of a chain against its open mandate: signed by the open mandate's
 * cnf key (key binding), `sd_hash` the hash of the open token, every disclosure matching, vct
 * mandate.payment.1, and a transaction_id, payee id and payment_amount present.
 */
export async function verifyClosedMandate(
  closed: string,
  open: string,
  cnfJwk: JWK,
  nowMs: number,
): Promise<ClosedMandate> {
  const p = parse(closed);
  const alg = p.header.alg;
  if (typeof alg !== 'string') throw new ApiError('ap2_malformed_credential', 'The closed JWT header has no alg.');
  checkDisclosures(p);
  let claims: Record<string, unknown>;
  const agentKey = keyOf(cnfJwk);
  if (agentKey === null) throw new ApiError('ap2_key_binding_invalid', 'The open mandate’s cnf key is not usable.');
  try {
    claims = await verified(closed, alg, agentKey, nowMs);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'ap2_invalid_signature') throw new ApiError('ap2_key_binding_invalid');
    throw err;
  }
  if (claims.sd_hash !== tokenHash(open)) {
    throw new ApiError('ap2_key_binding_invalid', 'The closed mandate is not bound to this open mandate (sd_hash).');
  }
  const content = contentOf(claims);
  if (content.vct !== CLOSED_VCT) {
    throw new ApiError(
      'ap2_wrong_vct',
      `vct is ${JSON.stringify(content.vct ?? null)}; a closed Payment Mandate has ${CLOSED_VCT}.`,
    );
  }
  // Its own exp (content or top level) and the age of its iat: a closed mandate is for one purchase now.
  for (const e of [content.exp, claims.exp]) {
    if (e !== undefined && (typeof e !== 'number' || e * 1000 <= nowMs)) {
      throw new ApiError('ap2_credential_expired', 'The closed Payment Mandate has expired (exp).');
    }
  }
  const iat = content.iat ?? claims.iat;
  if (typeof iat !== 'number') throw new ApiError('ap2_malformed_credential', 'The closed mandate needs iat.');
  if (iat * 1000 < nowMs - CLOSED_MAX_AGE_SECONDS * 1000) {
    throw new ApiError(
      'ap2_credential_expired',
      `The closed Payment Mandate was signed more than ${CLOSED_MAX_AGE_SECONDS / 3600} hours ago (iat).`,
    );
  }
  const tx = content.transaction_id;
  const payee = obj(content.payee);
  const amount = obj(content.payment_amount);
  const currency = typeof amount?.currency === 'string' ? amount.currency.toUpperCase() : null;
  if (typeof tx !== 'string' || tx.length === 0 || typeof payee?.id !== 'string' || currency === null) {
    throw new ApiError(
      'ap2_malformed_credential',
      'The closed mandate needs transaction_id, payee.id and payment_amount.',
    );
  }
  const units = minor(amount?.amount, currency);
  if (units === null || units === 0n) {
    throw new ApiError('ap2_malformed_credential', 'payment_amount.amount must be a positive integer of minor units.');
  }
  return {
    hash: tokenHash(closed),
    transactionId: tx,
    payeeId: payee.id,
    payeeName: typeof payee.name === 'string' ? payee.name : null,
    amount: formatAmount(units, currencyExponent(currency) ?? 2),
    minorAmount: amount?.amount as number,
    currency,
  };
}
