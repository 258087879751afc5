// The `holds` table (migrations/0160_holds_and_limits.sql): one row per manual APPROVE, opened
// by a trigger in the decision's group commit and moved by the settlements
// (src/runtime/holds-store.ts). A row as postgres.js returns it: NUMERIC as exact decimal text,
// timestamptz as Date.

export type HoldStatus = 'HELD' | 'CAPTURED' | 'RELEASED' | 'EXPIRED' | 'VOIDED';

export interface HoldRow {
  authorization_id: string;
  principal_id: string;
  agent_id: string;
  mandate_id: string | null;
  currency: string;
  /** 'manual' for every row the trigger opens. */
  capture_method: 'automatic' | 'manual';
  amount: string;
  captured_amount: string;
  released_amount: string;
  refunded_amount: string;
  status: HoldStatus;
  /** The authorization's created_at. */
  authorized_at: Date;
  expires_at: Date | null;
  settled_at: Date | null;
  updated_at: Date;
}
