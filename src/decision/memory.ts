// An estimate of the memory one agent's state holds, so the shard's actor cache can be bounded
// by bytes as well as by count (src/shard/actors.ts). Most agents cost a few kilobytes, but
// some hold far more: many ACTIVE mandates with long MCC or counterparty lists, time windows
// grown to tens of thousands of slots under relaxed rate thresholds, sessions full of merchants.
//
// The figures are V8 heap bytes (plus typed-array backing stores) measured on Node 20 x64 by
// building states and reading the heap before and after (test/pipeline/memory.test.ts keeps the
// estimate within a tolerance of such a measurement). The estimate is O(sessions + mandates) to
// compute and is computed after every decision, so it uses counts and string lengths the state
// already tracks, never a walk of the whole object graph.
import type { AgentState, MandateState } from './agent-state.js';

/** The state of an agent without mandates or history (objects, maps, windows, thresholds). */
export const STATE_BASE_BYTES = 5400;
/**
 * One mandate with no allow/block lists. The later limits (week, year and whole-life sums, the
 * extra caps, hold expiry, alert share and bits) added 240: 374 -> 612 bytes per MandateState measured with
 * node --expose-gc over 20,000 states, sums non-zero.
 */
export const MANDATE_BASE_BYTES = 1040;
/** One entry of a mandate's set (MCC, country, chain, asset, counterparty), with its string. */
export const SET_ENTRY_BYTES = 34;
/** One slot of a time window's buffer (a float64). */
export const WINDOW_SLOT_BYTES = 8;
/** One approved amount of the baseline (a BigInt). */
export const AMOUNT_BYTES = 24;
/** One session without merchants (map entry, object, merchants array). */
export const SESSION_BYTES = 260;
/** One string held by the state, beyond its characters (header, pointer to it). */
export const STRING_BYTES = 24;
/** One entry of merchantDeclines beyond its key's characters. */
export const MERCHANT_DECLINE_BYTES = 28;
/** One per-currency amount baseline (a Float64Array of BASELINE_SIZE logs and its object). */
export const BASELINE_BYTES = 420;
/** One country the agent was approved in (map entry, record, 3-letter string). */
export const COUNTRY_BYTES = 90;
/** One merchant the agent was approved at (map entry with a small integer) beyond its key's characters. */
export const KNOWN_MERCHANT_BYTES = 28;
/** One STEP_UP awaiting confirmation. */
export const PENDING_STEP_UP_BYTES = 600;
/**
 * The slice of a Principal budget (BudgetState, its bigints and version string): 261 bytes
 * measured with node --expose-gc over 20,000 states built by loadBudget.
 */
export const BUDGET_BYTES = 260;

function setBytes(s: ReadonlySet<string> | null): number {
  return s === null ? 0 : s.size * SET_ENTRY_BYTES;
}

/** Estimated bytes of one mandate; mandates do not change while loaded. */
export function mandateBytes(m: MandateState): number {
  return (
    MANDATE_BASE_BYTES +
    setBytes(m.allowedMccs) +
    setBytes(m.blockedMccs) +
    setBytes(m.allowedCountries) +
    setBytes(m.blockedCountries) +
    setBytes(m.allowedChains) +
    setBytes(m.allowedAssets) +
    setBytes(m.allowedCounterparties)
  );
}

/** Estimated bytes held by an agent's state. */
export function estimateStateBytes(state: AgentState): number {
  let bytes = STATE_BASE_BYTES + state.mandateBytes + (state.budget === null ? 0 : BUDGET_BYTES);
  bytes += (state.requests.capacity + state.approvals.capacity) * WINDOW_SLOT_BYTES;
  bytes += state.amounts.count * AMOUNT_BYTES;
  bytes += state.merchantDeclines.size * (MERCHANT_DECLINE_BYTES + STRING_BYTES) + state.merchantChars;
  bytes += state.pendingStepUps.length * PENDING_STEP_UP_BYTES;
  bytes += state.baselines.size * BASELINE_BYTES + state.countries.size * COUNTRY_BYTES;
  bytes += state.knownMerchants.size * (KNOWN_MERCHANT_BYTES + STRING_BYTES) + state.knownChars;
  for (const words of state.knownNames.values()) bytes += KNOWN_MERCHANT_BYTES + (words.length + 1) * STRING_BYTES;
  for (const s of state.sessions.values()) {
    bytes += SESSION_BYTES + (s.merchants.length + 2) * STRING_BYTES + s.chars;
  }
  return bytes;
}
