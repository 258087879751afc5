// Replaying an agent's newest audit rows into its state at load: each row's Outcome folded by
// the same function as the live decision (outcome.ts applyOutcome): windows, baselines,
// outcomes, novel countries, flagged merchants, sessions and the STEP_UPs still awaiting
// confirmation.

import type { Units } from '../domain/money.js';
import type { AgentState } from './agent-state.js';
import { isLargeAmount } from './amount-stats.js';
import { capOf, MANDATE_GATES, pointsToCompromise } from './evidence.js';
import type { Decision } from './model/contract.js';
import { applyOutcome, type Outcome } from './outcome.js';
import { isLimitTry } from './probing.js';
import { dropExpiredStepUps } from './step-up.js';

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
  /** The row's merchant_name (absent: none). */
  merchantName?: string | null;
  sessionId: string | null;
  trustScore: number | null;
  id: string;
  atMs: number;
  /** Migration 0211: the decision's step-up (docs/step-up-confirmation.md), if any. */
  stepUpId?: string | null;
  /** The mandate it was decided under (null: none). */
  mandateId?: string | null;
  /** Migration 0320: decided while the service's answers were slow (absent: no). */
  slowAnswers?: boolean;
  /**
   * Migration 0330: the decision was voided (audit/voids.ts): the agent was answered the safe
   * DECLINE instead, which records nothing, so the row is not replayed (absent: no).
   */
  voided?: boolean;
}

/**
 * The Outcome of an audit row, given the state folded from the rows before it: what the row
 * does not carry is judged from that state as the live decision judged it (whether an approved
 * amount was large), or taken from the mandates now loaded (the per-transaction limit of the
 * row's mandate, else of the first mandate in its currency: the shares baseline, tries at a
 * limit). The row has no task_reference or
 * intent_type (task and intentType are null), and under the 'principal' policy a STEP_UP with
 * a step-up is left to the step_ups rows load.ts reads.
 */
export function outcomeOfRow(state: AgentState, r: HistoryRow): Outcome {
  const decision = r.decision as Decision;
  const approved = decision === 'APPROVE';
  const confirmed = approved && r.reasonCodes.includes('step_up_confirmed');
  const declined = decision === 'DECLINE';
  let mandateDecline = false;
  if (declined) for (const g of r.gatesFired) if (MANDATE_GATES.has(g)) mandateDecline = true;
  const stepUpId = r.stepUpId ?? null;
  // The mandate it was decided under while load.ts still keeps it, else the first in its currency.
  const mandate = r.mandateId ? state.mandates.find((m) => m.id === r.mandateId) : undefined;
  const cap = mandate !== undefined ? mandate.perTransaction : r.mandateId === null ? null : capOf(state, r.currency);
  return {
    atMs: r.atMs,
    decision,
    amount: r.amount,
    currency: r.currency,
    mcc: r.mcc ?? null,
    country: r.country ?? null,
    merchant: r.merchant,
    merchantName: r.merchantName ?? null,
    cap,
    limitTry: isLimitTry(r.reasonCodes, r.amount, cap),
    confirmed,
    large: approved && !confirmed && isLargeAmount(state, r.currency, r.amount),
    mandateDecline,
    compromise: declined && pointsToCompromise(r.reasonCodes),
    outlier: decision === 'STEP_UP' && r.reasonCodes.includes('amount_outlier'),
    trustScore: r.trustScore,
    sessionId: r.sessionId,
    sessionEnded: r.gatesFired.includes('session_terminated'),
    task: null,
    intentType: null,
    stepUpId,
    slowAnswers: r.slowAnswers === true,
    pending:
      decision !== 'STEP_UP' || (state.stepUpByPrincipal && stepUpId !== null)
        ? null
        : {
            authorizationId: r.id,
            amount: r.amount,
            currency: r.currency,
            merchant: r.merchant,
            expiresAtMs: r.atMs + state.derived.stepUpWindowMs,
            stepUpId,
            confirmed: false,
            declined: false,
          },
  };
}

/**
 * Replays audit rows (oldest first) into the state, whose decision counts (stats) already hold
 * every row (the rollup and the totals since: load.ts); the step-ups expired at `nowMs` are
 * dropped. A voided row (audit/voids.ts) is not replayed: the agent was answered the safe
 * DECLINE, which records nothing (its approval still counts in stats, as the totals count it).
 * `truncated`: the agent has older rows than these (load.ts reads the newest RECENT_ROWS): a category group first seen in them may have been paid long before, so every
 * group they show is taken as the agent's own (no run in a new category right after such a load).
 */
export function replayHistory(state: AgentState, rows: readonly HistoryRow[], nowMs: number, truncated = false): void {
  let approvalsLeft = 0;
  for (const r of rows) if (r.decision === 'APPROVE') approvalsLeft++;
  for (const r of rows) {
    if (r.voided !== true) {
      // The approvals before this one: all the agent's approvals but this row's and those after.
      applyOutcome(state, outcomeOfRow(state, r), state.stats.approved - approvalsLeft);
    }
    if (r.decision === 'APPROVE') approvalsLeft--;
  }
  if (truncated) {
    const first = state.groupFirstMs;
    for (let i = 0; i < first.length; i++) if (!Number.isNaN(first[i] as number)) first[i] = Number.NEGATIVE_INFINITY;
  }
  dropExpiredStepUps(state, nowMs);
}
