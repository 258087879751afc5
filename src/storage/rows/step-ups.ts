// The `step_ups` table (migrations/0211_step_up_confirmation.sql): one row per step-up opened
// under the 'principal' policy, by a trigger in the decision's group commit. A row as
// postgres.js returns it: NUMERIC as exact decimal text, timestamptz as Date.

export type StepUpStatus = 'PENDING' | 'CONFIRMED' | 'DECLINED' | 'USED';

export interface StepUpRow {
  id: string;
  authorization_id: string;
  principal_id: string;
  agent_id: string;
  amount: string;
  currency: string;
  merchant_id: string | null;
  merchant_name: string | null;
  /**
   * Hex SHA-256 of '<step_up_id>:<code>' (the one-time code is never stored); null until the
   * notifier e-mailed a code (migrations/0290).
   */
  code_hash: string | null;
  /** Migration 0290: hex SHA-256 of the confirmation link's token (null until e-mailed). */
  link_hash: string | null;
  /** Migration 0290: the agent's stated reason (intent type, task, reasoning summary). */
  intent: { intent_type: string; task: string; reasoning_summary: string | null } | null;
  declined_at: Date | null;
  notify_status: 'none' | 'pending' | 'sent' | 'no_channel' | 'failed' | 'capped';
  notify_attempts: number;
  notify_after: Date | null;
  notified_at: Date | null;
  /** Migration 0292: when the e-mail was first claimed (what the hourly cap counts). */
  notify_claimed_at: Date | null;
  /** Migration 0292: notify-and-proceed, when it confirms itself unless declined first. */
  proceeds_at: Date | null;
  status: StepUpStatus;
  expires_at: Date;
  failed_attempts: number;
  confirmed_at: Date | null;
  confirmed_via: 'credential' | 'code' | 'link' | 'veto_window' | null;
  confirmed_by_credential: string | null;
  used_at: Date | null;
  used_by_authorization_id: string | null;
  created_at: Date;
}
