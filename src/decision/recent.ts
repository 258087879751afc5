// The short rings of recent requests: approvals at one merchant (bursts, and whether bursts are
// the agent's normal pace) and requests in countries new to the agent (country jumps: how new a
// country is, how expected a new one is, and how persistently the agent goes on in it).
import { type AgentState, RECENT_SIZE } from './agent-state.js';
import type { Thresholds } from './model/thresholds.js';

const DAY = 86_400_000;
/** Approvals with a country before the agent has a "home" a jump can leave. */
export const MIN_HOME_APPROVALS = 3;

/**
 * How new `country` is to the agent: 0 known (or no country, or the agent has no approvals with
 * a country yet: there is no home to jump from), 1 never approved there, 0.8 approved there
 * fewer than 3 times, all within the last 24 hours (a jump in progress).
 */
export function countryNovelty(state: AgentState, country: string | null, nowMs: number): number {
  if (country === null || state.countries.size === 0) return 0;
  let approvals = 0;
  for (const c of state.countries.values()) approvals += c.approvals;
  if (approvals < MIN_HOME_APPROVALS) return 0;
  const c = state.countries.get(country);
  if (c === undefined) return 1;
  return c.approvals < 3 && nowMs - c.firstMs < DAY ? 0.8 : 0;
}

/** Outcomes of a request in a new country: not approved, approved, approved on a confirmed STEP_UP. */
export const NOVEL_REFUSED = 0;
export const NOVEL_APPROVED = 1;
export const NOVEL_CONFIRMED = 2;

/** Remembers a request in a country new to the agent, with its outcome (NOVEL_*). */
export function noteNovelCountry(state: AgentState, country: string, nowMs: number, outcome: number): void {
  state.novelMs[state.novelHead] = nowMs;
  state.novelCountries[state.novelHead] = country;
  state.novelApproved[state.novelHead] = outcome;
  state.novelHead = (state.novelHead + 1) % RECENT_SIZE;
}

/** Approvals at `merchant` since `fromMs` in the ring of recent approvals. */
export function approvalsAtSince(state: AgentState, merchant: string, fromMs: number): number {
  let n = 0;
  if (merchant === '') return 0;
  for (let i = 0; i < RECENT_SIZE; i++) {
    if ((state.recentMs[i] as number) >= fromMs && state.recentMerchants[i] === merchant) n++;
  }
  return n;
}

/**
 * Window of the agent's own pace (paceMax): a run of approvals seconds apart, slower than the
 * rapid-fire window sees, is judged against the most the agent ever had in this window.
 */
export const PACE_WINDOW_MS = 120_000;

/** Approvals (any merchant) since `fromMs` in the ring of recent approvals (at most RECENT_SIZE). */
export function approvalsSince(state: AgentState, fromMs: number): number {
  let n = 0;
  for (let i = 0; i < RECENT_SIZE; i++) if ((state.recentMs[i] as number) >= fromMs) n++;
  return n;
}

/** Number of same-merchant approvals (with this one) that make a burst. */
export function burstSize(t: Thresholds): number {
  return Math.max(3, Math.ceil((t.rapid_fire_max_count * 3) / 20));
}

/** Requests (any decision, with this one) in the rapid-fire window that make a burst. */
export function countBurst(t: Thresholds): number {
  return Math.max(5, Math.ceil(t.rapid_fire_max_count / 4));
}

/**
 * Whether the agent's pace is learned: amount_outlier_min_history approvals made while our
 * answers were not slow (outcome.ts counts the others in paceSkipped). Until then neither bursts
 * nor its pace are judged (risk.ts).
 */
export function paceLearned(state: AgentState): boolean {
  return state.stats.approved - state.paceSkipped >= state.thresholds.amount_outlier_min_history;
}

/**
 * True when an approval at `merchant` at `nowMs` is part of a burst: with it, burstSize
 * approvals at the merchant, or countBurst requests (the requests ring already holding this
 * one), within the rapid-fire window.
 */
export function isBurst(state: AgentState, merchant: string, nowMs: number): boolean {
  const from = nowMs - state.derived.rapidWindowMs;
  return (
    approvalsAtSince(state, merchant, from) + 1 >= burstSize(state.thresholds) ||
    state.requests.countSince(from) >= countBurst(state.thresholds)
  );
}

/** Remembers an APPROVE in the short ring of recent approvals (bursts at one merchant, runs in a category). */
export function noteRequest(state: AgentState, merchant: string, nowMs: number, groups: number): void {
  state.recentMs[state.recentHead] = nowMs;
  state.recentMerchants[state.recentHead] = merchant;
  state.recentGroups[state.recentHead] = groups;
  state.recentHead = (state.recentHead + 1) % RECENT_SIZE;
}

/**
 * Persistence of a jump: the requests the agent made in `country` since `fromMs` while it was
 * new: `approved` counts the approved ones since `spreeFromMs`, `refused` those not approved (a STEP_UP nobody
 * confirmed, a DECLINE) since the Principal last confirmed a STEP_UP there.
 */
export function recentNovel(
  state: AgentState,
  country: string,
  fromMs: number,
  spreeFromMs: number,
): { refused: number; approved: number } {
  let confirmedAt = Number.NEGATIVE_INFINITY;
  let approved = 0;
  for (let i = 0; i < RECENT_SIZE; i++) {
    const at = state.novelMs[i] as number;
    const outcome = state.novelApproved[i] as number;
    if (at < fromMs || state.novelCountries[i] !== country || outcome === NOVEL_REFUSED) continue;
    if (at >= spreeFromMs) approved++;
    if (outcome === NOVEL_CONFIRMED && at > confirmedAt) confirmedAt = at;
  }
  let refused = 0;
  for (let i = 0; i < RECENT_SIZE; i++) {
    const at = state.novelMs[i] as number;
    if (
      at >= fromMs &&
      at > confirmedAt &&
      state.novelCountries[i] === country &&
      state.novelApproved[i] === NOVEL_REFUSED
    )
      refused++;
  }
  return { refused, approved };
}

/**
 * How expected a new country is from the agent's own record: the chance that its next
 * approval is in a country it never paid in, estimated as k / (n + k) from its n approvals
 * with a country in k countries (a Chinese-restaurant estimate). An agent that pays in one
 * country 15 times: 0.06; one that spread 10 approvals over 4 countries: 0.29.
 */
export function newCountryChance(state: AgentState): number {
  let n = 0;
  for (const c of state.countries.values()) n += c.approvals;
  const k = state.countries.size;
  return n + k === 0 ? 1 : k / (n + k);
}

/**
 * Notes an APPROVE in `groups` (taxonomy.ts bits) at `nowMs`: a group paid for the first time is
 * new to the agent if its pace is already learned (`established`), else one of those it always
 * bought in; a purchase the Principal confirmed makes its groups the agent's own.
 */
export function notePaidGroups(
  state: AgentState,
  groups: number,
  nowMs: number,
  established: boolean,
  confirmed: boolean,
): void {
  for (let bits = groups; bits !== 0; bits &= bits - 1) {
    const i = 31 - Math.clz32(bits & -bits);
    if (confirmed) state.groupFirstMs[i] = Number.NEGATIVE_INFINITY;
    else if (Number.isNaN(state.groupFirstMs[i] as number))
      state.groupFirstMs[i] = established ? nowMs : Number.NEGATIVE_INFINITY;
  }
}

/** Window of a run in a new category: groups first paid within it. */
export const CATEGORY_RUN_WINDOW_MS = 7 * DAY;

/**
 * A run's charges are spread out: the last one at least this long before (a basket or a ticket
 * drop, items minutes apart, is the pace rule's to judge, not a drip).
 */
export const CATEGORY_RUN_GAP_MS = 30 * 60_000;

/**
 * Approvals in the ring of recent approvals in `groups` since the agent first paid in them, when
 * every one of them is new to it (first paid within CATEGORY_RUN_WINDOW_MS, after its pace was
 * learned) and the last of them is CATEGORY_RUN_GAP_MS or more before `nowMs`; 0 otherwise (a
 * group it never paid, one it has long paid, or a burst).
 */
export function newCategoryRun(state: AgentState, groups: number, nowMs: number): number {
  if (groups === 0) return 0;
  let first = Number.POSITIVE_INFINITY;
  for (let bits = groups; bits !== 0; bits &= bits - 1) {
    const f = state.groupFirstMs[31 - Math.clz32(bits & -bits)] as number;
    if (Number.isNaN(f) || nowMs - f > CATEGORY_RUN_WINDOW_MS) return 0;
    if (f < first) first = f;
  }
  let n = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < RECENT_SIZE; i++) {
    const at = state.recentMs[i] as number;
    if (at < first || ((state.recentGroups[i] as number) & groups) === 0) continue;
    n++;
    if (at > last) last = at;
  }
  return nowMs - last < CATEGORY_RUN_GAP_MS ? 0 : n;
}
