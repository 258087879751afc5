// The decision core: the pipeline of SPEC.md "POST /authorize" in order, short-circuiting
// on a DECLINE (gates.ts), then post-processing: the agent's state (record.ts), trust zone,
// sessions, step-ups, KYA and promotion (follow-up.ts), and the response, audit row and
// events (respond.ts). docs/decision-engine.md is the integrator's description of these files.
//
// Hot path: one call per authorization on the shard thread that owns the agent. No closures,
// no regex compilation, no I/O; the objects built here are the response, the audit row and
// the events the worker needs anyway.
import { newId } from '../../domain/ids.js';
import { parseAmount } from '../../domain/money.js';
import type { AuthorizeRequest, DecisionCore, Evaluation } from '../contract.js';
import type { AgentState } from './agent-state.js';
import { budgetEvents } from './caps.js';
import { followUp } from './follow-up.js';
import { confirmStepUp, runGates } from './gates.js';
import { loadAgentState } from './load.js';
import { estimateStateBytes } from './memory.js';
import { budgetLow, budgetNeed, grantBudget, returnBudget, takeSlack } from './principal-budget.js';
import { recordDecision } from './record.js';
import { respond } from './respond.js';
import { ROLLUP_AFTER_ROWS, refreshRollup } from './rollup.js';
import { openSession } from './sessions.js';
import { merchantKeyOf } from './state.js';
import type { Work } from './work.js';

/** Decides one authorization and updates `state` as if the decision were committed. */
export function evaluate(state: AgentState, req: AuthorizeRequest, nowMs: number): Evaluation {
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
    events: [],
  };
  runGates(state, req, w, nowMs);
  confirmStepUp(state, req, w, nowMs);
  recordDecision(state, req, w, nowMs);
  budgetEvents(state.agentId, req, w);
  // The trust score of the response and events: this decision's, else the agent's last one.
  const trustScore = w.cts !== null ? w.cts.score : state.lastTrustScore;
  const stepUpExpiresAtMs = nowMs + state.derived.stepUpWindowMs;
  const agentUpdate = followUp(state, req, w, trustScore, stepUpExpiresAtMs, nowMs);
  return respond(state, req, w, trustScore, stepUpExpiresAtMs, agentUpdate, nowMs);
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
  escrow: {
    need: (state, req, nowMs) => budgetNeed(state, req, parseAmount(req.amount) ?? 0n, nowMs),
    grant: (sql, state, need, req, nowMs) =>
      grantBudget(sql, state, need, parseAmount(req.amount) ?? 0n, req.fence, nowMs),
    low: budgetLow,
    takeSlack,
    giveBack: returnBudget,
  },
};

// Imported from here by tests and the quality harness.
export type { AgentState } from './agent-state.js';
export { isoOf } from './calendar.js';
export { setThresholdOverrides } from './state.js';
