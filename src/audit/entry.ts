// The audit log entry of SPEC.md "Authorization (audit log entry)": the shape returned by
// GET /authorize/log/{id} and carried as `data` of the authorization.decided event.

import type { AuditRow } from '../decision/model/contract.js';
import { fromDb, parseAmount, toJsonNumber } from '../domain/money.js';
import type { AuthorizationRow } from '../storage/rows/authorizations.js';
import type { HoldRow } from '../storage/rows/holds.js';

export interface AuthorizationEntry {
  id: string;
  agent_id: string;
  mandate_id: string | null;
  amount: number;
  currency: string;
  mcc: string | null;
  merchant_id: string | null;
  country: string | null;
  decision: string;
  reason_codes: string[];
  kya_score: number | null;
  trust_level: string | null;
  processing_time_ms: number;
  created_at: string;
  /** Migration 0160 (docs/holds.md): how an APPROVE is captured. */
  capture_method: 'automatic' | 'manual';
  /** APPROVE: HELD, CAPTURED, RELEASED or EXPIRED; null for DECLINE and STEP_UP. */
  status: string | null;
}

/** The capture status of a decision: a hold's own status, else CAPTURED for an APPROVE. */
function statusOf(
  decision: string,
  captureMethod: string | null | undefined,
  holdStatus: string | null,
): string | null {
  if (decision !== 'APPROVE') return null;
  if (holdStatus !== null) return holdStatus;
  return captureMethod === 'manual' ? 'HELD' : 'CAPTURED';
}

function score(value: string | null): number | null {
  return value === null ? null : Number(value);
}

/** The fields an entry copies unchanged from either form of the row. */
type Shared = Pick<
  AuthorizationEntry,
  'id' | 'agent_id' | 'mandate_id' | 'currency' | 'mcc' | 'merchant_id' | 'country' | 'decision'
> &
  Pick<AuthorizationEntry, 'reason_codes' | 'trust_level' | 'processing_time_ms'> & { kya_score: string | null };

function entry(
  row: Shared,
  amount: number,
  createdAt: string,
  captureMethod: string | null | undefined,
  holdStatus: string | null,
): AuthorizationEntry {
  return {
    id: row.id,
    agent_id: row.agent_id,
    mandate_id: row.mandate_id,
    amount,
    currency: row.currency,
    mcc: row.mcc,
    merchant_id: row.merchant_id,
    country: row.country,
    decision: row.decision,
    reason_codes: row.reason_codes,
    kya_score: score(row.kya_score),
    trust_level: row.trust_level,
    processing_time_ms: row.processing_time_ms,
    created_at: createdAt,
    capture_method: captureMethod === 'manual' ? 'manual' : 'automatic',
    status: statusOf(row.decision, captureMethod, holdStatus),
  };
}

/** From the row a worker is about to commit (money as exact decimal text). */
export function entryFromAudit(row: AuditRow): AuthorizationEntry {
  const units = parseAmount(row.amount);
  if (units === null) throw new Error(`audit row ${row.id}: not an exact amount: ${row.amount}`);
  return entry(row, toJsonNumber(units), row.created_at, row.capture_method, null);
}

/**
 * The columns of an `authorizations` row GET /authorize/log/{id} reads, with the status of its
 * hold (holds join; null when none). explanation and shadow are read there only.
 */
export type StoredAuthorization = Pick<
  AuthorizationRow,
  | 'id'
  | 'agent_id'
  | 'mandate_id'
  | 'amount'
  | 'currency'
  | 'mcc'
  | 'merchant_id'
  | 'country'
  | 'decision'
  | 'reason_codes'
  | 'kya_score'
  | 'trust_level'
  | 'processing_time_ms'
  | 'created_at'
> &
  Partial<Pick<AuthorizationRow, 'explanation' | 'shadow' | 'capture_method'>> & {
    hold_status?: HoldRow['status'] | null;
  };

export function entryFromDb(row: StoredAuthorization): AuthorizationEntry {
  return entry(
    row,
    toJsonNumber(fromDb(row.amount) as bigint),
    row.created_at.toISOString(),
    row.capture_method,
    row.hold_status ?? null,
  );
}
