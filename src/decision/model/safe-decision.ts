// The safe decision of SPEC.md rule 6: when a decision cannot be made or durably recorded
// (database down, commit failed, worker fault), POST /authorize answers DECLINE with reason
// code system_unavailable instead of an error. Nothing is recorded, so nothing counts
// against a limit, and a retry with the same idempotency_key is decided afresh.
import { parseAmount, toJsonNumber } from '../../domain/money.js';
import type { AuthorizeRequest } from './contract.js';

export const SYSTEM_UNAVAILABLE = 'system_unavailable';

export function safeDecision(
  request: Pick<AuthorizeRequest, 'agentId' | 'amount' | 'currency'> &
    Partial<Pick<AuthorizeRequest, 'captureMethod' | 'dryRun'>>,
  nowMs = Date.now(),
): Record<string, unknown> {
  const units = parseAmount(request.amount);
  const body: Record<string, unknown> = {
    authorization_id: null,
    decision: 'DECLINE',
    reason_codes: [SYSTEM_UNAVAILABLE],
    reason_detail:
      'The authorization service could not make or record a decision right now, so the transaction is declined. Nothing was recorded against the mandate.',
    agent_id: request.agentId.length > 0 ? request.agentId : null,
    mandate_id: null,
    amount: units === null || units === 0n ? null : toJsonNumber(units),
    currency: request.currency,
    kya_score: null,
    trust_score: null,
    trust_level: null,
    risk_score: null,
    risk_assessment: {
      score: null,
      reason_codes: [SYSTEM_UNAVAILABLE],
      condition_code: SYSTEM_UNAVAILABLE,
      velocity_indicator: false,
      highest_severity: 'none',
    },
    gates_fired: [],
    daily_amount_used: null,
    daily_count_used: null,
    intent_context_provided: true,
    intent_anomaly_score: null,
    intent_anomaly_triggered: false,
    cognitive_limit_active: false,
    cognitive_limit_multiplier: null,
    effective_limit: null,
    recommendations: ['Retry shortly with the same idempotency_key; the service is temporarily unable to decide.'],
    capture_method: request.captureMethod ?? 'automatic',
    status: null,
    hold_expires_at: null,
    step_up_id: null,
    processing_time_ms: 0,
    timestamp: new Date(nowMs).toISOString(),
    // Nothing was decided or recorded: there is nothing to attest (docs/guide.md "Decision receipts").
    receipt: null,
  };
  // POST /authorize/explain answers the same, in its own shape (schemas/ExplainResponse.json):
  // the decision /authorize would give right now is this one, and no gate was reached.
  if (request.dryRun === true) {
    body.dry_run = true;
    body.gates = [];
    body.limits = null;
    body.caps = {};
    body.would_emit = [];
    body.thresholds_version = null;
  }
  return body;
}
