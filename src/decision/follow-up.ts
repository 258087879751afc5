// What follows a decision beyond the agent's windows, with the events it emits: a change of
// trust zone into RED or CRITICAL, the end of a session, the STEP_UP remembered for
// step_up_confirmed, and the KYA score and trust tier of the agent.
import { newId } from '../domain/ids.js';
import { hashStepUpCode, newStepUpCode } from '../domain/step-up-code.js';
import type { AgentState, PendingStepUp, TrustLevel, Zone } from './agent-state.js';
import { pointsToCompromise } from './evidence.js';
import type { AuthorizeRequest } from './model/contract.js';
import { recordInSession } from './sessions.js';
import { addPendingStepUp, findPendingStepUp, UNCONFIRMED_STEP_UP } from './step-up.js';
import { groupsOfMcc } from './taxonomy.js';
import { kyaScore, promotionOf, TIER_NAMES } from './trust.js';
import { addGate, type Work } from './work.js';

const HOUR_MS = 3_600_000;

function zoneEventType(zone: Zone): string | null {
  return zone === 'RED' ? 'cts.red' : zone === 'CRITICAL' ? 'cts.critical' : null;
}

function round2Text(n: number): string {
  return n.toFixed(2);
}

/**
 * A STEP_UP under the 'principal' policy (docs/step-up-confirmation.md): the same request asking
 * again while its step-up awaits the Principal gets that step-up back (no new code is sent);
 * otherwise a step-up is opened with a one-time code, whose hash the decision's audit row
 * carries into step_ups (migrations/0211) and whose code only step_up.created carries.
 */
function openStepUp(state: AgentState, req: AuthorizeRequest, w: Work, expiresAtMs: number, nowMs: number): void {
  const idx = findPendingStepUp(state, w.amount, req.currency, w.merchant, nowMs, UNCONFIRMED_STEP_UP);
  const open = idx >= 0 ? (state.pendingStepUps[idx] as PendingStepUp) : null;
  if (open !== null && open.stepUpId !== null) {
    w.stepUpId = open.stepUpId;
    w.stepUpExpiresAtMs = open.expiresAtMs;
    return;
  }
  const id = newId('stp');
  const code = newStepUpCode();
  w.stepUpId = id;
  w.stepUpCode = code;
  w.stepUpCodeHash = hashStepUpCode(id, code);
  w.stepUpExpiresAtMs = expiresAtMs;
  addPendingStepUp(state, {
    authorizationId: w.authorizationId,
    amount: w.amount,
    currency: req.currency,
    merchant: w.merchant,
    expiresAtMs,
    stepUpId: id,
    confirmed: false,
  });
}

/**
 * Applies the follow-ups of the decision in `w` and pushes their events to `w.events`; returns
 * the agent row's update (KYA score, trust level), or null when neither changed.
 */
export function followUp(
  state: AgentState,
  req: AuthorizeRequest,
  w: Work,
  trustScore: number | null,
  stepUpExpiresAtMs: number,
  nowMs: number,
): { trust_level?: string; kya_score?: string } | null {
  const t = state.thresholds;
  const decision = w.decision;
  const { amount, merchant, risk, cts, session, authorizationId, events } = w;
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
  if (decision === 'STEP_UP') {
    if (risk?.outlier === true) state.unconfirmedOutlierMs = nowMs;
    if (state.stepUpByPrincipal) openStepUp(state, req, w, stepUpExpiresAtMs, nowMs);
    else {
      addPendingStepUp(state, {
        authorizationId,
        amount,
        currency: req.currency,
        merchant,
        expiresAtMs: stepUpExpiresAtMs,
        stepUpId: null,
        confirmed: false,
      });
    }
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
  return agentUpdate;
}
