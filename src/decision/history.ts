// Replaying an agent's newest audit rows into its state at load: windows, baselines, outcomes,
// novel countries, flagged merchants, sessions and the STEP_UPs still awaiting confirmation.

import type { Units } from '../domain/money.js';
import {
  type AgentState,
  MAX_PENDING_STEP_UPS,
  OUTCOME_APPROVE,
  OUTCOME_MANDATE_DECLINE,
  OUTCOME_OTHER_DECLINE,
  OUTCOME_STEP_UP,
  type PendingStepUp,
} from './agent-state.js';
import { isLargeAmount } from './amount-stats.js';
import { addMerchantDecline, capOf, learnApproval, MANDATE_GATES, pointsToCompromise } from './evidence.js';
import {
  countryNovelty,
  isBurst,
  NOVEL_APPROVED,
  NOVEL_CONFIRMED,
  NOVEL_REFUSED,
  noteApproval,
  noteNovelCountry,
} from './recent.js';
import { addSessionMerchant, openSession } from './sessions.js';
import { recordOutcome, zoneOf } from './state.js';
import { groupsOfMcc } from './taxonomy.js';

/** One audit row as read back at load, oldest first. */
export interface HistoryRow {
  amount: Units;
  currency: string;
  mcc?: string | null;
  country?: string | null;
  decision: string;
  reasonCodes: readonly string[];
  gatesFired: readonly string[];
  merchant: string;
  sessionId: string | null;
  trustScore: number | null;
  id: string;
  atMs: number;
  /** Migration 0211: the decision's step-up (docs/step-up-confirmation.md), if any. */
  stepUpId?: string | null;
}

/** Replays audit rows (oldest first) into windows, baselines, sessions and pending step-ups. */
export function replayHistory(state: AgentState, rows: readonly HistoryRow[], nowMs: number): void {
  const t = state.thresholds;
  let approvalsLeft = 0;
  for (const r of rows) if (r.decision === 'APPROVE') approvalsLeft++;
  const d = state.derived;
  for (const r of rows) {
    // created_at is the decision time the live state counted (src/decision/model/decision-time.ts).
    if (r.atMs > state.decidedUpToMs) state.decidedUpToMs = r.atMs;
    state.requests.push(r.atMs, t.rapid_fire_max_count + 1);
    const country = r.country ?? null;
    if (countryNovelty(state, country, r.atMs) > 0)
      noteNovelCountry(
        state,
        country as string,
        r.atMs,
        r.decision !== 'APPROVE'
          ? NOVEL_REFUSED
          : r.reasonCodes.includes('step_up_confirmed')
            ? NOVEL_CONFIRMED
            : NOVEL_APPROVED,
      );
    let outcome = OUTCOME_OTHER_DECLINE;
    if (r.decision === 'APPROVE') {
      outcome = OUTCOME_APPROVE;
      state.approvals.push(r.atMs, t.risk_velocity_max_count + 1);
      state.amounts.push(r.amount);
      if (!r.reasonCodes.includes('step_up_confirmed') && isLargeAmount(state, r.currency, r.amount))
        state.lastLargeMs = r.atMs;
      learnApproval(state, r.amount, r.currency, r.mcc ?? null, country, r.merchant, r.atMs, capOf(state, r.currency));
      // stats hold every approval already (rollup and totals): the ones before this row.
      // A burst approved without a step-up shows bursts were the agent's pace when it was
      // decided (else it would have been STEP_UP velocity_spike): the pace learned from the
      // agent's first approvals, which a reload replays only while they are among the rows read.
      if (!state.burstsNormal && !r.reasonCodes.includes('step_up_confirmed') && isBurst(state, r.merchant, r.atMs)) {
        state.burstsNormal = true;
      }
      noteApproval(state, r.merchant, r.atMs, state.stats.approved - approvalsLeft);
      approvalsLeft--;
      if (r.reasonCodes.includes('step_up_confirmed')) {
        // A step-up of step_ups is loaded from there (USED ones are not): only replayed ones here.
        if (!state.stepUpByPrincipal || !r.stepUpId) consumePending(state, r);
        state.unconfirmedOutlierMs = Number.NEGATIVE_INFINITY;
      }
    } else if (r.decision === 'STEP_UP') {
      outcome = OUTCOME_STEP_UP;
      if (r.reasonCodes.includes('amount_outlier')) state.unconfirmedOutlierMs = r.atMs;
      const fromTable = state.stepUpByPrincipal && !!r.stepUpId;
      if (!fromTable && r.atMs + d.stepUpWindowMs > nowMs && state.pendingStepUps.length < MAX_PENDING_STEP_UPS) {
        state.pendingStepUps.push({
          authorizationId: r.id,
          amount: r.amount,
          currency: r.currency,
          merchant: r.merchant,
          expiresAtMs: r.atMs + d.stepUpWindowMs,
          stepUpId: r.stepUpId ?? null,
          confirmed: false,
        });
      }
    } else {
      for (const g of r.gatesFired) if (MANDATE_GATES.has(g)) outcome = OUTCOME_MANDATE_DECLINE;
      if (r.merchant !== '' && pointsToCompromise(r.reasonCodes)) addMerchantDecline(state, r.merchant);
    }
    recordOutcome(state, outcome);
    if (r.sessionId !== null) {
      const s = openSession(state, r.sessionId, r.atMs);
      s.lastSeenMs = r.atMs;
      if (r.decision === 'DECLINE' && pointsToCompromise(r.reasonCodes)) s.consecutiveDenials++;
      else if (r.decision === 'APPROVE') {
        s.consecutiveDenials = 0;
        // As the live decision notes it (sessions.ts recordInSession): the categories paid for.
        s.groups |= groupsOfMcc(r.mcc ?? null);
      }
      if (r.gatesFired.includes('session_terminated')) s.terminated = true;
      addSessionMerchant(s, r.merchant, t.session_max_merchants);
    }
    if (r.trustScore !== null) {
      state.lastTrustScore = r.trustScore;
      state.lastZone = zoneOf(r.trustScore, t);
    }
  }
}

function consumePending(state: AgentState, r: HistoryRow): void {
  const list = state.pendingStepUps;
  for (let i = 0; i < list.length; i++) {
    const p = list[i] as PendingStepUp;
    if (p.amount === r.amount && p.currency === r.currency && p.merchant === r.merchant) {
      list.splice(i, 1);
      return;
    }
  }
}
