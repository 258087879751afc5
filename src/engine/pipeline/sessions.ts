// Sessions (docs/decision-engine.md "Sessions"): session_id groups an agent's transactions;
// consecutive DECLINEs or a CRITICAL trust score terminate a session for good.
import { type AgentState, MAX_SESSIONS, type SessionState } from './state.js';

/** Distinct merchants remembered per session (drift needs only session_max_merchants + 1). */
export const MAX_SESSION_MERCHANTS = 32;

/** The session's state, created on first use; the least recently created one is evicted. */
export function sessionFor(state: AgentState, sessionId: string, nowMs: number): SessionState {
  let s = state.sessions.get(sessionId);
  if (s === undefined) {
    s = { consecutiveDenials: 0, terminated: false, task: null, merchants: [], lastSeenMs: nowMs };
    state.sessions.set(sessionId, s);
    if (state.sessions.size > MAX_SESSIONS) {
      const oldest = state.sessions.keys().next().value as string;
      state.sessions.delete(oldest);
    }
  }
  return s;
}

export type TerminationReason = 'consecutive_denials' | 'critical_trust';

/**
 * Records this request in its session. Returns why the session terminates with it, or null
 * (also null when it was already terminated: session.terminate is emitted once).
 */
export function recordInSession(
  s: SessionState,
  declined: boolean,
  approved: boolean,
  critical: boolean,
  task: string,
  merchant: string,
  maxDenials: number,
  nowMs: number,
): TerminationReason | null {
  s.lastSeenMs = nowMs;
  if (s.task === null) s.task = task;
  if (merchant !== '' && s.merchants.length < MAX_SESSION_MERCHANTS && !s.merchants.includes(merchant)) {
    s.merchants.push(merchant);
  }
  if (declined) s.consecutiveDenials++;
  else if (approved) s.consecutiveDenials = 0;
  if (s.terminated) return null;
  if (critical) {
    s.terminated = true;
    return 'critical_trust';
  }
  if (s.consecutiveDenials >= maxDenials) {
    s.terminated = true;
    return 'consecutive_denials';
  }
  return null;
}
