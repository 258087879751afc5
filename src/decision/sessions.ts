// Sessions (docs/decision-engine.md "Sessions"): session_id groups an agent's transactions;
// consecutive DECLINEs that point to compromise (never pacing or spending caps alone) or a
// CRITICAL trust score terminate a session for good. openSession opens a session's state for
// a request and for the history load (history.ts) alike.
import { type AgentState, MAX_SESSIONS, type SessionState } from './agent-state.js';
import { taskRoot } from './intent.js';

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
 * Remembers a merchant seen in the session. Merchant drift only asks whether a new merchant
 * arrives once `max` (session_max_merchants, at most 1000) distinct ones were seen, so no more
 * than `max` are kept.
 */
export function addSessionMerchant(s: SessionState, merchant: string, max: number): void {
  if (merchant !== '' && s.merchants.length < max && !s.merchants.includes(merchant)) {
    s.merchants.push(merchant);
    s.chars += merchant.length;
  }
}

/**
 * Records this request in its session (`declined`: a DECLINE that points to compromise,
 * evidence.ts pointsToCompromise). Returns why the session terminates with it, or null
 * (also null when it was already terminated: session.terminate is emitted once).
 */
export function recordInSession(
  s: SessionState,
  declined: boolean,
  approved: boolean,
  critical: boolean,
  task: string,
  merchant: string,
  maxMerchants: number,
  maxDenials: number,
  nowMs: number,
  intentType = '',
  mccGroups = 0,
): TerminationReason | null {
  s.lastSeenMs = nowMs;
  if (s.task === null) {
    s.task = task;
    s.root = taskRoot(task);
    s.intentType = intentType;
    s.chars += task.length + s.root.length + intentType.length;
  }
  if (approved) s.groups |= mccGroups;
  addSessionMerchant(s, merchant, maxMerchants);
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
