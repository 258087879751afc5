// The `principals` table (migrations/0001_core.sql, 0160_holds_and_limits.sql,
// 0211_step_up_confirmation.sql): a row as postgres.js returns it, timestamptz as Date, jsonb
// parsed.

/** Who clears a STEP_UP of the Principal's agents (docs/step-up-confirmation.md). */
export type StepUpConfirmation = 'agent' | 'principal';

export interface PrincipalRow {
  id: string;
  client_id: string;
  principal_kind: string;
  client_customer_ref: string | null;
  verification_status: string;
  verification_mode: string;
  verification_type: string;
  risk_tier: string;
  profile: Record<string, unknown>;
  verification: Record<string, unknown>;
  step_up: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  /** The hosted verification session (src/onboarding/principals.ts VerificationSession); null when attested. */
  verification_session: Record<string, unknown> | null;
  created_at: Date;
  /** Migration 0160: the IANA time zone of the Principal's calendar windows (default 'UTC'). */
  timezone: string;
  /** Migration 0211 (default 'agent'). */
  step_up_confirmation: StepUpConfirmation;
}
