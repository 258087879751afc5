// STEP_UP and step_up_confirmed (CONTRACT.md): a confirmed re-submission clears a STEP_UP
// only when an unexpired STEP_UP was issued to the same agent for the same amount, currency
// and merchant. Mandate gates and every DECLINE gate still apply. Under the Principal's
// 'principal' confirmation policy (docs/step-up-confirmation.md) the STEP_UP must also have
// been confirmed through the Principal (PendingStepUp.confirmed, read from step_ups at load).
import type { Units } from '../domain/money.js';
import { type AgentState, MAX_PENDING_STEP_UPS, type PendingStepUp } from './agent-state.js';
import type { AuthorizeRequest } from './model/contract.js';
import { decline, type Work } from './work.js';

/** Which pending step-ups a search may match. */
export const ANY_STEP_UP = 0;
/** Only those confirmed through the Principal. */
export const CONFIRMED_STEP_UP = 1;
/** Only step-ups with a step_ups row not confirmed yet (a STEP_UP asking again reuses it). */
export const UNCONFIRMED_STEP_UP = 2;
/** Only step-ups the person declined on the confirmation page. */
export const DECLINED_STEP_UP = 3;

/** Drops expired step-ups; returns the index of a match of the given kind, or -1. */
export function findPendingStepUp(
  state: AgentState,
  amount: Units,
  currency: string,
  merchant: string,
  nowMs: number,
  kind = ANY_STEP_UP,
): number {
  dropExpiredStepUps(state, nowMs);
  const list = state.pendingStepUps;
  for (let i = 0; i < list.length; i++) {
    const p = list[i] as PendingStepUp;
    if (p.amount !== amount || p.currency !== currency || p.merchant !== merchant) continue;
    if (kind === DECLINED_STEP_UP) {
      if (!p.declined) continue;
    } else if (p.declined) continue;
    if (kind === CONFIRMED_STEP_UP && !p.confirmed) continue;
    if (kind === UNCONFIRMED_STEP_UP && (p.confirmed || p.stepUpId === null)) continue;
    return i;
  }
  return -1;
}

/** Forgets the step-ups expired at `nowMs`. */
export function dropExpiredStepUps(state: AgentState, nowMs: number): void {
  const list = state.pendingStepUps;
  let w = 0;
  for (let i = 0; i < list.length; i++) {
    const p = list[i] as PendingStepUp;
    if (p.expiresAtMs > nowMs) list[w++] = p;
  }
  list.length = w;
}

/** Remembers an issued STEP_UP; the oldest is forgotten beyond MAX_PENDING_STEP_UPS. */
export function addPendingStepUp(state: AgentState, p: PendingStepUp): void {
  state.pendingStepUps.push(p);
  if (state.pendingStepUps.length > MAX_PENDING_STEP_UPS) state.pendingStepUps.shift();
}

/**
 * The person declined exactly this request (agent, amount, currency, merchant) on the
 * confirmation page: it is declined (step_up_declined), with or without step_up_confirmed and
 * whatever the gates found short of a DECLINE, until that step-up's window ends. True when so.
 */
export function declinedByPerson(state: AgentState, req: AuthorizeRequest, w: Work, nowMs: number): boolean {
  if (!state.stepUpByPrincipal || w.decision === 'DECLINE') return false;
  const idx = findPendingStepUp(state, w.amount, req.currency, w.merchant, nowMs, DECLINED_STEP_UP);
  if (idx < 0) return false;
  const p = state.pendingStepUps[idx] as PendingStepUp;
  w.gates.length = 0;
  w.reasons.length = 0;
  w.details.length = 0;
  w.stepUpGates = 0;
  decline(
    w,
    'step_up_declined',
    `the person declined step-up ${p.stepUpId ?? ''} for this request on the confirmation page`,
  );
  return true;
}
