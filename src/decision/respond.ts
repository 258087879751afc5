// What a decision returns: its reason codes and recommendations, the events of its gates and
// of a DECLINE or STEP_UP, the response (every field of SPEC.md) and the audit row with its
// explanation.
import { toJsonNumber, type Units } from '../domain/money.js';
import type { AgentState } from './agent-state.js';
import { isoOf } from './model/calendar.js';
import type { AuditRow, AuthorizeRequest, Evaluation } from './model/contract.js';
import { REASONS, STEP_UP_RECOMMENDATION } from './reasons.js';
import { groupsOfMcc } from './taxonomy.js';
import { effectiveLimit, multiplierFor } from './trust.js';
import type { Work } from './work.js';

const MAX_EXACT = 9_007_199_254_740_991n;

/**
 * A response number for exact units. Below 2^53 both operands are exact doubles and IEEE
 * division is correctly rounded, so this equals Number(decimal text) without building the text.
 */
function unitsToNumber(u: Units): number {
  return u <= MAX_EXACT && u >= -MAX_EXACT ? Number(u) / 1e8 : toJsonNumber(u);
}

/** The evaluation of the decision in `w`: response, audit row, events and the agent's update. */
export function respond(
  state: AgentState,
  req: AuthorizeRequest,
  w: Work,
  trustScore: number | null,
  stepUpExpiresAtMs: number,
  agentUpdate: { trust_level?: string; kya_score?: string } | null,
  nowMs: number,
): Evaluation {
  const decision = w.decision;
  const { amount, mandate, risk, intent, cts, confirmed, authorizationId, events } = w;
  const merchantLabel = req.merchantName ?? req.merchantId;
  const riskScore = risk !== null ? risk.score : null;
  let limit = w.limit;

  // Recommendations and reason codes.
  const reasons = w.reasons as string[];
  const recommendations: string[] = [];
  if (decision === 'APPROVE') {
    if (confirmed) reasons.push('step_up_confirmed');
    else reasons.push('approved');
  }
  for (const code of w.reasons) {
    const rec = REASONS[code].recommendation;
    if (!recommendations.includes(rec)) recommendations.push(rec);
  }
  if (decision === 'STEP_UP' && !recommendations.includes(STEP_UP_RECOMMENDATION)) {
    recommendations.push(STEP_UP_RECOMMENDATION);
  }
  const reasonDetail =
    decision === 'APPROVE' && !confirmed
      ? `approved under mandate ${mandate?.id ?? ''}: all checks passed`
      : `${decision}: ${w.details.join('; ')}`;

  // Events of the gates and of a decline.
  const gates = w.gates as string[];
  for (const gate of gates) {
    events.push({
      eventType: 'gate.fired',
      data: {
        agent_id: state.agentId,
        authorization_id: authorizationId,
        gate,
        decision,
        amount: req.amount,
        currency: req.currency,
        merchant: merchantLabel,
        trust_score: trustScore,
        risk_score: riskScore,
      },
    });
  }
  if (decision === 'DECLINE') {
    events.push({
      eventType: 'authorization.decline',
      data: {
        agent_id: state.agentId,
        authorization_id: authorizationId,
        amount: req.amount,
        currency: req.currency,
        merchant: merchantLabel,
        gates_fired: gates,
        trust_score: trustScore,
        risk_score: riskScore,
        recommendations,
      },
    });
  } else if (decision === 'STEP_UP' && (w.stepUpOpened || w.stepUpId === null)) {
    // Under the 'principal' policy a STEP_UP asking again for a step-up still awaiting the
    // Principal announces nothing new. The event never carries the one-time code nor the link:
    // those reach the person only through the Principal's own channel (step-up-notifier.ts).
    events.push({
      eventType: 'step_up.created',
      data: {
        agent_id: state.agentId,
        authorization_id: authorizationId,
        amount: req.amount,
        currency: req.currency,
        merchant: merchantLabel,
        mcc: req.mcc,
        session_id: req.sessionId,
        gates_fired: gates,
        reason_codes: reasons,
        expires_at: isoOf(w.stepUpId === null ? stepUpExpiresAtMs : w.stepUpExpiresAtMs),
        trust_score: trustScore,
        risk_score: riskScore,
        step_up_id: w.stepUpId,
      },
    });
  }

  // Response (every field of SPEC.md) and audit row.
  const multiplierUnits = cts !== null ? cts.multiplierUnits : multiplierFor(state.lastZone ?? 'GREEN', state.derived);
  if (limit === null && mandate !== null) limit = effectiveLimit(mandate.perTransaction, multiplierUnits);
  const multiplier = Number(multiplierUnits) / 1e8;
  const timestamp = isoOf(nowMs);
  // Holds (docs/holds.md): a manual APPROVE is HELD until captured, released or expired; an
  // automatic one is CAPTURED at once; DECLINE and STEP_UP have no capture status.
  const captureMethod = req.captureMethod ?? 'automatic';
  const held = decision === 'APPROVE' && captureMethod === 'manual';
  const holdExpiresAt = held && mandate !== null ? new Date(nowMs + mandate.holdTtlMs).toISOString() : null;
  const response: Record<string, unknown> = {
    authorization_id: authorizationId,
    decision,
    reason_codes: reasons,
    reason_detail: reasonDetail,
    agent_id: state.agentId,
    mandate_id: mandate === null ? null : mandate.id,
    amount: unitsToNumber(amount),
    currency: req.currency,
    kya_score: state.kyaScore,
    trust_score: trustScore,
    trust_level: state.trustLevel,
    risk_score: riskScore,
    risk_assessment: {
      score: riskScore,
      reason_codes: risk === null ? [] : risk.signals,
      condition_code: risk === null ? 'NOT_EVALUATED' : risk.condition,
      velocity_indicator: risk?.velocity === true,
      highest_severity: risk === null ? 'none' : risk.severity,
    },
    gates_fired: gates,
    daily_amount_used: mandate === null ? 0 : unitsToNumber(mandate.dayAmount),
    daily_count_used: mandate === null ? 0 : mandate.dayCount,
    intent_context_provided: req.intent.taskReference !== '' || req.intent.intentType !== '',
    intent_anomaly_score: intent === null ? null : intent.score,
    intent_anomaly_triggered: intent?.triggered === true,
    cognitive_limit_active: multiplierUnits < 100_000_000n,
    cognitive_limit_multiplier: multiplier,
    effective_limit: limit === null ? null : unitsToNumber(limit),
    recommendations,
    capture_method: captureMethod,
    status: decision !== 'APPROVE' ? null : held ? 'HELD' : 'CAPTURED',
    hold_expires_at: holdExpiresAt,
    step_up_id: w.stepUpId,
    processing_time_ms: 0,
    timestamp,
    // Signed by the shard's actor system once the decision goes to be recorded (src/shard/receipt.ts).
    receipt: null,
  };
  const audit: AuditRow = {
    id: authorizationId,
    principal_id: state.principalId,
    agent_id: state.agentId,
    mandate_id: mandate === null ? null : mandate.id,
    amount: req.amount,
    currency: req.currency,
    mcc: req.mcc,
    merchant_id: req.merchantId,
    merchant_name: req.merchantName,
    country: req.country,
    decision,
    reason_codes: reasons,
    gates_fired: gates,
    kya_score: state.kyaText,
    trust_level: state.trustLevel,
    trust_score: trustScore === null ? null : String(trustScore),
    risk_score: riskScore === null ? null : String(riskScore),
    session_id: req.sessionId,
    idempotency_key: req.idempotencyKey,
    processing_time_ms: 0,
    response,
    created_at: timestamp,
    capture_method: captureMethod,
    hold_expires_at: holdExpiresAt,
    step_up_id: w.stepUpId,
    step_up_expires_at: w.stepUpOpened ? isoOf(w.stepUpExpiresAtMs) : null,
    // The agent's stated reason, shown to the person on the confirmation page.
    step_up_intent: w.stepUpOpened
      ? {
          intent_type: req.intent.intentType,
          task: req.intent.taskReference,
          reasoning_summary: req.intent.reasoningSummary,
        }
      : null,
    // Shadow thresholds (threshold-eval.ts): what they decided, without effect.
    shadow:
      w.shadow === undefined
        ? null
        : { decision: w.shadow.decision, gates_fired: w.shadow.gates, thresholds_version: w.shadow.version },
    explanation: {
      thresholds_version: state.thresholdsVersion,
      gates_fired: gates,
      features:
        risk === null
          ? null
          : {
              requests_in_rapid_window: risk.requests,
              approvals_in_velocity_window: risk.approvals,
              same_merchant_in_rapid_window: risk.sameMerchant,
              amount_to_median: risk.amountRatio,
              amount_robust_z: risk.amountZ,
              amount_to_per_transaction_limit: risk.capShare,
              country_jump: risk.countryJump,
              agent_trust_factor: risk.trust,
              mcc_groups: groupsOfMcc(req.mcc),
            },
      scores: {
        risk_score: riskScore,
        risk_signals: risk === null ? [] : risk.signals,
        trust_score: cts === null ? null : cts.score,
        trust_dimensions: cts === null ? null : cts.dimensions,
        intent_anomaly_score: intent === null ? null : intent.score,
        intent_signals: intent === null ? [] : intent.signals,
      },
      // The inputs of backtests and shadow thresholds (threshold-eval.ts).
      replay: w.replay ?? null,
    },
  };
  // Decided while the answers were slow: the agent learns no pace from it (outcome.ts).
  if (w.slowAnswers) audit.answers_slow = true;
  return { decision, response, audit, events, agentUpdate, marks: w.marks };
}
