// STEP_UP and step_up_confirmed (CONTRACT.md): a confirmed re-submission clears a STEP_UP
// only when an unexpired STEP_UP was issued to the same agent for the same amount, currency
// and merchant. Mandate gates and every DECLINE gate still apply.
import type { Units } from '../../domain/money.js';
import { type AgentState, MAX_PENDING_STEP_UPS, type PendingStepUp } from './agent-state.js';

/** Drops expired step-ups; returns the index of a match, or -1. */
export function findPendingStepUp(
  state: AgentState,
  amount: Units,
  currency: string,
  merchant: string,
  nowMs: number,
): number {
  const list = state.pendingStepUps;
  let w = 0;
  for (let i = 0; i < list.length; i++) {
    const p = list[i] as PendingStepUp;
    if (p.expiresAtMs > nowMs) list[w++] = p;
  }
  list.length = w;
  for (let i = 0; i < list.length; i++) {
    const p = list[i] as PendingStepUp;
    if (p.amount === amount && p.currency === currency && p.merchant === merchant) return i;
  }
  return -1;
}

export function consumePendingStepUp(state: AgentState, index: number): PendingStepUp | null {
  const removed = state.pendingStepUps.splice(index, 1);
  return removed[0] ?? null;
}

/** Remembers an issued STEP_UP; the oldest is forgotten beyond MAX_PENDING_STEP_UPS. */
export function addPendingStepUp(state: AgentState, p: PendingStepUp): void {
  state.pendingStepUps.push(p);
  if (state.pendingStepUps.length > MAX_PENDING_STEP_UPS) state.pendingStepUps.shift();
}
