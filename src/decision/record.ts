// What a decision changes in the agent's state, as if it were committed: the Outcome of the
// request folded into its windows, baselines, rings, sessions and step-ups (outcome.ts, the
// same fold a reload replays the audit rows with), then the counts a reload reads as sums
// instead: the decision counts, the running totals of its mandate, its slice of the Principal
// budget and the Principal's merchant evidence.

import type { AgentState, PendingStepUp } from './agent-state.js';
import { MANDATE_GATES, pointsToCompromise } from './evidence.js';
import { noteTermsApproval } from './mandate-terms.js';
import type { AuthorizeRequest } from './model/contract.js';
import { applyOutcome, type Outcome } from './outcome.js';
import { spendBudget } from './principal-budget.js';
import { recordMerchantEvidence } from './principal-evidence.js';
import { isLimitTry } from './probing.js';
import type { Work } from './work.js';

/**
 * The Outcome of a live decision. `pending` is the STEP_UP the state remembers for
 * step_up_confirmed (follow-up.ts stepUpToRemember), null for other decisions.
 */
export function outcomeOfWork(req: AuthorizeRequest, w: Work, nowMs: number, pending: PendingStepUp | null): Outcome {
  const decision = w.decision;
  const declined = decision === 'DECLINE';
  const cap = w.mandate?.perTransaction ?? null;
  let mandateDecline = false;
  if (declined) for (const g of w.gates) if (MANDATE_GATES.has(g)) mandateDecline = true;
  return {
    atMs: nowMs,
    decision,
    amount: w.amount,
    currency: req.currency,
    mcc: req.mcc,
    country: req.country,
    merchant: w.merchant,
    merchantName: req.merchantName,
    cap,
    limitTry: isLimitTry(w.reasons, w.amount, cap),
    confirmed: w.confirmed,
    large: decision === 'APPROVE' && w.risk?.large === true,
    mandateDecline,
    compromise: declined && pointsToCompromise(w.reasons),
    outlier: decision === 'STEP_UP' && w.risk?.outlier === true,
    trustScore: w.cts === null ? null : w.cts.score,
    sessionId: req.sessionId,
    sessionEnded: w.gates.includes('session_terminated'),
    task: req.intent.taskReference,
    intentType: req.intent.intentType,
    stepUpId: w.stepUpId,
    slowAnswers: w.slowAnswers,
    pending,
  };
}

/** Post-processing: the decision's Outcome folded into the state, then its counts and totals. */
export function recordDecision(
  state: AgentState,
  req: AuthorizeRequest,
  w: Work,
  nowMs: number,
  pending: PendingStepUp | null,
): void {
  applyOutcome(state, outcomeOfWork(req, w, nowMs, pending), state.stats.approved);
  countDecision(state, req, w, nowMs);
}

/**
 * The counts and totals of a decision that a reload reads as sums over every audit row (the
 * rollup and the rows since, windows.ts, the Principal budget) rather than from its newest rows.
 */
function countDecision(state: AgentState, req: AuthorizeRequest, w: Work, nowMs: number): void {
  const { amount, merchant, mandate } = w;
  state.auditRowsSinceRollup++;
  if (w.decision === 'APPROVE') {
    if (mandate !== null) {
      mandate.dayAmount += amount;
      mandate.dayCount++;
      mandate.weekAmount += amount;
      mandate.monthAmount += amount;
      mandate.monthCount++;
      mandate.yearAmount += amount;
      mandate.totalAmount += amount;
      if (mandate.terms !== null) noteTermsApproval(mandate.terms, req.merchantId);
    }
    spendBudget(state, req, amount, nowMs);
    state.stats.approved++;
  } else if (w.decision === 'STEP_UP') {
    state.stats.stepUps++;
  } else {
    state.stats.declined++;
    if (merchant !== '' && pointsToCompromise(w.reasons)) recordMerchantEvidence(state.principalId, merchant);
  }
}
