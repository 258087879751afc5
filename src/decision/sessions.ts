// Sessions (docs/decision-engine.md "Sessions"): session_id groups an agent's transactions;
// consecutive DECLINEs that point to compromise (never pacing or spending caps alone) or a
// CRITICAL trust score terminate a session for good. openSession opens a session's state for
// a request and for the fold of its outcome (outcome.ts), live and at a reload alike.
import { type AgentState, MAX_SESSIONS, type SessionState } from './agent-state.js';

export type TerminationReason = 'consecutive_denials' | 'critical_trust';

/** The session's state, created on first use; the least recently created one is evicted. */
export function openSession(state: AgentState, sessionId: string, nowMs: number): SessionState {
  let s = state.sessions.get(sessionId);
  if (s === undefined) {
    s = {
      consecutiveDenials: 0,
      terminated: false,
      task: null,
      root: null,
      intentType: null,
      groups: 0,
      merchants: [],
      lastSeenMs: nowMs,
      chars: sessionId.length,
    };
    state.sessions.set(sessionId, s);
    if (state.sessions.size > MAX_SESSIONS) {
      const oldest = state.sessions.keys().next().value as string;
      state.sessions.delete(oldest);
    }
  }
  return s;
}

/**
 * Remembers a merchant the session paid (an approved request): a later request there is not
 * task drift (intent.ts). At most `max` (session_max_merchants, at most 1000) are kept.
 */
export function addSessionMerchant(s: SessionState, merchant: string, max: number): void {
  if (merchant !== '' && s.merchants.length < max && !s.merchants.includes(merchant)) {
    s.merchants.push(merchant);
    s.chars += merchant.length;
  }
}

/**
 * Why the session ends with a request, or null (also null when it was already terminated:
 * session.terminate is emitted once): a CRITICAL trust score, or `denials` (its consecutive
 * DECLINEs that point to compromise, evidence.ts pointsToCompromise, with this request)
 * reaching `maxDenials`. The request itself is recorded by outcome.ts applyOutcome.
 */
export function sessionEnds(
  s: SessionState,
  denials: number,
  critical: boolean,
  maxDenials: number,
): TerminationReason | null {
  if (s.terminated) return null;
  if (critical) return 'critical_trust';
  if (denials >= maxDenials) return 'consecutive_denials';
  return null;
}
