// What a decision changes in the agent's state, as if it were committed: the running totals of
// its mandate, the time windows, the amount baselines and rings of recent requests, the outcome
// ring and the merchants its declines flag.

import {
  type AgentState,
  OUTCOME_APPROVE,
  OUTCOME_MANDATE_DECLINE,
  OUTCOME_OTHER_DECLINE,
  OUTCOME_STEP_UP,
} from './agent-state.js';
import { addMerchantDecline, learnApproval, MANDATE_GATES, pointsToCompromise } from './evidence.js';
import type { AuthorizeRequest } from './model/contract.js';
import { spendBudget } from './principal-budget.js';
import { recordMerchantEvidence } from './principal-evidence.js';
import {
  countryNovelty,
  NOVEL_APPROVED,
  NOVEL_CONFIRMED,
  NOVEL_REFUSED,
  noteApproval,
  noteNovelCountry,
} from './recent.js';
import { recordOutcome } from './state.js';
import type { Work } from './work.js';

/** Post-processing: running totals, windows, baselines. */
export function recordDecision(state: AgentState, req: AuthorizeRequest, w: Work, nowMs: number): void {
  const t = state.thresholds;
  const { amount, merchant, mandate, risk, confirmed } = w;
  const decision = w.decision;
  state.auditRowsSinceRollup++;
  if (nowMs > state.decidedUpToMs) state.decidedUpToMs = nowMs;
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
      mandate.weekAmount += amount;
      mandate.monthAmount += amount;
      mandate.monthCount++;
      mandate.yearAmount += amount;
      mandate.totalAmount += amount;
    }
    spendBudget(state, req, amount, nowMs);
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
}
