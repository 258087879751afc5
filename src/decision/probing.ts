// Probing for a limit (docs/security.md "The dry run"): a compromised agent that searches for
// the largest amount that passes (dry runs at varied amounts, or real requests refused by a limit
// or approved just below it) shows it by trying many different amounts in a short time. Each such
// try is remembered; PROBE_MIN_TRIES tries at PROBE_MIN_AMOUNTS distinct amounts within
// PROBE_WINDOW_MS is the risk signal `limit_probing` (a STEP_UP the Principal confirms). A cart
// checked again and again at one amount is not probing.
//
// A real request's try is folded with its outcome (outcome.ts), so a reload of the agent
// (eviction, restart, a shard moving) finds it again in its audit row; dry runs are kept in
// memory only (they write no audit row), so a reload forgets them (docs/decision-engine.md).
import type { Units } from '../domain/money.js';
import type { AgentState, ProbeMemory } from './agent-state.js';

/** Tries remembered per agent (the newest). */
export const PROBE_SLOTS = 16;
/** The window in which tries count. */
export const PROBE_WINDOW_MS = 10 * 60_000;
/** Tries within the window that make probing... */
export const PROBE_MIN_TRIES = 8;
/** ...at this many distinct amounts at least. */
export const PROBE_MIN_AMOUNTS = 4;
/** A real request at this share of the per-transaction limit or above is a try (90%, in 10^-8). */
const NEAR_LIMIT_SHARE = 90_000_000n;
const SCALE = 100_000_000n;

export function newProbeMemory(): ProbeMemory {
  return {
    ms: new Float64Array(PROBE_SLOTS).fill(Number.NEGATIVE_INFINITY),
    amounts: new Float64Array(PROBE_SLOTS),
    head: 0,
  };
}

/** Remembers one try at `amount` at `nowMs`. */
export function noteTry(state: AgentState, amount: Units, nowMs: number): void {
  const p = state.probes;
  p.ms[p.head] = nowMs;
  p.amounts[p.head] = Number(amount);
  p.head = (p.head + 1) % PROBE_SLOTS;
}

/** Whether a real request's outcome is a try: refused by a limit, or approved just below one. */
export function isLimitTry(reasons: readonly string[], amount: Units, limit: Units | null): boolean {
  for (const r of reasons) {
    if (r.endsWith('_limit_exceeded') || r.endsWith('_count_exceeded') || r === 'crypto_max_transfer_exceeded') {
      return true;
    }
  }
  return limit !== null && limit > 0n && amount <= limit && amount * SCALE >= limit * NEAR_LIMIT_SHARE;
}

/** Whether the agent's tries within the window amount to probing (on every decision: no allocation). */
export function isProbing(state: AgentState, nowMs: number): boolean {
  const p = state.probes;
  const from = nowMs - PROBE_WINDOW_MS;
  let tries = 0;
  let distinct = 0;
  for (let i = 0; i < PROBE_SLOTS; i++) {
    const at = p.ms[i] as number;
    if (at < from || at > nowMs) continue;
    tries++;
    // Distinct: no earlier slot in the window holds the same amount.
    let seen = false;
    for (let j = 0; j < i && !seen; j++) {
      const atJ = p.ms[j] as number;
      seen = atJ >= from && atJ <= nowMs && p.amounts[j] === p.amounts[i];
    }
    if (!seen) distinct++;
  }
  return tries >= PROBE_MIN_TRIES && distinct >= PROBE_MIN_AMOUNTS;
}
