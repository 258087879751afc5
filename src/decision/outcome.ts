// One decided request as the agent's state learns from it, and the one fold that applies it.
// The live decision (record.ts, from the request and the Work of the pipeline) and the reload
// from the audit log (history.ts, from the agent's newest audit rows) both build an Outcome and
// call applyOutcome, so a state rebuilt from its rows is the state its live decisions built,
// except for what an audit row does not carry: the fields marked "live only" below, and what
// docs/decision-engine.md "One fold: live and reload" lists. test/properties/fold.test.ts
// checks it field by field over random sequences of decisions.
//
// What the fold leaves out is restored at load by other reads, not by replaying rows: the
// all-time counts and the mandates' running totals (SQL sums over every row: rollup.ts,
// windows.ts), the Principal budget (principal-budget.ts), the KYA score and trust level (the
// agent row). The live decision counts those in record.ts countDecision.

import type { Units } from '../domain/money.js';
import {
  type AgentState,
  OUTCOME_APPROVE,
  OUTCOME_MANDATE_DECLINE,
  OUTCOME_OTHER_DECLINE,
  OUTCOME_STEP_UP,
  type PendingStepUp,
} from './agent-state.js';
import { addMerchantDecline, learnApproval } from './evidence.js';
import { taskRoot } from './intent.js';
import type { Decision } from './model/contract.js';
import { noteTry } from './probing.js';
import {
  approvalsSince,
  countryNovelty,
  isBurst,
  NOVEL_APPROVED,
  NOVEL_CONFIRMED,
  NOVEL_REFUSED,
  noteNovelCountry,
  notePaidGroups,
  noteRequest,
  PACE_WINDOW_MS,
} from './recent.js';
import { addSessionMerchant, openSession } from './sessions.js';
import { recordOutcome, zoneOf } from './state.js';
import { ANY_STEP_UP, addPendingStepUp, dropExpiredStepUps, findPendingStepUp } from './step-up.js';
import { groupsOfMcc } from './taxonomy.js';

/** Approvals skipped from pace learning for slow answers at most, in amount_outlier_min_history. */
export const PACE_SKIP_FACTOR = 4;

/** What the fold needs about one decided request (live: record.ts outcomeOfWork; reload: history.ts outcomeOfRow). */
export interface Outcome {
  /** Decision time, ms (the audit row's created_at). */
  readonly atMs: number;
  readonly decision: Decision;
  readonly amount: Units;
  readonly currency: string;
  readonly mcc: string | null;
  /** Alpha-3 or null. */
  readonly country: string | null;
  /** Merchant key (state.ts merchantKeyOf; '' when the request names no merchant). */
  readonly merchant: string;
  /** The merchant's name as the request gave it (the known names, lookalike.ts). */
  readonly merchantName: string | null;
  /** Per-transaction limit of the mandate it was decided under (the shares baseline); null: none. */
  readonly cap: Units | null;
  /** A try at a limit: refused by one, or approved just below one (probing.ts isLimitTry). */
  readonly limitTry: boolean;
  /** An APPROVE that a confirmed STEP_UP cleared (reason code step_up_confirmed). */
  readonly confirmed: boolean;
  /** An APPROVE of an amount large for the agent (amount-stats.ts isLargeAmount, as risk.ts judged it). */
  readonly large: boolean;
  /** A DECLINE by a mandate gate (evidence.ts MANDATE_GATES: the mandate_compliance dimension). */
  readonly mandateDecline: boolean;
  /** A DECLINE that points to compromise (evidence.ts pointsToCompromise). */
  readonly compromise: boolean;
  /** A STEP_UP for amount_outlier. */
  readonly outlier: boolean;
  /** The trust score of the decision (the audit row's trust_score); null: none. */
  readonly trustScore: number | null;
  readonly sessionId: string | null;
  /** The request ended its session or came in a terminated one (gate session_terminated). */
  readonly sessionEnded: boolean;
  /**
   * The request's task_reference and intent_type, which a new session takes. Live only: the
   * audit row has neither, so a reloaded session has none until its next request.
   */
  readonly task: string | null;
  readonly intentType: string | null;
  /** The step-up of the decision (Work.stepUpId, the row's step_up_id); null: none. */
  readonly stepUpId: string | null;
  /** Decided while the service's answers were slow (Work.slowAnswers, the row's answers_slow). */
  readonly slowAnswers: boolean;
  /**
   * The STEP_UP the state remembers for step_up_confirmed; null: none, or (a reload under the
   * 'principal' policy) one that load.ts reads from step_ups instead.
   */
  readonly pending: PendingStepUp | null;
}

/**
 * Applies one decided request to the agent's state: the windows of requests and approvals,
 * the tries at a limit (probing.ts), the outcome ring, what approvals teach (amounts, baselines, countries, categories, known
 * merchants, the ring of recent approvals and the agent's pace), requests in new countries,
 * flagged merchants, the session, the step-ups awaiting confirmation, the large amounts and
 * outliers not confirmed, and the last trust score. `approvedBefore` is the agent's all-time
 * count of approvals before this one (its pace is learned from its first approvals).
 */
export function applyOutcome(state: AgentState, o: Outcome, approvedBefore: number): void {
  const t = state.thresholds;
  const approved = o.decision === 'APPROVE';
  if (o.atMs > state.decidedUpToMs) state.decidedUpToMs = o.atMs;
  state.requests.push(o.atMs, t.rapid_fire_max_count + 1);
  if (o.limitTry) noteTry(state, o.amount, o.atMs);
  if (o.country !== null && countryNovelty(state, o.country, o.atMs) > 0)
    noteNovelCountry(
      state,
      o.country,
      o.atMs,
      !approved ? NOVEL_REFUSED : o.confirmed ? NOVEL_CONFIRMED : NOVEL_APPROVED,
    );

  if (approved) {
    state.approvals.push(o.atMs, t.risk_velocity_max_count + 1);
    state.amounts.push(o.amount);
    if (o.large && !o.confirmed) state.lastLargeMs = o.atMs;
    learnApproval(state, o.amount, o.currency, o.mcc, o.country, o.merchant, o.merchantName, o.atMs, o.cap);
    // While the agent's pace is being learned, an approval made while our answers were slow does
    // not count towards it: an agent that waits for each answer was paced by us, and its own,
    // faster pace afterwards would be judged a spike (the issue of a slow database).
    // At most PACE_SKIP_FACTOR x amount_outlier_min_history are skipped (a slowdown of some
    // seconds gives a new agent a dozen slow approvals): a database always that slow, far away
    // say, paces every answer, and the learning must end some time.
    const learning = approvedBefore - state.paceSkipped < t.amount_outlier_min_history;
    if (learning && o.slowAnswers && state.paceSkipped < PACE_SKIP_FACTOR * t.amount_outlier_min_history)
      state.paceSkipped++;
    // Bursts are the agent's pace when it had one while its pace was being learned, or when a
    // burst was approved without a confirmed STEP_UP (else risk.ts would have stepped it up for
    // velocity_spike): what a reload still sees after the agent's first approvals left its rows.
    if (!state.burstsNormal && (learning || !o.confirmed) && isBurst(state, o.merchant, o.atMs))
      state.burstsNormal = true;
    // The agent's own pace: the most approvals it had within PACE_WINDOW_MS, this one included.
    const paced = approvalsSince(state, o.atMs - PACE_WINDOW_MS) + 1;
    if (paced > state.paceMax) state.paceMax = paced;
    const groups = groupsOfMcc(o.mcc);
    notePaidGroups(state, groups, o.atMs, !learning, o.confirmed);
    noteRequest(state, o.merchant, o.atMs, groups);
    if (o.confirmed) {
      // The STEP_UP it cleared is used: by its step-up id under the 'principal' policy, else the
      // oldest unexpired one for the same amount, currency and merchant (gates.ts confirmStepUp).
      const i =
        o.stepUpId !== null
          ? indexOfStepUp(state, o.stepUpId)
          : findPendingStepUp(state, o.amount, o.currency, o.merchant, o.atMs, ANY_STEP_UP);
      if (i >= 0) state.pendingStepUps.splice(i, 1);
      state.unconfirmedOutlierMs = Number.NEGATIVE_INFINITY;
    }
    recordOutcome(state, OUTCOME_APPROVE);
  } else if (o.decision === 'STEP_UP') {
    if (o.outlier) state.unconfirmedOutlierMs = o.atMs;
    if (o.pending !== null) {
      dropExpiredStepUps(state, o.atMs);
      addPendingStepUp(state, o.pending);
    }
    recordOutcome(state, OUTCOME_STEP_UP);
  } else {
    recordOutcome(state, o.mandateDecline ? OUTCOME_MANDATE_DECLINE : OUTCOME_OTHER_DECLINE);
    if (o.compromise && o.merchant !== '') addMerchantDecline(state, o.merchant);
  }

  if (o.sessionId !== null) {
    const s = openSession(state, o.sessionId, o.atMs);
    s.lastSeenMs = o.atMs;
    if (s.task === null && o.task !== null) {
      s.task = o.task;
      s.root = taskRoot(o.task);
      s.intentType = o.intentType ?? '';
      s.chars += o.task.length + s.root.length + s.intentType.length;
    }
    if (approved) s.groups |= groupsOfMcc(o.mcc);
    if (approved) addSessionMerchant(s, o.merchant, t.session_max_merchants);
    if (o.compromise) s.consecutiveDenials++;
    else if (approved) s.consecutiveDenials = 0;
    if (o.sessionEnded) s.terminated = true;
  }

  if (o.trustScore !== null) {
    state.lastTrustScore = o.trustScore;
    state.lastZone = zoneOf(o.trustScore, t);
  }
}

function indexOfStepUp(state: AgentState, stepUpId: string): number {
  const list = state.pendingStepUps;
  for (let i = 0; i < list.length; i++) if ((list[i] as PendingStepUp).stepUpId === stepUpId) return i;
  return -1;
}
