// The `step_ups` table (migrations/0211_step_up_confirmation.sql): one row per step-up opened
// under the 'principal' policy, by a trigger in the decision's group commit. A row as
// postgres.js returns it: NUMERIC as exact decimal text, timestamptz as Date.

export type StepUpStatus = 'PENDING' | 'CONFIRMED' | 'USED';

export interface StepUpRow {
  id: string;
  authorization_id: string;
  principal_id: string;
  agent_id: string;
  amount: string;
  currency: string;
  merchant_id: string | null;
  merchant_name: string | null;
  /** Hex SHA-256 of '<step_up_id>:<code>' (the one-time code is never stored). */
  code_hash: string;
  status: StepUpStatus;
  expires_at: Date;
  failed_attempts: number;
  confirmed_at: Date | null;
  confirmed_via: 'credential' | 'code' | null;
  confirmed_by_credential: string | null;
  used_at: Date | null;
  used_by_authorization_id: string | null;
  created_at: Date;
}
