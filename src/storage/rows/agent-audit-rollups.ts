// The `agent_audit_rollups` table (migrations/0070_agent_audit_rollups.sql): a summary of an
// agent's audit rows created before `upto` (src/decision/model/rollup.ts). A row as
// postgres.js returns it: BIGINT and NUMERIC as exact decimal text, timestamptz as Date, jsonb
// parsed.

/** Per mandate, the APPROVED amount and count in the month and in the UTC day that contain upto, before it. */
export interface RollupMandateSums {
  month_sum: string;
  month_n: number;
  day_sum: string;
  day_n: number;
}

export interface AgentAuditRollupRow {
  agent_id: string;
  upto: Date;
  /** All-time decisions before upto. */
  approved: string;
  declined: string;
  step_ups: string;
  /** Mandate id -> its sums. */
  mandates: Record<string, RollupMandateSums>;
  updated_at: Date;
}
