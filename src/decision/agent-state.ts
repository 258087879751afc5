// The in-memory state of one agent actor: its shape and the bounds of what it keeps. The
// database stays the truth: everything here is either a copy of a row (agent, mandates,
// thresholds) or derived from the audit log (running totals, windows, sessions, step-ups).
// Types and constants only: state.ts creates a state, load.ts rebuilds one from PostgreSQL.
import type { BudgetWindow, TrustLevel } from '../domain/decision.js';
import type { Units } from '../domain/money.js';
import type { Frequency } from '../storage/rows/mandates.js';
import type { ThresholdOverrides, Thresholds } from './model/thresholds.js';
import type { ShadowSet } from './replay-inputs.js';
import type { AmountBaseline, AmountHistory, TimeWindow } from './rings.js';

export type Zone = 'GREEN' | 'AMBER' | 'RED' | 'CRITICAL';

/** Decisions kept for mandate compliance (share of mandate-gate declines). */
export const OUTCOME_HISTORY_SIZE = 20;
/** Sessions kept per agent (the least recently opened one is evicted). */
export const MAX_SESSIONS = 32;
/** STEP_UPs awaiting confirmation kept per agent. */
export const MAX_PENDING_STEP_UPS = 8;
/** Merchants whose declines pointing to compromise are counted (merchantDeclines). */
export const MAX_FLAGGED_MERCHANTS = 64;
/** Countries the agent was approved in that are remembered. */
export const MAX_COUNTRIES = 64;
/** Merchants the agent was approved at that are remembered. */
export const MAX_KNOWN_MERCHANTS = 256;
/** Slots of the rings of recent approvals and of requests in new countries (recent.ts). */
export const RECENT_SIZE = 8;

/** Outcome codes kept in AgentState.outcomes. */
export const OUTCOME_NONE = 0;
export const OUTCOME_APPROVE = 1;
export const OUTCOME_MANDATE_DECLINE = 2;
export const OUTCOME_OTHER_DECLINE = 3;
export const OUTCOME_STEP_UP = 4;

/** The richer terms of a mandate (mandate-terms.ts) as the agent's state holds them, with the running counts of the recurrence. */
export interface TermsState {
  readonly minAmount: Units | null;
  /** merchant_id values, as given (compared exactly). */
  readonly payees: ReadonlySet<string> | null;
  readonly merchantLock: boolean;
  /** Inclusive bounds in ms (-Infinity / Infinity: open). */
  readonly notBeforeMs: number;
  readonly notAfterMs: number;
  /** Bit (ISO day of week - 1) per allowed day; 0: every day. */
  readonly days: number;
  readonly frequency: Frequency | null;
  readonly maxOccurrences: number | null;
  /** valid_from of the mandate: BIWEEKLY periods count in pairs of ISO weeks from its week. */
  readonly anchorMs: number;
  /** Only a presentation naming the mandate (AuthorizeRequest.mandateId) may select it. */
  readonly presentationOnly: boolean;
  /** The counts below are kept (a recurrence or a maximum of occurrences is set). */
  readonly counts: boolean;
  /** The payee of the first approval under the lock (null: none yet, or no lock). */
  lockedPayee: string | null;
  /** The day start (Windows.day) periodStart was computed for; NaN: never. */
  periodDay: number;
  /** Start of the current recurrence period (ms); NaN when there is no periodic frequency. */
  periodStart: number;
  /** Approvals (holds included, released or expired ones given back) in the current period. */
  periodCount: number;
  /** Approvals over the mandate's life, counted the same way. */
  occurrences: number;
}

export interface MandateState {
  readonly id: string;
  readonly card: boolean;
  readonly crypto: boolean;
  readonly currency: string;
  readonly perTransaction: Units;
  readonly daily: Units | null;
  readonly monthly: Units | null;
  /** Calendar week (Monday), year and whole-life caps, and the day and month count caps (docs/holds.md). */
  readonly weekly: Units | null;
  readonly yearly: Units | null;
  readonly total: Units | null;
  readonly dailyCount: number | null;
  readonly monthlyCount: number | null;
  /** How long a manual hold lives before it expires, in ms. */
  readonly holdTtlMs: number;
  /** Share of a cap at which budget.threshold_reached is emitted, in units of 10^-8. */
  readonly alertShare: Units;
  /** Per-transfer cap of the crypto block (onboarding plane max_transfer). */
  readonly cryptoMaxTransfer: Units | null;
  readonly allowedMccs: ReadonlySet<string> | null;
  readonly blockedMccs: ReadonlySet<string> | null;
  /** Alpha-3, upper case. */
  readonly allowedCountries: ReadonlySet<string> | null;
  readonly blockedCountries: ReadonlySet<string> | null;
  /** Lower case. */
  readonly allowedChains: ReadonlySet<string> | null;
  readonly allowedAssets: ReadonlySet<string> | null;
  readonly allowedCounterparties: ReadonlySet<string> | null;
  readonly validFromMs: number;
  readonly validUntilMs: number;
  readonly createdAtMs: number;
  /**
   * Allowed payees, merchant lock, minimum amount, execution window and recurrence with their
   * running counts (mandate-terms.ts); null for a mandate that has none, which costs one check.
   */
  readonly terms: TermsState | null;
  // Running APPROVED totals (holds included, credits taken off) of the current calendar day,
  // week, month and year in the Principal's time zone (keys: the window starts, calendar.ts
  // windowsOf) and of the mandate's whole life.
  dayKey: number;
  dayAmount: Units;
  dayCount: number;
  weekKey: number;
  weekAmount: Units;
  monthKey: number;
  monthAmount: Units;
  monthCount: number;
  yearKey: number;
  yearAmount: Units;
  totalAmount: Units;
  /** Budget events already emitted in the current windows (caps.ts ALERT_* bits). */
  alerted: number;
}

/** The probe memory of an agent (probing.ts): when each try came and at what amount (units as a number). */
export interface ProbeMemory {
  readonly ms: Float64Array;
  readonly amounts: Float64Array;
  head: number;
}

/** The agent's slice of its Principal's budget for the current window (principal-budget.ts). */
export interface BudgetState {
  /** principal_budgets.version this state was loaded under (a grant under another reloads). */
  readonly version: string;
  readonly limit: Units;
  readonly currency: string;
  readonly window: BudgetWindow;
  /** Spend counts from here (ms since the epoch). */
  readonly effectiveFromMs: number;
  /** The currency's minor unit in Units (0.01 USD: 1,000,000). */
  readonly unit: Units;
  /** Speculative part of a grant at most: a 64th of the budget, in minor units. */
  readonly extra: Units;
  /** Start of the window `remaining` belongs to. */
  windowStart: number;
  /** Slice granted less spent in the window; negative when spend predates the slice (a deficit). */
  remaining: Units;
  /** No background top-up before this time (ms): the last one found nothing to take. */
  topUpAfterMs: number;
}

export interface SessionState {
  /** Consecutive DECLINEs that point to compromise (pacing and mandate caps do not count). */
  consecutiveDenials: number;
  terminated: boolean;
  /** task_reference that opened the session (null after a reload until the next request). */
  task: string | null;
  /** Root of the task_reference hierarchy of the session ("reading-list" of "reading-list/item-3"). */
  root: string | null;
  /** intent_type of the request that opened the session (null after a reload). */
  intentType: string | null;
  /** MCC groups (taxonomy.ts bits) of the session's approved requests. */
  groups: number;
  /** Distinct merchant keys of the session's approved requests (a later request there is no drift). */
  merchants: string[];
  lastSeenMs: number;
  /** Characters of the strings the session holds (its id, task and merchants), for the memory estimate. */
  chars: number;
}

export interface PendingStepUp {
  readonly authorizationId: string;
  readonly amount: Units;
  readonly currency: string;
  readonly merchant: string;
  readonly expiresAtMs: number;
  /** Its step_ups row under the 'principal' confirmation policy (null: cleared by re-submission). */
  readonly stepUpId: string | null;
  /** Confirmed through the Principal (POST /api/v1/step-ups/{id}/confirm, or the page), as read at load. */
  readonly confirmed: boolean;
  /** Declined by the person on the confirmation page, as read at load: the same request is declined. */
  readonly declined: boolean;
}

/** Thresholds with the values the hot path needs precomputed (ms, bigint multipliers). */
export interface Derived {
  readonly velocityWindowMs: number;
  readonly rapidWindowMs: number;
  readonly stepUpWindowMs: number;
  /** Multipliers as bigint counts of 10^-8. */
  readonly multiplierAmber: Units;
  readonly multiplierRed: Units;
  readonly outlierMultiplier: Units;
}

export interface CountrySeen {
  approvals: number;
  firstMs: number;
}

export interface TrustStats {
  approved: number;
  declined: number;
  stepUps: number;
}

export interface AgentState {
  readonly agentId: string;
  readonly principalId: string;
  readonly clientId: string;
  status: string;
  trustLevel: TrustLevel;
  /** kya_score as stored (2 decimals), null until the first decision scores it. */
  kyaScore: number | null;
  /** kya_score as NUMERIC text for the audit row. */
  kyaText: string | null;
  readonly createdAtMs: number;
  /** The Principal's IANA time zone: the calendar windows of the caps (default UTC). */
  timeZone: string;
  /**
   * agents.credit_seq as of the budget credits the load read (migrations/0310; -1: not read,
   * the state has no mandate): a credit numbered above it came after the load (windows.ts).
   */
  creditSeq: number;
  /** Sequence numbers of the credits counted since the load (each is counted once). */
  creditsApplied: number[];
  /** The agent's declared capabilities, lower case (goal misalignment reads them). */
  readonly capabilities: readonly string[];
  /** ACTIVE mandates, newest first. */
  readonly mandates: MandateState[];
  /** Estimated bytes of the mandates (memory.ts), fixed while the state is loaded. */
  readonly mandateBytes: number;
  overrides: ThresholdOverrides;
  thresholds: Thresholds;
  /** thresholdsVersion(thresholds), stored with every decision. */
  thresholdsVersion: string;
  /**
   * The Principal's shadow thresholds (threshold-eval.ts), evaluated next to every decision
   * without effect; absent or null when it has none. Shared by its agents on this thread.
   */
  shadow?: ShadowSet | null;
  derived: Derived;
  readonly stats: TrustStats;
  readonly amounts: AmountHistory;
  /** Every decision (rapid-fire window). */
  readonly requests: TimeWindow;
  /** APPROVE decisions (velocity window). */
  readonly approvals: TimeWindow;
  /** Dry runs and real requests at a limit, remembered to see probing (probing.ts; a reload finds the real ones only). */
  readonly probes: ProbeMemory;
  /** Last OUTCOME_HISTORY_SIZE outcomes (OUTCOME_* codes), ring. */
  readonly outcomes: Uint8Array;
  outcomeHead: number;
  /** Groups (taxonomy.ts bits) the agent's capabilities name. */
  readonly capabilityGroups: number;
  /** Groups of the MCCs the agent was approved at. */
  groupsSeen: number;
  /** Robust amount baselines (log amounts of approvals), per currency. */
  readonly baselines: Map<string, AmountBaseline>;
  /** Countries (alpha-3) the agent was approved in: approvals and first approval time. */
  readonly countries: Map<string, CountrySeen>;
  /** Merchants the agent was approved at (bounded: MAX_KNOWN_MERCHANTS). */
  /**
   * Merchants the agent was approved at (bounded: MAX_KNOWN_MERCHANTS), each with the last amount
   * approved there as round(1000 x ln amount) (a small integer: recurring charges recur near it).
   */
  readonly knownMerchants: Map<string, number>;
  /**
   * The names of merchants the agent was approved at (lookalike.ts nameWords, keyed by the words
   * joined by a space; bounded: MAX_KNOWN_MERCHANTS): a new merchant imitating one is mimicry.
   */
  readonly knownNames: Map<string, readonly string[]>;
  /** Characters of the knownMerchants keys and the knownNames, for the memory estimate. */
  knownChars: number;
  /** The last RECENT_SIZE approvals: time and merchant key (bursts at one merchant). */
  readonly recentMs: Float64Array;
  readonly recentMerchants: string[];
  /** ...and the category groups of each (taxonomy.ts bits; runs in a new category, risk.ts). */
  readonly recentGroups: Int32Array;
  /**
   * Per category group (taxonomy.ts bit i at index i): when the agent first paid in it once its
   * pace was learned (NaN: never; -Infinity: before that, or a purchase in it the Principal
   * confirmed). A run of small charges in a group an established agent began paying days ago
   * is a drip (risk.ts newCategoryRun).
   */
  readonly groupFirstMs: Float64Array;
  recentHead: number;
  /**
   * Whether bursts at one merchant are this agent's normal pace: set when it had one while its
   * pace was still being learned (recent.ts paceLearned).
   */
  burstsNormal: boolean;
  /**
   * Approvals made while the agent's pace was being learned but the service's answers were slow
   * (the audit row's answers_slow): they do not count towards the amount_outlier_min_history
   * approvals the pace is learned from, since an agent waiting for each answer was paced by us.
   * At most PACE_SKIP_FACTOR x amount_outlier_min_history (outcome.ts).
   */
  paceSkipped: number;
  /**
   * The agent's own fastest pace: the most approvals it had within PACE_WINDOW_MS (recent.ts),
   * this one included (0: none yet). A Principal's confirmation of a faster run teaches it.
   */
  paceMax: number;
  /** The last RECENT_SIZE requests in a country new to the agent (a jump goes on over several). */
  readonly novelMs: Float64Array;
  readonly novelCountries: string[];
  /** NOVEL_REFUSED, NOVEL_APPROVED or NOVEL_CONFIRMED (approved on a confirmed STEP_UP). */
  readonly novelApproved: Uint8Array;
  novelHead: number;
  /** Merchant key -> declines of this agent at that merchant that point to compromise. */
  readonly merchantDeclines: Map<string, number>;
  /** Characters of the merchantDeclines keys, for the memory estimate. */
  merchantChars: number;
  readonly sessions: Map<string, SessionState>;
  readonly pendingStepUps: PendingStepUp[];
  /**
   * The Principal's step_up_confirmation is 'principal' (docs/step-up-confirmation.md): a STEP_UP
   * opens a step-up with a one-time code, and step_up_confirmed clears only a confirmed one.
   */
  stepUpByPrincipal: boolean;
  /**
   * When the agent last got a STEP_UP for amount_outlier that no step_up_confirmed has cleared
   * since (-Infinity: none): large amounts pushed while the Principal has not said yes weigh more.
   */
  unconfirmedOutlierMs: number;
  /**
   * When the agent last had an amount above amount_outlier_multiplier x its median approved
   * without a confirmation (-Infinity: never): a second one soon after is an outlier.
   */
  lastLargeMs: number;
  lastZone: Zone | null;
  lastTrustScore: number | null;
  /**
   * The time the state is current to (ms; -Infinity: no decision yet): the decision time of the
   * newest decision folded into it, live (record.ts) or replayed from its audit row's created_at
   * at load (history.ts), or the time it was loaded as of, whichever is later. The actor never
   * decides a request at an earlier time (src/decision/model/decision-time.ts): the windows and rings
   * append in time order and the calendar windows of the caps and the budget only move forward.
   */
  decidedUpToMs: number;
  /**
   * Audit rows of the agent not summarised by its rollup (read past it at load, plus decisions
   * since): past ROLLUP_AFTER_ROWS the worker refreshes the rollup in the background (rollup.ts).
   */
  auditRowsSinceRollup: number;
  /** The agent's escrowed slice of its Principal's budget (principal-budget.ts); null: no budget. */
  budget: BudgetState | null;
}
