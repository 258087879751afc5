// Deciding again from a decision's stored scores under other thresholds: the backtest of
// POST /thresholds/backtest replays the audit rows with it, and shadow thresholds run it on live
// traffic next to the real decision (docs/decision-engine.md "Backtests and shadow thresholds").
//
// Only the thresholds that act on a score already computed are replayed: the risk_score
// cut-offs, the CTS zone bounds and their limit multipliers, and the intent-anomaly cut-off. A
// change to any of them on a stored score is exact. The other thresholds change the scores
// themselves or the agent's sequential state (windows, baselines, sessions, trust promotion),
// which the stored row cannot re-create: they are not replayable.
import { formatAmount, fromDb, type Units } from '../domain/money.js';
import type { AgentState, MandateState } from './agent-state.js';
import { assessIntent } from './intent.js';
import type { AuthorizeRequest, Decision } from './model/contract.js';
import { shadowThresholdsOf } from './model/replayable.js';
import { type ThresholdOverrides, type Thresholds, thresholdsVersion } from './model/thresholds.js';
import type { Gate } from './reasons.js';
import { FIXED, type ReplayInputs, type ReplayThresholds, type ShadowSet } from './replay-inputs.js';
import type { RiskResult } from './risk.js';
import { derive, zoneOf } from './state.js';
import { computeCts, effectiveLimit } from './trust.js';
import type { Work } from './work.js';

export { FIXED, type ReplayInputs, type ReplayThresholds, type ShadowSet } from './replay-inputs.js';

export function replayThresholds(t: Thresholds): ReplayThresholds {
  const d = derive(t);
  return { t, amber: d.multiplierAmber, red: d.multiplierRed };
}

export interface Redecision {
  readonly decision: Decision;
  /** Gates of stages 2 to 4 in pipeline order (empty for APPROVE). */
  readonly gates: Gate[];
}

/**
 * The trust and intent-anomaly scores of a request that risk_score_hard_decline declined: the
 * pipeline stops there, so they are computed for the replay only (not in the response). Called
 * on the hot path for hard declines only.
 */
export function scoresPastHardDecline(
  state: AgentState,
  req: AuthorizeRequest,
  risk: RiskResult,
  w: Work,
): { trust: number; intent: number } {
  const intent = assessIntent(state, req, w.session, w.merchant, state.thresholds.intent_anomaly_threshold);
  const cts = computeCts(state, req, risk, intent, w.session, w.merchant);
  return { trust: cts.score, intent: intent.score };
}

/** max_amount_per_transaction as text per mandate (mandates do not change while loaded). */
const LIMIT_TEXT = new WeakMap<MandateState, string>();

function limitText(m: MandateState): string {
  let text = LIMIT_TEXT.get(m);
  if (text === undefined) {
    text = formatAmount(m.perTransaction);
    LIMIT_TEXT.set(m, text);
  }
  return text;
}

/** The replay inputs of the decision in `w` (after the gates and the step-up confirmation). */
export function replayInputsOf(w: Work): ReplayInputs {
  const { risk, mandate } = w;
  if (risk === null || mandate === null || risk.rapidFire) return FIXED;
  const trust = w.cts !== null ? w.cts.score : w.pastHardDecline?.trust;
  const intent = w.intent !== null ? w.intent.score : w.pastHardDecline?.intent;
  if (trust === undefined || intent === undefined) return FIXED;
  return {
    risk_score: risk.score,
    velocity: risk.velocity,
    outlier: risk.outlier,
    country_jump: risk.jump,
    probing: risk.probing,
    lookalike: risk.lookalike,
    category_run: risk.categoryRun,
    trust_score: trust,
    intent_anomaly_score: intent,
    per_transaction_limit: limitText(mandate),
    confirmed: w.confirmed,
  };
}

/**
 * Reads stored replay inputs (explanation.replay of an audit row); null when the row has none
 * or they are not of this shape (rows recorded before they were kept, safe decisions).
 */
export function readReplayInputs(stored: unknown): ReplayInputs | null {
  if (typeof stored !== 'object' || stored === null) return null;
  const r = stored as Record<string, unknown>;
  if (r.fixed === true) return FIXED;
  if (
    typeof r.risk_score !== 'number' ||
    typeof r.trust_score !== 'number' ||
    typeof r.intent_anomaly_score !== 'number' ||
    typeof r.per_transaction_limit !== 'string' ||
    typeof r.velocity !== 'boolean' ||
    typeof r.outlier !== 'boolean' ||
    typeof r.country_jump !== 'boolean' ||
    typeof r.confirmed !== 'boolean'
  ) {
    return null;
  }
  return r as ReplayInputs;
}

function add(gates: Gate[], g: Gate): void {
  if (!gates.includes(g)) gates.push(g);
}

/**
 * Decides stages 2 to 4 again from `inputs` (not FIXED) under `rt`, as gates.ts does: a hard
 * decline stops; velocity, outlier, country jump and an elevated risk_score step up; the trust
 * zone of trust_score declines (CRITICAL, RED above the effective limit) or steps up (RED, AMBER
 * above it); the intent anomaly declines what is not declined yet; a matched step_up_confirmed
 * turns what is not a DECLINE into APPROVE.
 */
export function redecide(
  inputs: Exclude<ReplayInputs, { fixed: true }>,
  amount: Units,
  rt: ReplayThresholds,
): Redecision {
  const t = rt.t;
  const gates: Gate[] = [];
  let decision: Decision = 'APPROVE';
  if (inputs.risk_score >= t.risk_score_hard_decline) {
    return { decision: 'DECLINE', gates: ['risk_score'] };
  }
  if (inputs.velocity) add(gates, 'risk_velocity');
  if (inputs.outlier) add(gates, 'risk_amount_outlier');
  if (inputs.country_jump || inputs.probing === true || inputs.lookalike === true || inputs.category_run === true)
    add(gates, 'risk_score');
  if (inputs.risk_score >= t.authorize_step_up_threshold) add(gates, 'risk_score');
  if (gates.length > 0) decision = 'STEP_UP';

  const zone = zoneOf(inputs.trust_score, t);
  if (zone === 'CRITICAL') {
    decision = 'DECLINE';
    add(gates, 'cognitive_decline');
  } else if (zone === 'RED' || zone === 'AMBER') {
    const perTransaction = fromDb(inputs.per_transaction_limit) ?? 0n;
    const over = amount > effectiveLimit(perTransaction, zone === 'RED' ? rt.red : rt.amber);
    if (zone === 'RED' && over) decision = 'DECLINE';
    else if (zone === 'RED' || over) decision = 'STEP_UP';
    if (zone === 'RED' || over) add(gates, 'cognitive_decline');
  }
  if (decision !== 'DECLINE' && inputs.intent_anomaly_score >= t.intent_anomaly_threshold) {
    decision = 'DECLINE';
    add(gates, 'intent_anomaly');
  }
  if (inputs.confirmed && decision !== 'DECLINE') return { decision: 'APPROVE', gates: [] };
  return { decision, gates };
}

/** The shadow decision of a live request: `w` after the gates, under the shadow thresholds. */
export function shadowDecision(w: Work, inputs: ReplayInputs, rt: ReplayThresholds): Redecision {
  if (inputs.fixed === true) return { decision: w.decision, gates: w.gates.slice() };
  return redecide(inputs, w.amount, rt);
}

const SHADOW_SETS = new Map<string, ShadowSet>();
/** Distinct shadow sets kept per thread before the map is cleared (each agent keeps its own reference). */
const MAX_SHADOW_SETS = 1000;

/**
 * The shadow thresholds of a Principal: its live overrides with the shadow overrides over them
 * (null: no shadow set, or an empty one). Interned, so the agents of one Principal share one
 * object and an agent's state grows by a reference only.
 */
export function shadowSetOf(
  live: ThresholdOverrides,
  shadow: Readonly<Record<string, unknown>> | null | undefined,
): ShadowSet | null {
  const t = shadowThresholdsOf(live, shadow);
  if (t === null) return null;
  const version = thresholdsVersion(t);
  let set = SHADOW_SETS.get(version);
  if (set === undefined) {
    if (SHADOW_SETS.size >= MAX_SHADOW_SETS) SHADOW_SETS.clear();
    set = { ...replayThresholds(t), version };
    SHADOW_SETS.set(version, set);
  }
  return set;
}
