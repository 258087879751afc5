// The `authorizations` table, the immutable audit log of decisions (migrations/0001_core.sql and
// the columns added by later migrations, named on each): a row as postgres.js returns it, and
// the row as the group commit writes it where that differs.

import type { Decision } from '../../domain/decision.js';

/** Migration 0241: the decision under the Principal's shadow thresholds, without effect. */
export interface ShadowDecision {
  decision: Decision;
  gates_fired: string[];
  thresholds_version: string;
}

/** A row as postgres.js returns it: NUMERIC as exact decimal text, timestamptz as Date, jsonb parsed. */
export interface AuthorizationRow {
  id: string;
  principal_id: string;
  agent_id: string;
  mandate_id: string | null;
  amount: string;
  currency: string;
  mcc: string | null;
  merchant_id: string | null;
  merchant_name: string | null;
  country: string | null;
  decision: Decision;
  reason_codes: string[];
  gates_fired: string[];
  kya_score: string | null;
  trust_level: string | null;
  trust_score: string | null;
  risk_score: string | null;
  session_id: string | null;
  idempotency_key: string | null;
  processing_time_ms: number;
  /**
   * The full POST /authorize response body, replayed for a repeated idempotency_key. Migration
   * 0050: kept only for a request with an idempotency_key; 0110: swept (null) after retention;
   * 0300: kept in authorization_responses instead (null on rows this release writes; set only by
   * an instance of an earlier release during a rolling deploy).
   */
  response: Record<string, unknown> | null;
  /** The decision time. */
  created_at: Date;
  /** Migration 0030: now() of the transaction that recorded it (the group commit). */
  recorded_at: Date;
  /**
   * Migration 0110: fingerprint of the request that used idempotency_key (src/shard/idempotency.ts),
   * set by the actor; null on older rows.
   */
  request_hash: string | null;
  /**
   * Migration 0120: what decided it, the features the gates read, each gate's score and the
   * thresholds version. Null on safe decisions and older rows.
   */
  explanation: Record<string, unknown> | null;
  /** Migration 0160: 'manual' on a request that asked for a hold, else 'automatic' (null on older rows). */
  capture_method: 'automatic' | 'manual' | null;
  /** Migration 0160: when a manual APPROVE's hold expires (null otherwise). */
  hold_expires_at: Date | null;
  /**
   * Migration 0211 (docs/step-up-confirmation.md): the decision's step-up; on the STEP_UP that
   * opened it also the hash of its one-time code and its expiry (a trigger opens its step_ups row).
   */
  step_up_id: string | null;
  step_up_code_hash: string | null;
  step_up_expires_at: Date | null;
  /**
   * Migration 0290: on the STEP_UP that opened a step-up, the agent's stated reason (intent type,
   * task, reasoning summary) the confirmation page shows; null otherwise. No code hash any more:
   * step_up_code_hash stays null on new rows (the notifier sets step_ups.code_hash).
   */
  step_up_intent: StepUpIntent | null;
  /** Migration 0241: null when the Principal had no shadow thresholds. */
  shadow: ShadowDecision | null;
  /**
   * Migration 0320: true when the decision was made while this instance's group commits were
   * slow (its answers paced the agent; docs/decision-engine.md "Velocity"); null otherwise.
   */
  answers_slow: boolean | null;
}

/** The agent's stated reason for a purchase that opened a step-up (migrations/0290). */
export interface StepUpIntent {
  intent_type: string;
  task: string;
  reasoning_summary: string | null;
}

/** The columns whose written form differs from the row read back. */
type WrittenApart =
  | 'response'
  | 'created_at'
  | 'recorded_at'
  | 'request_hash'
  | 'explanation'
  | 'capture_method'
  | 'hold_expires_at'
  | 'step_up_id'
  | 'step_up_code_hash'
  | 'step_up_expires_at'
  | 'step_up_intent'
  | 'shadow'
  | 'answers_slow';

/**
 * A row as the decision builds it (src/decision/respond.ts) and the group commit writes it:
 * timestamps as ISO 8601 UTC text, response always at hand (the commit stores it only with an
 * idempotency_key), recorded_at left to the database, and the columns of later migrations
 * optional (absent: null; safe decisions set none of them).
 */
export type AuthorizationWrite = Omit<AuthorizationRow, WrittenApart> &
  Partial<Pick<AuthorizationRow, 'request_hash' | 'explanation' | 'step_up_id' | 'step_up_code_hash'>> & {
    response: Record<string, unknown>;
    /** ISO 8601 UTC. */
    created_at: string;
    capture_method?: 'automatic' | 'manual';
    /** ISO 8601 UTC. */
    hold_expires_at?: string | null;
    /** ISO 8601 UTC. */
    step_up_expires_at?: string | null;
    step_up_intent?: StepUpIntent | null;
    shadow?: (Omit<ShadowDecision, 'gates_fired'> & { gates_fired: readonly string[] }) | null;
    /** Set (true) only on a decision made while the answers were slow. */
    answers_slow?: true;
  };
