// The decision core: the pipeline of SPEC.md "POST /authorize" in order, short-circuiting
// on a DECLINE (gates.ts), then post-processing: whether the request ends its session and the
// STEP_UP it opens (follow-up.ts), the agent's state (record.ts: the decision's Outcome folded
// as a reload folds its audit row, outcome.ts), the events of the trust zone and session, KYA
// and promotion (follow-up.ts), and the response, audit row and events (respond.ts).
// docs/decision-engine.md is the integrator's description of these files.
//
// Hot path: one call per authorization on the shard thread that owns the agent. No closures,
// no regex compilation, no I/O; the objects built here are the response, the audit row and
// the events the worker needs anyway, and the decision's Outcome (one flat object).

import { newId } from '../domain/ids.js';
import { parseAmount } from '../domain/money.js';
import type { AgentState } from './agent-state.js';
import { budgetEvents } from './caps.js';
import { explainDecision } from './explain.js';
import { endSession, followUp, stepUpToRemember } from './follow-up.js';
import { confirmStepUp, runGates } from './gates.js';
import { loadAgentState } from './load.js';
import { estimateStateBytes } from './memory.js';
import type { AuthorizeRequest, DecisionCore, Evaluation } from './model/contract.js';
import { ROLLUP_AFTER_ROWS, refreshRollup } from './model/rollup.js';
import { STAGE_GATES_END, STAGE_MANDATE, STAGE_RECORD_END, STAGE_SLOTS } from './model/timing.js';
import { budgetLow, budgetNeed, grantBudget, poolAvailable, returnBudget, takeSlack } from './principal-budget.js';
import { recordDecision } from './record.js';
import { respond } from './respond.js';
import { openSession } from './sessions.js';
import { merchantKeyOf } from './state.js';
import { declinedByPerson } from './step-up.js';
import { replayInputsOf, shadowDecision } from './threshold-eval.js';
import { applyCredit } from './windows.js';
import { mark, type Work } from './work.js';

/**
 * Decides one authorization and updates `state` as if the decision were committed. `inspect`
 * (the dry run, explain.ts) sees the verdict once the gates and a step-up confirmation ran and
 * before anything is recorded in `state`. `slowAnswers`: the service's answers are slow now
 * (DecisionCore.evaluate).
 */
export function evaluate(
  state: AgentState,
  req: AuthorizeRequest,
  nowMs: number,
  inspect?: (w: Work) => void,
  slowAnswers = false,
): Evaluation {
  const amount = parseAmount(req.amount) ?? 0n;
  const merchant = merchantKeyOf(req.merchantId, req.merchantName);
  const authorizationId = newId('auth');
  const w: Work = {
    decision: 'APPROVE',
    gates: [],
    reasons: [],
    details: [],
    stepUpGates: 0,
    authorizationId,
    amount,
    merchant,
    session: req.sessionId === null ? null : openSession(state, req.sessionId, nowMs),
    mandate: null,
    risk: null,
    intent: null,
    cts: null,
    limit: null,
    confirmed: false,
    stepUpId: null,
    stepUpOpened: false,
    stepUpExpiresAtMs: 0,
    events: [],
    slowAnswers,
    marks: new Float64Array(STAGE_SLOTS),
  };
  mark(w, STAGE_MANDATE);
  runGates(state, req, w, nowMs);
  mark(w, STAGE_GATES_END);
  if (!declinedByPerson(state, req, w, nowMs)) confirmStepUp(state, req, w, nowMs);
  w.replay = replayInputsOf(w);
  if (state.shadow) w.shadow = { ...shadowDecision(w, w.replay, state.shadow), version: state.shadow.version };
  inspect?.(w);
  // The trust score of the response and events: this decision's, else the agent's last one.
  const trustScore = w.cts !== null ? w.cts.score : state.lastTrustScore;
  const previousZone = state.lastZone;
  const stepUpExpiresAtMs = nowMs + state.derived.stepUpWindowMs;
  const ended = endSession(state, req, w);
  recordDecision(state, req, w, nowMs, stepUpToRemember(state, req, w, stepUpExpiresAtMs, nowMs));
  budgetEvents(state.agentId, req, w);
  const agentUpdate = followUp(state, req, w, trustScore, previousZone, ended, nowMs);
  const ev = respond(state, req, w, trustScore, stepUpExpiresAtMs, agentUpdate, nowMs);
  mark(w, STAGE_RECORD_END);
  return ev;
}

export const decisionCore: DecisionCore<AgentState> = {
  load: loadAgentState,
  principalOf: (state) => state.principalId,
  decidedUpTo: (state) => state.decidedUpToMs,
  evaluate: (state, req, nowMs, slowAnswers) => evaluate(state, req, nowMs, undefined, slowAnswers),
  explain: (state, req, nowMs, budgetLent) => explainDecision(state, req, nowMs, evaluate, budgetLent),
  sizeOf: estimateStateBytes,
  credit: applyCredit,
  maintenanceDue(state) {
    if (state.auditRowsSinceRollup < ROLLUP_AFTER_ROWS) return false;
    state.auditRowsSinceRollup = 0;
    return true;
  },
  async maintain(sql, agentId, nowMs) {
    await refreshRollup(sql, agentId, nowMs);
  },
  escrow: {
    need: budgetNeed,
    grant: (sql, state, need, req, nowMs) =>
      grantBudget(sql, state, need, parseAmount(req.amount) ?? 0n, req.fence, nowMs),
    available: poolAvailable,
    low: budgetLow,
    takeSlack,
    giveBack: returnBudget,
  },
};

// The core's face for what replays decisions outside a shard (the quality harness, tests):
// a fresh agent's state, a mandate read from its row, the thresholds' overrides, and a start
// from no Principal-wide merchant evidence (each replay as a fresh service).
export type { AgentState, MandateState } from './agent-state.js';
// The two detectors the quality harness measures on their own labeled sets (bench/quality/detectors.ts).
export { detectInjection } from './injection.js';
export { imitatesKnown, knownNamesOf, nameWords } from './lookalike.js';
export { mandateFromRow } from './mandate-row.js';
export { isoOf } from './model/calendar.js';
export { clearMerchantEvidence } from './principal-evidence.js';
export { newAgentState, setThresholdOverrides } from './state.js';
// The category groups of an MCC, for the imitation limit's labels (bench/quality/limit.ts).
export { groupsOfMcc } from './taxonomy.js';
