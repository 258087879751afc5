// The `mandates` table (migrations/0001_core.sql, 0160_holds_and_limits.sql,
// 0210_mandate_lifecycle.sql): a row as postgres.js returns it, NUMERIC as exact decimal text
// (the service's pools keep NUMERIC as text: src/storage/connect.ts), timestamptz as Date,
// jsonb parsed. Written by the onboarding and runtime planes, read by them and by the agent's
// actor at load (src/decision/load.ts).

export type MandateStatus = 'ACTIVE' | 'EXPIRED' | 'REVOKED';

export interface MandateRow {
  id: string;
  agent_id: string;
  principal_id: string;
  program_id: string | null;
  /** Stored ACTIVE or REVOKED; readers report a passed valid_until as EXPIRED (src/runtime/mandate-store.ts). */
  status: MandateStatus;
  /** 'card', 'crypto' (default '{card}'). */
  rails: string[];
  currency: string;
  max_amount_per_transaction: string;
  max_daily_amount: string | null;
  max_monthly_amount: string | null;
  allowed_mccs: string[] | null;
  blocked_mccs: string[] | null;
  /** ISO 3166-1 alpha-3. */
  allowed_countries: string[] | null;
  blocked_countries: string[] | null;
  allowed_chains: string[] | null;
  allowed_assets: string[] | null;
  allowed_counterparties: string[] | null;
  /** The onboarding plane's crypto block ({chains, assets, max_transfer}). */
  crypto: Record<string, unknown> | null;
  valid_from: Date;
  valid_until: Date;
  mandate_hash: string;
  created_at: Date;
  /** Migration 0160: calendar-week, year and whole-life caps, and day and month count caps (null: none). */
  max_weekly_amount: string | null;
  max_yearly_amount: string | null;
  max_total_amount: string | null;
  max_daily_count: number | null;
  max_monthly_count: number | null;
  /** Migration 0160: seconds a manual hold lives (null: 7 days). */
  hold_expiry_seconds: number | null;
  /** Migration 0160: share of a cap at which budget.threshold_reached is emitted (null: 0.8). */
  budget_alert_share: string | null;
  /** Migration 0210: the last amendment (PATCH), the revocation and its reason. */
  updated_at: Date | null;
  revoked_at: Date | null;
  revocation_reason: string | null;
  /** Migration 0280: allowed payees, merchant lock, minimum amount, execution window, recurrence (null: none). */
  terms: StoredTerms | null;
}

/** The limits of migration 0160 (src/runtime/mandate-limits.ts). */
export type MandateExtraLimitColumn =
  | 'max_weekly_amount'
  | 'max_yearly_amount'
  | 'max_total_amount'
  | 'max_daily_count'
  | 'max_monthly_count'
  | 'hold_expiry_seconds'
  | 'budget_alert_share';

/** Recurrence frequencies (AP2 payment.agent_recurrence). */
export type Frequency = 'ON_DEMAND' | 'DAILY' | 'WEEKLY' | 'BIWEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'ANNUALLY';

/** ISO days of the week, Monday first. */
export type Weekday = 'MON' | 'TUE' | 'WED' | 'THU' | 'FRI' | 'SAT' | 'SUN';

/**
 * Migration 0280: the richer terms of a mandate as stored in `mandates.terms` (null: none of
 * them). Only the terms that are set are present; amounts are canonical decimal text, lists
 * sorted and unique, timestamps ISO 8601 UTC (src/runtime/mandate-terms.ts writes it).
 */
export interface StoredTerms {
  min_amount_per_transaction?: string;
  allowed_payees?: string[];
  merchant_lock?: true;
  execution_window?: { not_before?: string; not_after?: string; days_of_week?: Weekday[] };
  recurrence?: { frequency: Frequency; max_occurrences?: number };
  /**
   * Migration 0281: an imported AP2 open Payment Mandate is spent only by presenting a closed
   * mandate bound to it (POST /api/v1/authorize/ap2); a plain /authorize never selects it.
   */
  presentation_only?: true;
}
