// Sessions (docs/decision-engine.md "Sessions"): session_id groups an agent's transactions;
// consecutive DECLINEs that point to compromise (never pacing or spending caps alone) or a
// CRITICAL trust score terminate a session for good.
// A session's state is opened by openSession (state.ts), which the history load uses too.
import { taskRoot } from './intent.js';
import { addSessionMerchant, type SessionState } from './state.js';

export type TerminationReason = 'consecutive_denials' | 'critical_trust';

/**
 * Records this request in its session (`declined`: a DECLINE that points to compromise,
 * state.ts pointsToCompromise). Returns why the session terminates with it, or null
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
