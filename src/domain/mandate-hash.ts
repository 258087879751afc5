// mandate_hash: 'sha256:' + the lowercase hex SHA-256 of the canonical JSON of a mandate's
// terms. Canonical JSON here: object keys sorted by code unit, no whitespace, arrays in
// their given order, strings and numbers as JSON.stringify writes them (a non-finite number is
// null); amounts are carried as canonical decimal strings so no binary float takes part.
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    // As JSON.stringify: a non-finite number is null; undefined (only reachable at the top) too.
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/**
 * The terms a mandate grants, the input of mandate_hash. Every field that decides whether a
 * transaction is within the mandate is here; bookkeeping (id, status, created_at) is not.
 * Sets (rails, mccs, countries, chains, assets) are sorted and free of duplicates; amounts
 * are canonical decimal strings (formatAmount); countries are alpha-3; timestamps ISO 8601 UTC.
 */
export interface MandateTerms {
  agent_id: string;
  principal_id: string;
  rails: string[];
  /** The later limits (week, year, total, counts, hold expiry, alert share) only when set, so older hashes hold. */
  limits: { currency: string; max_amount_per_transaction: string; max_daily_amount: string } & Record<
    string,
    string | number | undefined
  >;
  allowed_mccs: string[] | null;
  allowed_countries: string[] | null;
  crypto: { chains: string[]; assets: string[]; max_transfer: string | null } | null;
  valid_from: string;
  valid_until: string;
  /** The richer terms (migrations/0280), only when set, so older hashes hold. */
  terms?: object | undefined;
}

export function mandateHash(terms: MandateTerms): string {
  return `sha256:${createHash('sha256').update(canonicalJson(terms), 'utf8').digest('hex')}`;
}

/**
 * mandate_hash of a runtime-plane mandate (POST /api/v1/mandates): 'sha256:' + hex SHA-256 of
 * the canonical JSON of every term that decides whether a transaction is within it. Sets are
 * sorted, amounts canonical decimal strings, countries alpha-3, timestamps ISO UTC.
 */
export function runtimeMandateHash(terms: Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(canonicalJson(terms), 'utf8').digest('hex')}`;
}
