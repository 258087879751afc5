// What follows a decision beyond the agent's windows: before it is recorded, whether the
// request ends its session and which STEP_UP it opens for step_up_confirmed (both part of its
// Outcome, outcome.ts); after, the events of a change of trust zone into RED or CRITICAL and of
// the end of a session, and the KYA score and trust tier of the agent.

import type { TrustLevel } from '../domain/decision.js';
import { newId } from '../domain/ids.js';
import type { AgentState, PendingStepUp, Zone } from './agent-state.js';
import { pointsToCompromise } from './evidence.js';
import type { AuthorizeRequest } from './model/contract.js';
import { sessionEnds, type TerminationReason } from './sessions.js';
import { findPendingStepUp, UNCONFIRMED_STEP_UP } from './step-up.js';
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
 * Whether the request ends its session: consecutive DECLINEs that point to compromise reach
 * session_max_consecutive_denials, or the trust score is CRITICAL. Adds the gate, reason code
 * and detail session_terminated to the decision; the event follows once it is recorded (followUp).
 */
export function endSession(state: AgentState, req: AuthorizeRequest, w: Work): TerminationReason | null {
  const session = w.session;
  if (session === null) return null;
  const t = state.thresholds;
  // The count of consecutive declines with this request (outcome.ts applyOutcome counts it so).
  const denials =
    w.decision === 'DECLINE' && pointsToCompromise(w.reasons)
      ? session.consecutiveDenials + 1
      : w.decision === 'APPROVE'
        ? 0
        : session.consecutiveDenials;
  const critical = w.cts !== null && w.cts.zone === 'CRITICAL';
  const ended = sessionEnds(session, denials, critical, t.session_max_consecutive_denials);
  if (ended !== null) {
    addGate(w, 'session_terminated');
    if (!w.reasons.includes('session_terminated')) w.reasons.push('session_terminated');
    w.details.push(
      ended === 'critical_trust'
        ? `session ${req.sessionId} is terminated: the trust score is CRITICAL`
        : `session ${req.sessionId} is terminated after ${denials} consecutive declines that point to compromise (session_max_consecutive_denials ${t.session_max_consecutive_denials})`,
    );
  }
  return ended;
}

/**
 * The STEP_UP the state remembers for step_up_confirmed (null: not a STEP_UP, or one asking
 * again for a step-up still open). Under the 'principal' policy (docs/step-up-confirmation.md)
 * the same request asking again while its step-up awaits the Principal gets that step-up back
 * (nothing is sent again); otherwise a step-up is opened: the decision's audit row opens its
 * step_ups row (migrations/0211, 0290), whose one-time code and link the step-up notifier makes
 * and e-mails to the Principal's own address (src/runtime/step-up-notifier.ts): never an event.
 */
export function stepUpToRemember(
  state: AgentState,
  req: AuthorizeRequest,
  w: Work,
  expiresAtMs: number,
  nowMs: number,
): PendingStepUp | null {
  if (w.decision !== 'STEP_UP') return null;
  if (!state.stepUpByPrincipal) {
    return {
      authorizationId: w.authorizationId,
      amount: w.amount,
      currency: req.currency,
      merchant: w.merchant,
      expiresAtMs,
      stepUpId: null,
      confirmed: false,
      declined: false,
    };
  }
  const idx = findPendingStepUp(state, w.amount, req.currency, w.merchant, nowMs, UNCONFIRMED_STEP_UP);
  const open = idx >= 0 ? (state.pendingStepUps[idx] as PendingStepUp) : null;
  if (open !== null && open.stepUpId !== null) {
    w.stepUpId = open.stepUpId;
    w.stepUpExpiresAtMs = open.expiresAtMs;
    return null;
  }
  const id = newId('stp');
  w.stepUpId = id;
  w.stepUpOpened = true;
  w.stepUpExpiresAtMs = expiresAtMs;
  return {
    authorizationId: w.authorizationId,
    amount: w.amount,
    currency: req.currency,
    merchant: w.merchant,
    expiresAtMs,
    stepUpId: id,
    confirmed: false,
    declined: false,
  };
}

/**
 * Pushes the events of the recorded decision in `w` to `w.events` (a zone change from
 * `previousZone`, the end of its session) and updates the KYA score and trust tier; returns the
 * agent row's update (KYA score, trust level), or null when neither changed.
 */
export function followUp(
  state: AgentState,
  req: AuthorizeRequest,
  w: Work,
  trustScore: number | null,
  previousZone: Zone | null,
  ended: TerminationReason | null,
  nowMs: number,
): { trust_level?: string; kya_score?: string } | null {
  const t = state.thresholds;
  const { cts, session, events } = w;
  if (cts !== null) {
    const previous: Zone = previousZone ?? 'GREEN';
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
  }
  if (ended !== null && session !== null) {
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

  // Trust: KYA score and promotion.
  const ageHours = (nowMs - state.createdAtMs) / HOUR_MS;
  let agentUpdate: { trust_level?: string; kya_score?: string } | null = null;
  const kya = kyaScore(state.stats.approved, state.stats.declined, ageHours, t);
  if (state.kyaScore === null || Math.round(state.kyaScore * 100) !== Math.round(kya * 100)) {
    state.kyaScore = kya;
    state.kyaText = round2Text(kya);
    agentUpdate = { kya_score: state.kyaText };
  }
  if (w.decision === 'APPROVE') {
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
