// The decision core: the pipeline of SPEC.md "POST /authorize" in order, short-circuiting
// on a DECLINE, then post-processing (state, sessions, step-ups, trust, KYA, events, audit
// row, response). docs/decision-engine.md is the integrator's description of this file.
//
// Hot path: one call per authorization on the shard thread that owns the agent. No closures,
// no regex compilation, no I/O; the objects built here are the response, the audit row and
// the events the worker needs anyway.
import { newId } from '../../domain/ids.js';
import { formatAmount, parseAmount, toJsonNumber, type Units } from '../../domain/money.js';
import type { AuditRow, AuthorizeRequest, Decision, DecisionCore, EngineEvent, Evaluation } from '../contract.js';
import {
  type AgentState,
  type MandateState,
  OUTCOME_APPROVE,
  OUTCOME_MANDATE_DECLINE,
  OUTCOME_OTHER_DECLINE,
  OUTCOME_STEP_UP,
  type SessionState,
  type TrustLevel,
  type Zone,
} from './agent-state.js';
import { dayKeyOf, monthKeyOf } from './calendar.js';
import { addMerchantDecline, learnApproval, MANDATE_GATES, pointsToCompromise } from './evidence.js';
import { assessIntent, type IntentResult } from './intent.js';
import { loadAgentState } from './load.js';
import { checkMandate, rollTotals, selectMandate } from './mandate-check.js';
import { estimateStateBytes } from './memory.js';
import { type Gate, REASONS, type ReasonCode, STEP_UP_RECOMMENDATION } from './reasons.js';
import {
  countryNovelty,
  NOVEL_APPROVED,
  NOVEL_CONFIRMED,
  NOVEL_REFUSED,
  noteApproval,
  noteNovelCountry,
} from './recent.js';
import { assessRisk, COUNTRY_JUMP_THRESHOLD, type RiskResult, recordMerchantEvidence } from './risk.js';
import { ROLLUP_AFTER_ROWS, refreshRollup } from './rollup.js';
import { openSession, recordInSession } from './sessions.js';
import { merchantKeyOf, recordOutcome } from './state.js';
import { addPendingStepUp, consumePendingStepUp, findPendingStepUp } from './step-up.js';
import { groupsOfMcc } from './taxonomy.js';
import {
  type CtsResult,
  computeCts,
  effectiveLimit,
  kyaScore,
  multiplierFor,
  promotionOf,
  TIER_NAMES,
} from './trust.js';

const HOUR_MS = 3_600_000;
/** Per-request scratch of the decision being built. */
interface Work {
  decision: Decision;
  readonly gates: Gate[];
  readonly reasons: ReasonCode[];
  readonly details: string[];
  /** STEP_UP gates, cleared together by a matching step_up_confirmed. */
  stepUpGates: number;
}

function addGate(w: Work, gate: Gate): void {
  if (!w.gates.includes(gate)) w.gates.push(gate);
}

function decline(w: Work, reason: ReasonCode, detail: string): void {
  w.decision = 'DECLINE';
  const gate = REASONS[reason].gate;
  if (gate !== null) addGate(w, gate);
  w.reasons.push(reason);
  w.details.push(detail);
}

function stepUp(w: Work, reason: ReasonCode, detail: string): void {
  if (w.decision === 'APPROVE') w.decision = 'STEP_UP';
  const gate = REASONS[reason].gate;
  if (gate !== null) addGate(w, gate);
  w.reasons.push(reason);
  w.details.push(detail);
  w.stepUpGates++;
}

function money(u: Units, currency: string): string {
  return `${formatAmount(u)} ${currency}`;
}

function mandateDetail(reason: ReasonCode, m: MandateState, req: AuthorizeRequest, amount: Units): string {
  const amt = money(amount, req.currency);
  switch (reason) {
    case 'per_transaction_limit_exceeded':
      return `amount ${amt} exceeds the per-transaction limit ${money(m.perTransaction, m.currency)} of mandate ${m.id}`;
    case 'crypto_max_transfer_exceeded':
      return `amount ${amt} exceeds the crypto max_transfer ${money(m.cryptoMaxTransfer ?? 0n, m.currency)} of mandate ${m.id}`;
    case 'daily_limit_exceeded':
      return `amount ${amt} with ${money(m.dayAmount, m.currency)} already approved today (UTC) exceeds the daily cap ${money(m.daily ?? 0n, m.currency)} of mandate ${m.id}`;
    case 'monthly_limit_exceeded':
      return `amount ${amt} with ${money(m.monthAmount, m.currency)} already approved this month (UTC) exceeds the monthly cap ${money(m.monthly ?? 0n, m.currency)} of mandate ${m.id}`;
    case 'mcc_blocked':
      return `merchant category ${req.mcc} is blocked by mandate ${m.id}`;
    case 'mcc_not_allowed':
      return req.mcc === null
        ? `mandate ${m.id} allows only listed merchant categories and no mcc was sent`
        : `merchant category ${req.mcc} is not in the allowed_mccs of mandate ${m.id}`;
    case 'country_blocked':
      return `merchant country ${req.country} is blocked by mandate ${m.id}`;
    case 'country_not_allowed':
      return req.country === null
        ? `mandate ${m.id} allows only listed countries and no country was sent`
        : `merchant country ${req.country} is not in the allowed_countries of mandate ${m.id}`;
    case 'chain_not_allowed':
      return `chain ${req.crypto?.chain ?? '(none)'} is not in the allowed_chains of mandate ${m.id}`;
    case 'asset_not_allowed':
      return `asset ${req.crypto?.asset ?? '(none)'} is not in the allowed_assets of mandate ${m.id}`;
    case 'counterparty_not_allowed':
      return `counterparty ${req.crypto?.counterparty ?? '(none)'} is not in the allowed_counterparties of mandate ${m.id}`;
    default:
      return reason;
  }
}

function selectionDetail(reason: ReasonCode, m: MandateState | null, req: AuthorizeRequest): string {
  switch (reason) {
    case 'no_active_mandate':
      return 'the agent has no ACTIVE mandate';
    case 'rail_not_permitted':
      return `no ACTIVE mandate of the agent covers the ${req.rail} rail`;
    case 'currency_mismatch':
      return `currency ${req.currency} differs from the currency ${m?.currency ?? ''} of mandate ${m?.id ?? ''} (no conversion is made)`;
    case 'mandate_expired':
      return `mandate ${m?.id ?? ''} expired at ${new Date(m?.validUntilMs ?? 0).toISOString()}`;
    case 'mandate_not_yet_valid':
      return `mandate ${m?.id ?? ''} is valid only from ${new Date(m?.validFromMs ?? 0).toISOString()}`;
    default:
      return reason;
  }
}

function zoneEventType(zone: Zone): string | null {
  return zone === 'RED' ? 'cts.red' : zone === 'CRITICAL' ? 'cts.critical' : null;
}

function round2Text(n: number): string {
  return n.toFixed(2);
}

const MAX_EXACT = 9_007_199_254_740_991n;

/**
 * A response number for exact units. Below 2^53 both operands are exact doubles and IEEE
 * division is correctly rounded, so this equals Number(decimal text) without building the text.
 */
function unitsToNumber(u: Units): number {
  return u <= MAX_EXACT && u >= -MAX_EXACT ? Number(u) / 1e8 : toJsonNumber(u);
}

// toISOString costs about a microsecond: the date part is cached per UTC day and the time of
// day is assembled from lookup tables (same text as toISOString for years 1970..9999).
const PAD2: readonly string[] = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let isoMs = Number.NaN;
let isoText = '';
let isoDay = Number.NaN;
let isoDayText = '';
export function isoOf(ms: number): string {
  if (ms === isoMs) return isoText;
  const day = Math.floor(ms / 86_400_000);
  if (day !== isoDay) {
    isoDayText = new Date(day * 86_400_000).toISOString().slice(0, 11);
    isoDay = day;
  }
  let r = ms - day * 86_400_000;
  const h = Math.floor(r / 3_600_000);
  r -= h * 3_600_000;
  const m = Math.floor(r / 60_000);
  r -= m * 60_000;
  const sec = Math.floor(r / 1000);
  const milli = Math.floor(r - sec * 1000);
  isoText = `${isoDayText}${PAD2[h]}:${PAD2[m]}:${PAD2[sec]}.${PAD3[milli]}Z`;
  isoMs = ms;
  return isoText;
}

/** Decides one authorization and updates `state` as if the decision were committed. */
export function evaluate(state: AgentState, req: AuthorizeRequest, nowMs: number): Evaluation {
  const t = state.thresholds;
  const amount = parseAmount(req.amount) ?? 0n;
  const merchant = merchantKeyOf(req.merchantId, req.merchantName);
  const merchantLabel = req.merchantName ?? req.merchantId;
  const authorizationId = newId('auth');
  const w: Work = { decision: 'APPROVE', gates: [], reasons: [], details: [], stepUpGates: 0 };

  const session: SessionState | null = req.sessionId === null ? null : openSession(state, req.sessionId, nowMs);
  let mandate: MandateState | null = null;
  let risk: RiskResult | null = null;
  let intent: IntentResult | null = null;
  let cts: CtsResult | null = null;
  let limit: Units | null = null;

  // Stage 0: the agent and its session.
  if (state.status !== 'ACTIVE') {
    decline(w, 'agent_inactive', `agent ${state.agentId} is ${state.status}`);
  } else if (session?.terminated) {
    decline(
      w,
      'session_terminated',
      `session ${req.sessionId} was terminated earlier; no further request in it is approved`,
    );
  } else {
    // Stage 1: mandate selection and check.
    const sel = selectMandate(state.mandates, req, nowMs);
    mandate = sel.mandate;
    if (mandate !== null) rollTotals(mandate, dayKeyOf(nowMs), monthKeyOf(nowMs));
    if (sel.reason !== null) {
      decline(w, sel.reason, selectionDetail(sel.reason, mandate, req));
    } else if (mandate !== null) {
      const violation = checkMandate(mandate, req, amount);
      if (violation !== null) decline(w, violation, mandateDetail(violation, mandate, req, amount));
    }
  }

  if (w.decision === 'APPROVE' && mandate !== null) {
    // Stage 2: risk scoring.
    risk = assessRisk(state, req, amount, merchant, nowMs, mandate);
    if (risk.rapidFire) {
      decline(
        w,
        'risk_rapid_fire',
        `${risk.requests} requests within ${t.rapid_fire_window_seconds} s exceed rapid_fire_max_count ${t.rapid_fire_max_count}`,
      );
    } else if (risk.hardDecline) {
      decline(
        w,
        'risk_score_too_high',
        `risk_score ${risk.score} is at or above risk_score_hard_decline ${t.risk_score_hard_decline}`,
      );
    } else {
      if (risk.velocity) {
        stepUp(
          w,
          'velocity_spike',
          risk.burst
            ? `${risk.requests} requests (${risk.sameMerchant} at this merchant) within ${t.rapid_fire_window_seconds} s are a burst`
            : `${risk.approvals} approvals within ${t.risk_velocity_window_seconds} s exceed risk_velocity_max_count ${t.risk_velocity_max_count}`,
        );
      }
      if (risk.outlier) {
        stepUp(
          w,
          'amount_outlier',
          risk.amountRatio === 0
            ? `amount is ${risk.capShare} of max_amount_per_transaction with too little history in ${req.currency} to judge it`
            : `amount is ${risk.amountRatio} times the agent median approved amount in ${req.currency} (robust z ${risk.amountZ}, ${risk.capShare} of max_amount_per_transaction; amount_outlier_multiplier ${t.amount_outlier_multiplier})`,
        );
      }
      if (risk.jump) {
        stepUp(
          w,
          'country_jump',
          `merchant country ${req.country} is new to the agent (country-jump score ${risk.countryJump}, threshold ${COUNTRY_JUMP_THRESHOLD})`,
        );
      }
      if (risk.stepUp) {
        stepUp(
          w,
          'risk_score_elevated',
          `risk_score ${risk.score} is at or above authorize_step_up_threshold ${t.authorize_step_up_threshold}`,
        );
      }

      // Stage 3: cognitive trust.
      intent = assessIntent(state, req, session, t.intent_anomaly_threshold);
      cts = computeCts(state, req, risk, intent, session, merchant);
      limit = effectiveLimit(mandate.perTransaction, cts.multiplierUnits);
      const over = amount > limit;
      if (cts.zone === 'CRITICAL') {
        decline(
          w,
          'cts_critical',
          `trust_score ${cts.score} is below cts_red_threshold ${t.cts_red_threshold} (CRITICAL)`,
        );
      } else if (cts.zone === 'RED') {
        if (over) {
          decline(
            w,
            'cognitive_limit_exceeded',
            `trust zone RED limits this agent to ${money(limit, mandate.currency)} per transaction (multiplier ${cts.multiplier})`,
          );
        } else {
          stepUp(
            w,
            'cts_red',
            `trust_score ${cts.score} is in the RED zone (below cts_amber_threshold ${t.cts_amber_threshold})`,
          );
        }
      } else if (cts.zone === 'AMBER' && over) {
        stepUp(
          w,
          'cognitive_limit_exceeded',
          `trust zone AMBER limits this agent to ${money(limit, mandate.currency)} per transaction (multiplier ${cts.multiplier})`,
        );
      }

      // Stage 4: intent anomaly.
      if ((w.decision as Decision) !== 'DECLINE' && intent.triggered) {
        const first = w.reasons.length;
        for (const s of intent.signals) decline(w, s as ReasonCode, '');
        w.details.length = first;
        w.details.push(
          `intent_anomaly_score ${intent.score} is at or above intent_anomaly_threshold ${t.intent_anomaly_threshold} (${intent.signals.join(', ')})`,
        );
      }
    }
  }

  // Step-up confirmation: clears STEP_UP gates only (never a DECLINE).
  let confirmed = false;
  let ignoredConfirmation = false;
  if (req.stepUpConfirmed && w.decision !== 'DECLINE') {
    const idx = findPendingStepUp(state, amount, req.currency, merchant, nowMs);
    if (idx >= 0) {
      const p = consumePendingStepUp(state, idx);
      confirmed = true;
      state.unconfirmedOutlierMs = Number.NEGATIVE_INFINITY;
      w.decision = 'APPROVE';
      w.gates.length = 0;
      w.reasons.length = 0;
      w.details.length = 0;
      w.details.push(`the STEP_UP ${p?.authorizationId ?? ''} was confirmed by the Principal`);
    } else if (w.decision === 'STEP_UP') {
      ignoredConfirmation = true;
    }
  }
  if (ignoredConfirmation) {
    w.reasons.push('step_up_confirmation_ignored');
    w.details.push('step_up_confirmed was ignored: no unexpired STEP_UP for the same amount, currency and merchant');
  }

  // Post-processing: running totals, windows, baselines.
  const decision = w.decision;
  state.auditRowsSinceRollup++;
  state.requests.push(nowMs, t.rapid_fire_max_count + 1);
  if (req.country !== null && countryNovelty(state, req.country, nowMs) > 0)
    noteNovelCountry(
      state,
      req.country,
      nowMs,
      decision !== 'APPROVE' ? NOVEL_REFUSED : confirmed ? NOVEL_CONFIRMED : NOVEL_APPROVED,
    );
  if (decision === 'APPROVE') {
    if (mandate !== null) {
      mandate.dayAmount += amount;
      mandate.dayCount++;
      mandate.monthAmount += amount;
      mandate.monthCount++;
    }
    state.approvals.push(nowMs, t.risk_velocity_max_count + 1);
    state.amounts.push(amount);
    if (risk?.large === true && !confirmed) state.lastLargeMs = nowMs;
    learnApproval(state, amount, req.currency, req.mcc, req.country, merchant, nowMs, mandate?.perTransaction ?? null);
    noteApproval(state, merchant, nowMs, state.stats.approved);
    state.stats.approved++;
    recordOutcome(state, OUTCOME_APPROVE);
  } else if (decision === 'STEP_UP') {
    state.stats.stepUps++;
    recordOutcome(state, OUTCOME_STEP_UP);
  } else {
    state.stats.declined++;
    let mandateGate = false;
    for (const g of w.gates) if (MANDATE_GATES.has(g)) mandateGate = true;
    recordOutcome(state, mandateGate ? OUTCOME_MANDATE_DECLINE : OUTCOME_OTHER_DECLINE);
    if (merchant !== '' && pointsToCompromise(w.reasons)) {
      addMerchantDecline(state, merchant);
      recordMerchantEvidence(state.principalId, merchant);
    }
  }

  const events: EngineEvent[] = [];
  const trustScore = cts !== null ? cts.score : state.lastTrustScore;
  const riskScore = risk !== null ? risk.score : null;

  // Zone change into RED / CRITICAL.
  if (cts !== null) {
    const previous: Zone = state.lastZone ?? 'GREEN';
    const type = zoneEventType(cts.zone);
    if (type !== null && previous !== cts.zone) {
      events.push({
        eventType: type,
        data: {
          agent_id: state.agentId,
          previous_zone: previous,
          current_zone: cts.zone,
          trust_score: cts.score,
          cognitive_limit_multiplier: cts.multiplier,
          dimensions: cts.dimensions,
        },
      });
    }
    state.lastZone = cts.zone;
    state.lastTrustScore = cts.score;
  }

  // Session: consecutive denials or a CRITICAL score terminate it (session.terminate once).
  if (session !== null) {
    const ended = recordInSession(
      session,
      decision === 'DECLINE' && pointsToCompromise(w.reasons),
      decision === 'APPROVE',
      cts !== null && cts.zone === 'CRITICAL',
      req.intent.taskReference,
      merchant,
      t.session_max_merchants,
      t.session_max_consecutive_denials,
      nowMs,
      req.intent.intentType,
      groupsOfMcc(req.mcc),
    );
    if (ended !== null) {
      addGate(w, 'session_terminated');
      if (!w.reasons.includes('session_terminated')) w.reasons.push('session_terminated');
      w.details.push(
        ended === 'critical_trust'
          ? `session ${req.sessionId} is terminated: the trust score is CRITICAL`
          : `session ${req.sessionId} is terminated after ${session.consecutiveDenials} consecutive declines that point to compromise (session_max_consecutive_denials ${t.session_max_consecutive_denials})`,
      );
      events.push({
        eventType: 'session.terminate',
        data: {
          agent_id: state.agentId,
          session_id: req.sessionId,
          reason: ended,
          consecutive_denials: session.consecutiveDenials,
          final_trust_score: trustScore,
        },
      });
    }
  }

  // STEP_UP issued: remember it for step_up_confirmed.
  const stepUpExpiresAtMs = nowMs + state.derived.stepUpWindowMs;
  if (decision === 'STEP_UP') {
    if (risk?.outlier === true) state.unconfirmedOutlierMs = nowMs;
    addPendingStepUp(state, {
      authorizationId,
      amount,
      currency: req.currency,
      merchant,
      expiresAtMs: stepUpExpiresAtMs,
    });
  }

  // Trust: KYA score and promotion.
  const ageHours = (nowMs - state.createdAtMs) / HOUR_MS;
  let agentUpdate: { trust_level?: string; kya_score?: string } | null = null;
  const kya = kyaScore(state.stats.approved, state.stats.declined, ageHours, t);
  if (state.kyaScore === null || Math.round(state.kyaScore * 100) !== Math.round(kya * 100)) {
    state.kyaScore = kya;
    state.kyaText = round2Text(kya);
    agentUpdate = { kya_score: state.kyaText };
  }
  if (decision === 'APPROVE') {
    const next = promotionOf(state, nowMs);
    if (next !== null) {
      const previous: TrustLevel = state.trustLevel;
      state.trustLevel = next;
      agentUpdate =
        agentUpdate === null ? { trust_level: next } : { kya_score: agentUpdate.kya_score, trust_level: next };
      events.push({
        eventType: 'trust.promotion',
        data: {
          agent_id: state.agentId,
          previous_tier: TIER_NAMES[previous],
          new_tier: TIER_NAMES[next],
          trust_score: trustScore,
          successful_txns: state.stats.approved,
          age_hours: Math.round(ageHours * 100) / 100,
        },
      });
    }
  }

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
  } else if (decision === 'STEP_UP') {
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
        expires_at: isoOf(stepUpExpiresAtMs),
        trust_score: trustScore,
        risk_score: riskScore,
      },
    });
  }

  // Response (every field of SPEC.md) and audit row.
  const multiplierUnits = cts !== null ? cts.multiplierUnits : multiplierFor(state.lastZone ?? 'GREEN', state.derived);
  if (limit === null && mandate !== null) limit = effectiveLimit(mandate.perTransaction, multiplierUnits);
  const multiplier = Number(multiplierUnits) / 1e8;
  const timestamp = isoOf(nowMs);
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
    processing_time_ms: 0,
    timestamp,
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
    },
  };
  return { decision, response, audit, events, agentUpdate };
}

export const decisionCore: DecisionCore<AgentState> = {
  load: loadAgentState,
  principalOf: (state) => state.principalId,
  evaluate,
  sizeOf: estimateStateBytes,
  maintenanceDue(state) {
    if (state.auditRowsSinceRollup < ROLLUP_AFTER_ROWS) return false;
    state.auditRowsSinceRollup = 0;
    return true;
  },
  async maintain(sql, agentId, nowMs) {
    await refreshRollup(sql, agentId, nowMs);
  },
};

export type { AgentState } from './agent-state.js';
export { setThresholdOverrides } from './state.js';
