// The in-memory state of one agent actor and how it is rebuilt from PostgreSQL. The
// database stays the truth: everything here is either a copy of a row (agent, mandates,
// thresholds) or derived from the audit log (running totals, windows, sessions, step-ups).
import { toAlpha3 } from '../../domain/country.js';
import { fromDb, type Units } from '../../domain/money.js';
import type { Sql } from '../../storage/db.js';
import { mandateBytes } from './memory.js';
import { carried, fold, type MandateSums, rollupOf, totals } from './rollup.js';
import { groupsOfCapabilities, groupsOfMcc } from './taxonomy.js';
import { mergeThresholds, type ThresholdOverrides, type Thresholds, thresholdsVersion } from './thresholds.js';

export type TrustLevel = 'REGISTERED' | 'VERIFIED' | 'TRUSTED';
export type Zone = 'GREEN' | 'AMBER' | 'RED' | 'CRITICAL';

const DAY_MS = 86_400_000;

/** Approved amounts kept for the agent's baseline (mean approved amount). */
export const AMOUNT_HISTORY_SIZE = 50;
/** Decisions kept for mandate compliance (share of mandate-gate declines). */
export const OUTCOME_HISTORY_SIZE = 20;
/** Audit rows read at load to rebuild windows, sessions, baselines and pending step-ups. */
export const RECENT_ROWS = 200;
export const MAX_SESSIONS = 32;
export const MAX_PENDING_STEP_UPS = 8;
export const MAX_FLAGGED_MERCHANTS = 64;

/** UTC day number. */
export function dayKeyOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

// Month of the last day asked for: the hot path asks for the same day over and over.
let cachedDay = -1;
let cachedMonth = -1;

/** UTC month number (year * 12 + month). */
export function monthKeyOf(ms: number): number {
  const day = dayKeyOf(ms);
  if (day !== cachedDay) {
    const d = new Date(day * DAY_MS);
    cachedMonth = d.getUTCFullYear() * 12 + d.getUTCMonth();
    cachedDay = day;
  }
  return cachedMonth;
}

export function dayStartMs(ms: number): number {
  return dayKeyOf(ms) * DAY_MS;
}

export function monthStartMs(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/**
 * Timestamps (ms) of events inside a sliding window, oldest first, in a growable ring.
 * Only the newest `keep` entries matter (a gate only asks "more than N?"), so older ones are
 * dropped instead of growing the buffer without bound.
 */
export class TimeWindow {
  private buf: Float64Array;
  private head = 0;
  private len = 0;

  constructor(capacity = 8) {
    this.buf = new Float64Array(capacity);
  }

  /** Drops entries older than `fromMs` and returns how many remain. */
  countSince(fromMs: number): number {
    const cap = this.buf.length;
    while (this.len > 0 && (this.buf[this.head] as number) < fromMs) {
      this.head = (this.head + 1) % cap;
      this.len--;
    }
    return this.len;
  }

  push(ms: number, keep: number): void {
    let cap = this.buf.length;
    if (this.len === cap) {
      if (cap < keep) {
        const next = new Float64Array(Math.min(cap * 2, Math.max(keep, 8)));
        for (let i = 0; i < this.len; i++) next[i] = this.buf[(this.head + i) % cap] as number;
        this.buf = next;
        this.head = 0;
        cap = next.length;
      } else {
        this.head = (this.head + 1) % cap;
        this.len--;
      }
    }
    this.buf[(this.head + this.len) % cap] = ms;
    this.len++;
    while (this.len > keep) {
      this.head = (this.head + 1) % cap;
      this.len--;
    }
  }

  get size(): number {
    return this.len;
  }

  /** Slots allocated (the buffer grows up to the gate's count + 1 and never shrinks). */
  get capacity(): number {
    return this.buf.length;
  }
}

/** The last AMOUNT_HISTORY_SIZE approved amounts and their exact sum. */
export class AmountHistory {
  private readonly buf: Units[] = new Array<Units>(AMOUNT_HISTORY_SIZE).fill(0n);
  private head = 0;
  count = 0;
  sum: Units = 0n;

  push(amount: Units): void {
    if (this.count === AMOUNT_HISTORY_SIZE) {
      this.sum -= this.buf[this.head] as Units;
      this.buf[this.head] = amount;
      this.head = (this.head + 1) % AMOUNT_HISTORY_SIZE;
    } else {
      this.buf[(this.head + this.count) % AMOUNT_HISTORY_SIZE] = amount;
      this.count++;
    }
    this.sum += amount;
  }
}

/** Outcome codes kept in AgentState.outcomes. */
export const OUTCOME_NONE = 0;
export const OUTCOME_APPROVE = 1;
export const OUTCOME_MANDATE_DECLINE = 2;
export const OUTCOME_OTHER_DECLINE = 3;
export const OUTCOME_STEP_UP = 4;

export interface MandateState {
  readonly id: string;
  readonly card: boolean;
  readonly crypto: boolean;
  readonly currency: string;
  readonly perTransaction: Units;
  readonly daily: Units | null;
  readonly monthly: Units | null;
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
  // Running APPROVED totals of the current UTC day and month.
  dayKey: number;
  dayAmount: Units;
  dayCount: number;
  monthKey: number;
  monthAmount: Units;
  monthCount: number;
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
  /** Distinct merchant keys seen in the session. */
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

export function derive(t: Thresholds): Derived {
  return {
    velocityWindowMs: t.risk_velocity_window_seconds * 1000,
    rapidWindowMs: t.rapid_fire_window_seconds * 1000,
    stepUpWindowMs: t.step_up_window_seconds * 1000,
    multiplierAmber: ratioUnits(t.cognitive_multiplier_amber),
    multiplierRed: ratioUnits(t.cognitive_multiplier_red),
    outlierMultiplier: ratioUnits(t.amount_outlier_multiplier),
  };
}

/** A threshold number (at most 8 decimals matter) as bigint units of 10^-8. */
function ratioUnits(n: number): Units {
  return BigInt(Math.round(n * 1e8));
}

export const BASELINE_SIZE = 32;
export const MAX_COUNTRIES = 64;
export const MAX_KNOWN_MERCHANTS = 256;
export const RECENT_SIZE = 8;

/** The last BASELINE_SIZE approved amounts of one currency, as natural logs, in a ring. */
export class AmountBaseline {
  readonly logs = new Float64Array(BASELINE_SIZE);
  count = 0;
  head = 0;

  push(amount: number): void {
    this.logs[this.head] = Math.log(Math.max(amount, 1e-8));
    this.head = (this.head + 1) % BASELINE_SIZE;
    if (this.count < BASELINE_SIZE) this.count++;
  }
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
  derived: Derived;
  readonly stats: TrustStats;
  readonly amounts: AmountHistory;
  /** Every decision (rapid-fire window). */
  readonly requests: TimeWindow;
  /** APPROVE decisions (velocity window). */
  readonly approvals: TimeWindow;
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
  readonly knownMerchants: Set<string>;
  /** Characters of the knownMerchants keys, for the memory estimate. */
  knownChars: number;
  /** The last RECENT_SIZE approvals: time and merchant key (bursts at one merchant). */
  readonly recentMs: Float64Array;
  readonly recentMerchants: string[];
  recentHead: number;
  /**
   * Whether bursts at one merchant are this agent's normal pace: set when it had one while its
   * pace was still being learned (fewer than amount_outlier_min_history approvals).
   */
  burstsNormal: boolean;
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
   * Audit rows of the agent not summarised by its rollup (read past it at load, plus decisions
   * since): past ROLLUP_AFTER_ROWS the worker refreshes the rollup in the background (rollup.ts).
   */
  auditRowsSinceRollup: number;
}

/** Replaces the thresholds of a loaded state (PUT/DELETE /thresholds of its Principal). */
export function setThresholdOverrides(state: AgentState, overrides: ThresholdOverrides | null): void {
  state.overrides = overrides ?? {};
  state.thresholds = mergeThresholds(state.overrides);
  state.thresholdsVersion = thresholdsVersion(state.thresholds);
  state.derived = derive(state.thresholds);
}

export function recordOutcome(state: AgentState, outcome: number): void {
  state.outcomes[state.outcomeHead] = outcome;
  state.outcomeHead = (state.outcomeHead + 1) % OUTCOME_HISTORY_SIZE;
}

export function merchantKeyOf(merchantId: string | null, merchantName: string | null): string {
  if (merchantId !== null && merchantId !== '') return merchantId.toLowerCase();
  if (merchantName !== null && merchantName !== '') return merchantName.toLowerCase();
  return '';
}

export function zoneOf(score: number, t: Thresholds): Zone {
  if (score >= t.cts_green_threshold) return 'GREEN';
  if (score >= t.cts_amber_threshold) return 'AMBER';
  if (score >= t.cts_red_threshold) return 'RED';
  return 'CRITICAL';
}

// ---------------------------------------------------------------------------------------
// Loading

function setOf(values: readonly string[] | null | undefined, norm: 'upper' | 'lower'): ReadonlySet<string> | null {
  if (!values || values.length === 0) return null;
  const s = new Set<string>();
  for (const v of values)
    if (typeof v === 'string') s.add(norm === 'upper' ? v.trim().toUpperCase() : v.trim().toLowerCase());
  return s.size === 0 ? null : s;
}

function countrySet(values: readonly string[] | null | undefined): ReadonlySet<string> | null {
  if (!values || values.length === 0) return null;
  const s = new Set<string>();
  for (const v of values) {
    if (typeof v !== 'string') continue;
    s.add(toAlpha3(v) ?? v.trim().toUpperCase());
  }
  return s.size === 0 ? null : s;
}

function ms(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string' || typeof value === 'number') return new Date(value).getTime();
  return 0;
}

function asStrings(value: unknown): string[] | null {
  return Array.isArray(value) ? (value.filter((v) => typeof v === 'string') as string[]) : null;
}

function moneyOf(value: unknown): Units | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return fromDb(String(value));
  return fromDb(String(value));
}

interface MandateRow {
  id: string;
  rails: string[] | null;
  currency: string;
  max_amount_per_transaction: string;
  max_daily_amount: string | null;
  max_monthly_amount: string | null;
  allowed_mccs: string[] | null;
  blocked_mccs: string[] | null;
  allowed_countries: string[] | null;
  blocked_countries: string[] | null;
  allowed_chains: string[] | null;
  allowed_assets: string[] | null;
  allowed_counterparties: string[] | null;
  crypto: Record<string, unknown> | null;
  valid_from: Date;
  valid_until: Date;
  created_at: Date;
}

/** Builds a MandateState from a mandates row (exported for tests and fixtures). */
export function mandateFromRow(row: MandateRow, nowMs: number): MandateState {
  const crypto = row.crypto && typeof row.crypto === 'object' ? row.crypto : null;
  const rails = (row.rails ?? ['card']).map((r) => r.toLowerCase());
  const allowedChains = setOf(row.allowed_chains ?? asStrings(crypto?.chains), 'lower');
  const allowedAssets = setOf(row.allowed_assets ?? asStrings(crypto?.assets), 'lower');
  const allowedCounterparties = setOf(row.allowed_counterparties ?? asStrings(crypto?.counterparties), 'lower');
  const perTransaction = moneyOf(row.max_amount_per_transaction) ?? 0n;
  return {
    id: row.id,
    card: rails.includes('card'),
    // A runtime-plane mandate carries crypto permissions as allowed_chains/assets.
    crypto: rails.includes('crypto') || crypto !== null || allowedChains !== null || allowedAssets !== null,
    currency: row.currency.toUpperCase(),
    perTransaction,
    daily: moneyOf(row.max_daily_amount),
    monthly: moneyOf(row.max_monthly_amount),
    cryptoMaxTransfer: crypto ? moneyOf(crypto.max_transfer) : null,
    allowedMccs: setOf(row.allowed_mccs, 'upper'),
    blockedMccs: setOf(row.blocked_mccs, 'upper'),
    allowedCountries: countrySet(row.allowed_countries),
    blockedCountries: countrySet(row.blocked_countries),
    allowedChains,
    allowedAssets,
    allowedCounterparties,
    validFromMs: ms(row.valid_from),
    validUntilMs: ms(row.valid_until),
    createdAtMs: ms(row.created_at),
    dayKey: dayKeyOf(nowMs),
    dayAmount: 0n,
    dayCount: 0,
    monthKey: monthKeyOf(nowMs),
    monthAmount: 0n,
    monthCount: 0,
  };
}

export interface AgentSeed {
  agentId: string;
  principalId: string;
  clientId: string;
  status?: string;
  trustLevel?: TrustLevel;
  kyaScore?: number | null;
  createdAtMs: number;
  capabilities?: readonly string[] | null;
  mandates?: MandateState[];
  overrides?: ThresholdOverrides | null;
}

/** A fresh state with no history (load() fills it from the database; tests use it directly). */
export function newAgentState(seed: AgentSeed): AgentState {
  const thresholds = mergeThresholds(seed.overrides ?? {});
  return {
    agentId: seed.agentId,
    principalId: seed.principalId,
    clientId: seed.clientId,
    status: seed.status ?? 'ACTIVE',
    trustLevel: seed.trustLevel ?? 'REGISTERED',
    kyaScore: seed.kyaScore ?? null,
    kyaText: seed.kyaScore === undefined || seed.kyaScore === null ? null : seed.kyaScore.toFixed(2),
    createdAtMs: seed.createdAtMs,
    capabilities: (seed.capabilities ?? []).map((c) => c.toLowerCase()),
    mandates: seed.mandates ?? [],
    mandateBytes: (seed.mandates ?? []).reduce((n, m) => n + mandateBytes(m), 0),
    overrides: seed.overrides ?? {},
    thresholds,
    thresholdsVersion: thresholdsVersion(thresholds),
    derived: derive(thresholds),
    stats: { approved: 0, declined: 0, stepUps: 0 },
    amounts: new AmountHistory(),
    requests: new TimeWindow(),
    approvals: new TimeWindow(),
    outcomes: new Uint8Array(OUTCOME_HISTORY_SIZE),
    outcomeHead: 0,
    capabilityGroups: groupsOfCapabilities(seed.capabilities ?? []),
    groupsSeen: 0,
    baselines: new Map(),
    countries: new Map(),
    knownMerchants: new Set(),
    knownChars: 0,
    recentMs: new Float64Array(RECENT_SIZE).fill(Number.NEGATIVE_INFINITY),
    recentMerchants: new Array<string>(RECENT_SIZE).fill(''),
    recentHead: 0,
    burstsNormal: false,
    novelMs: new Float64Array(RECENT_SIZE).fill(Number.NEGATIVE_INFINITY),
    novelCountries: new Array<string>(RECENT_SIZE).fill(''),
    novelApproved: new Uint8Array(RECENT_SIZE),
    novelHead: 0,
    merchantDeclines: new Map(),
    merchantChars: 0,
    sessions: new Map(),
    pendingStepUps: [],
    unconfirmedOutlierMs: Number.NEGATIVE_INFINITY,
    lastLargeMs: Number.NEGATIVE_INFINITY,
    auditRowsSinceRollup: 0,
    lastZone: null,
    lastTrustScore: null,
  };
}

/** Gates whose DECLINE counts against the mandate_compliance dimension. */
export const MANDATE_GATES: ReadonlySet<string> = new Set([
  'no_active_mandate',
  'mandate_expired',
  'currency_mismatch',
  'mandate_exceeded',
  'mcc_blocked',
  'country_blocked',
  'crypto_blocked',
]);

/**
 * DECLINE reasons that do NOT point to a compromised agent: pacing (rapid fire, daily and
 * monthly caps), configuration (no mandate, expired, currency, rail) and the consequences of
 * earlier decisions. Every other DECLINE reason (instructions in the intent, drift,
 * misalignment, a hard risk score, a CRITICAL trust score, amounts over the per-transaction
 * limit, categories, countries and crypto the mandate forbids) does.
 */
export const NOT_COMPROMISE_REASONS: ReadonlySet<string> = new Set([
  'risk_rapid_fire',
  'daily_limit_exceeded',
  'monthly_limit_exceeded',
  'no_active_mandate',
  'rail_not_permitted',
  'mandate_not_yet_valid',
  'mandate_expired',
  'currency_mismatch',
  'agent_inactive',
  'session_terminated',
  'system_unavailable',
  'step_up_confirmation_ignored',
]);

/** Whether a DECLINE with these reason codes points to compromise (sessions, flagged merchants). */
export function pointsToCompromise(reasons: readonly string[]): boolean {
  for (const r of reasons) if (!NOT_COMPROMISE_REASONS.has(r)) return true;
  return false;
}

/**
 * Key in `baselines` of the amounts as shares of their mandate's max_amount_per_transaction,
 * all currencies together: the baseline of a currency the agent has too little history in.
 */
export const SHARE_BASELINE = '*share';

/** The per-transaction limit of the agent's first mandate in `currency` (null: none). */
export function capOf(state: AgentState, currency: string): Units | null {
  for (const m of state.mandates) if (m.currency === currency) return m.perTransaction;
  return null;
}

/** Learns from an APPROVE: amount baseline, countries, merchant categories, known merchants. */
export function learnApproval(
  state: AgentState,
  amount: Units,
  currency: string,
  mcc: string | null,
  country: string | null,
  merchant: string,
  nowMs: number,
  cap: Units | null = null,
): void {
  let b = state.baselines.get(currency);
  if (b === undefined) {
    b = new AmountBaseline();
    state.baselines.set(currency, b);
  }
  b.push(Number(amount) / 1e8);
  if (cap !== null && cap > 0n) {
    let shares = state.baselines.get(SHARE_BASELINE);
    if (shares === undefined) {
      shares = new AmountBaseline();
      state.baselines.set(SHARE_BASELINE, shares);
    }
    shares.push(Number(amount) / Number(cap));
  }
  state.groupsSeen |= groupsOfMcc(mcc);
  if (country !== null) {
    const c = state.countries.get(country);
    if (c !== undefined) c.approvals++;
    else if (state.countries.size < MAX_COUNTRIES) state.countries.set(country, { approvals: 1, firstMs: nowMs });
  }
  if (merchant !== '' && state.knownMerchants.size < MAX_KNOWN_MERCHANTS && !state.knownMerchants.has(merchant)) {
    state.knownMerchants.add(merchant);
    state.knownChars += merchant.length;
  }
}

/** Floor of the robust spread (log units): identical prices (subscriptions) have MAD 0. */
export const MIN_LOG_SPREAD = 0.25;
/** Prior spread of log amounts (about x2.2 either way) and its weight in amounts. */
export const PRIOR_LOG_SPREAD = 0.8;
export const PRIOR_WEIGHT = 5;
/** Robust z above which an amount (also above amount_outlier_multiplier x the median) is large. */
export const LARGE_Z = 2.2;

// Scratch for the median/MAD of a baseline (one decision at a time per thread).
const SCRATCH = new Float64Array(BASELINE_SIZE);

/** Median and MAD of a baseline's log amounts (MAD x 1.4826 estimates a standard deviation). */
export function medianMad(b: AmountBaseline): { median: number; spread: number } {
  const n = b.count;
  const xs = SCRATCH.subarray(0, n);
  xs.set(b.logs.subarray(0, n));
  xs.sort();
  const median = n % 2 === 1 ? (xs[(n - 1) >> 1] as number) : ((xs[n / 2 - 1] as number) + (xs[n / 2] as number)) / 2;
  for (let i = 0; i < n; i++) xs[i] = Math.abs((xs[i] as number) - median);
  xs.sort();
  const mad = n % 2 === 1 ? (xs[(n - 1) >> 1] as number) : ((xs[n / 2 - 1] as number) + (xs[n / 2] as number)) / 2;
  // A few amounts give a noisy MAD: shrink towards PRIOR_LOG_SPREAD (weight of PRIOR_WEIGHT amounts).
  const s = 1.4826 * mad;
  const spread = Math.sqrt((n * s * s + PRIOR_WEIGHT * PRIOR_LOG_SPREAD * PRIOR_LOG_SPREAD) / (n + PRIOR_WEIGHT));
  return { median, spread: Math.max(MIN_LOG_SPREAD, spread) };
}

/**
 * Whether `amount` is large for the agent: above amount_outlier_multiplier x its median approved
 * amount in `currency` and above LARGE_Z robust spreads (false while fewer than
 * amount_outlier_min_history amounts were approved). risk.ts judges the same at decision time.
 */
export function isLargeAmount(state: AgentState, currency: string, amount: Units): boolean {
  const b = state.baselines.get(currency);
  if (b === undefined || b.count < state.thresholds.amount_outlier_min_history) return false;
  const { median, spread } = medianMad(b);
  const excess = Math.log(Math.max(Number(amount) / 1e8, 1e-8)) - median;
  return (
    excess > Math.log(state.thresholds.amount_outlier_multiplier) &&
    Math.round((excess / spread) * 10_000) / 10_000 > LARGE_Z
  );
}

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

/** Number of same-merchant approvals (with this one) that make a burst. */
export function burstSize(t: Thresholds): number {
  return Math.max(3, Math.ceil((t.rapid_fire_max_count * 3) / 20));
}

/** Requests (any decision, with this one) in the rapid-fire window that make a burst. */
export function countBurst(t: Thresholds): number {
  return Math.max(5, Math.ceil(t.rapid_fire_max_count / 4));
}

/**
 * Remembers an APPROVE in the ring of recent approvals; while the agent's pace is being learned
 * (fewer than amount_outlier_min_history approvals before this one), a burst marks bursts as
 * its normal pace.
 */
export function noteApproval(state: AgentState, merchant: string, nowMs: number, approvedBefore: number): void {
  if (
    !state.burstsNormal &&
    approvedBefore < state.thresholds.amount_outlier_min_history &&
    (approvalsAtSince(state, merchant, nowMs - state.derived.rapidWindowMs) + 1 >= burstSize(state.thresholds) ||
      state.requests.countSince(nowMs - state.derived.rapidWindowMs) >= countBurst(state.thresholds))
  ) {
    state.burstsNormal = true;
  }
  noteRequest(state, merchant, nowMs);
}

/** Remembers an APPROVE in the short ring of recent approvals (bursts at one merchant). */
export function noteRequest(state: AgentState, merchant: string, nowMs: number): void {
  state.recentMs[state.recentHead] = nowMs;
  state.recentMerchants[state.recentHead] = merchant;
  state.recentHead = (state.recentHead + 1) % RECENT_SIZE;
}

/** One audit row as read back at load, oldest first. */
export interface HistoryRow {
  amount: Units;
  currency: string;
  mcc?: string | null;
  country?: string | null;
  decision: string;
  reasonCodes: readonly string[];
  gatesFired: readonly string[];
  merchant: string;
  sessionId: string | null;
  trustScore: number | null;
  id: string;
  atMs: number;
}

/** Counts one more decline of the agent at `merchant` (at most MAX_FLAGGED_MERCHANTS merchants). */
export function addMerchantDecline(state: AgentState, merchant: string): void {
  const n = state.merchantDeclines.get(merchant);
  if (n !== undefined) state.merchantDeclines.set(merchant, n + 1);
  else if (state.merchantDeclines.size < MAX_FLAGGED_MERCHANTS) {
    state.merchantDeclines.set(merchant, 1);
    state.merchantChars += merchant.length;
  }
}

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

/** Replays audit rows (oldest first) into windows, baselines, sessions and pending step-ups. */
export function replayHistory(state: AgentState, rows: readonly HistoryRow[], nowMs: number): void {
  const t = state.thresholds;
  let approvalsLeft = 0;
  for (const r of rows) if (r.decision === 'APPROVE') approvalsLeft++;
  const d = state.derived;
  for (const r of rows) {
    state.requests.push(r.atMs, t.rapid_fire_max_count + 1);
    const country = r.country ?? null;
    if (countryNovelty(state, country, r.atMs) > 0)
      noteNovelCountry(
        state,
        country as string,
        r.atMs,
        r.decision !== 'APPROVE'
          ? NOVEL_REFUSED
          : r.reasonCodes.includes('step_up_confirmed')
            ? NOVEL_CONFIRMED
            : NOVEL_APPROVED,
      );
    let outcome = OUTCOME_OTHER_DECLINE;
    if (r.decision === 'APPROVE') {
      outcome = OUTCOME_APPROVE;
      state.approvals.push(r.atMs, t.risk_velocity_max_count + 1);
      state.amounts.push(r.amount);
      if (!r.reasonCodes.includes('step_up_confirmed') && isLargeAmount(state, r.currency, r.amount))
        state.lastLargeMs = r.atMs;
      learnApproval(state, r.amount, r.currency, r.mcc ?? null, country, r.merchant, r.atMs, capOf(state, r.currency));
      // stats hold every approval already (rollup and totals): the ones before this row.
      noteApproval(state, r.merchant, r.atMs, state.stats.approved - approvalsLeft);
      approvalsLeft--;
      if (r.reasonCodes.includes('step_up_confirmed')) {
        consumePending(state, r);
        state.unconfirmedOutlierMs = Number.NEGATIVE_INFINITY;
      }
    } else if (r.decision === 'STEP_UP') {
      outcome = OUTCOME_STEP_UP;
      if (r.reasonCodes.includes('amount_outlier')) state.unconfirmedOutlierMs = r.atMs;
      if (r.atMs + d.stepUpWindowMs > nowMs && state.pendingStepUps.length < MAX_PENDING_STEP_UPS) {
        state.pendingStepUps.push({
          authorizationId: r.id,
          amount: r.amount,
          currency: r.currency,
          merchant: r.merchant,
          expiresAtMs: r.atMs + d.stepUpWindowMs,
        });
      }
    } else {
      for (const g of r.gatesFired) if (MANDATE_GATES.has(g)) outcome = OUTCOME_MANDATE_DECLINE;
      if (r.merchant !== '' && pointsToCompromise(r.reasonCodes)) addMerchantDecline(state, r.merchant);
    }
    recordOutcome(state, outcome);
    if (r.sessionId !== null) {
      const s = openSession(state, r.sessionId, r.atMs);
      s.lastSeenMs = r.atMs;
      if (r.decision === 'DECLINE' && pointsToCompromise(r.reasonCodes)) s.consecutiveDenials++;
      else if (r.decision === 'APPROVE') s.consecutiveDenials = 0;
      if (r.gatesFired.includes('session_terminated')) s.terminated = true;
      addSessionMerchant(s, r.merchant, t.session_max_merchants);
    }
    if (r.trustScore !== null) {
      state.lastTrustScore = r.trustScore;
      state.lastZone = zoneOf(r.trustScore, t);
    }
  }
}

function consumePending(state: AgentState, r: HistoryRow): void {
  const list = state.pendingStepUps;
  for (let i = 0; i < list.length; i++) {
    const p = list[i] as PendingStepUp;
    if (p.amount === r.amount && p.currency === r.currency && p.merchant === r.merchant) {
      list.splice(i, 1);
      return;
    }
  }
}

/**
 * Loads an agent's state: the agent row with its Principal's threshold overrides and its
 * audit rollup, its unexpired ACTIVE mandates and the newest expired one per rail coverage
 * and currency, today's and this month's APPROVED totals per mandate with the all-time
 * decision counts (the rollup plus the rows since its upto), and its RECENT_ROWS newest
 * audit rows. Four queries, run one after another (the embedded database takes one query at
 * a time), all on primary keys or the authorizations (agent_id, created_at) and mandates
 * (agent_id, created_at) indexes.
 */
export async function loadAgentState(sql: Sql, agentId: string, nowMs: number): Promise<AgentState | null> {
  const agents = await sql<
    {
      id: string;
      principal_id: string;
      client_id: string;
      status: string;
      trust_level: TrustLevel;
      kya_score: string | null;
      created_at: Date;
      capabilities: string[] | null;
      overrides: Record<string, unknown> | null;
      rollup_upto: Date | null;
      rollup_approved: string | null;
      rollup_declined: string | null;
      rollup_step_ups: string | null;
      rollup_mandates: Record<string, MandateSums> | null;
    }[]
  >`
    select a.id, a.principal_id, a.client_id, a.status, a.trust_level, a.kya_score::text as kya_score,
           a.created_at, a.capabilities, t.overrides, r.upto as rollup_upto, r.approved::text as rollup_approved,
           r.declined::text as rollup_declined, r.step_ups::text as rollup_step_ups,
           r.mandates as rollup_mandates
    from agents a left join thresholds t on t.principal_id = a.principal_id
      left join agent_audit_rollups r on r.agent_id = a.id
    where a.id = ${agentId}`;
  const agent = agents[0];
  if (!agent) return null;

  // Every unexpired ACTIVE mandate (at most 100 per agent: src/runtime/mandate-store.ts) and, of
  // the expired ones, only the newest of each group that mandateFromRow cannot tell apart in
  // rail coverage and currency (the groups are finer than that: by the stored rails, whether
  // the crypto block, chains and assets are set, and the currency as stored). That is all
  // selectMandate can ever report (mandate_expired names the newest mandate covering the rail
  // in the currency; currency_mismatch the newest covering the rail), so the expired mandates
  // an agent piles up over the years are neither all read nor all kept.
  const now = new Date(nowMs);
  const mandateRows = await sql<MandateRow[]>`
    with m as (
      select id, rails, currency, max_amount_per_transaction::text as max_amount_per_transaction,
             max_daily_amount::text as max_daily_amount, max_monthly_amount::text as max_monthly_amount,
             allowed_mccs, blocked_mccs, allowed_countries, blocked_countries, allowed_chains,
             allowed_assets, allowed_counterparties, crypto, valid_from, valid_until, created_at
      from mandates
      where agent_id = ${agentId} and status = 'ACTIVE'
    ), kept as (
      select * from m where valid_until > ${now}
      union all
      (select distinct on (rails, crypto is null, cardinality(allowed_chains) > 0,
                           cardinality(allowed_assets) > 0, currency) *
       from m where valid_until <= ${now}
       order by rails, crypto is null, cardinality(allowed_chains) > 0, cardinality(allowed_assets) > 0,
                currency, created_at desc, id desc)
    )
    select * from kept
    order by created_at desc, id desc`;

  // The rollup summarises the rows before its upto; only the rows since are read (rollup.ts).
  const rollup = rollupOf(agent);
  const rows = await totals(sql, agentId, {
    from: rollup?.upto ?? null,
    to: null,
    monthStart: new Date(monthStartMs(nowMs)),
    dayStart: new Date(dayStartMs(nowMs)),
  });

  const recent = await sql<
    {
      id: string;
      amount: string;
      currency: string;
      mcc: string | null;
      country: string | null;
      decision: string;
      reason_codes: string[];
      gates_fired: string[];
      merchant_id: string | null;
      merchant_name: string | null;
      session_id: string | null;
      trust_score: string | null;
      created_at: Date;
    }[]
  >`
    select id, amount::text as amount, currency, mcc, country, decision, reason_codes, gates_fired, merchant_id,
           merchant_name, session_id, trust_score::text as trust_score, created_at
    from authorizations
    where agent_id = ${agentId}
    order by created_at desc, id desc
    limit ${RECENT_ROWS}`;

  const mandates: MandateState[] = [];
  for (const row of mandateRows) mandates.push(mandateFromRow(row, nowMs));
  const state = newAgentState({
    agentId: agent.id,
    principalId: agent.principal_id,
    clientId: agent.client_id,
    status: agent.status,
    trustLevel: agent.trust_level,
    kyaScore: agent.kya_score === null ? null : Number(agent.kya_score),
    createdAtMs: ms(agent.created_at),
    capabilities: agent.capabilities,
    mandates,
    overrides: sanitizeOverrides(agent.overrides),
  });

  if (rollup !== null) {
    state.stats.approved += rollup.approved;
    state.stats.declined += rollup.declined;
    state.stats.stepUps += rollup.stepUps;
    for (const m of mandates) {
      const c = carried(rollup, m.id, nowMs);
      m.dayAmount = c.dayAmount;
      m.dayCount = c.dayCount;
      m.monthAmount = c.monthAmount;
      m.monthCount = c.monthCount;
    }
  }
  state.auditRowsSinceRollup = fold(rows, state.stats, (id) => mandates.find((m) => m.id === id) ?? null);

  const history: HistoryRow[] = [];
  for (let i = recent.length - 1; i >= 0; i--) {
    const r = recent[i] as (typeof recent)[number];
    history.push({
      id: r.id,
      amount: fromDb(r.amount) ?? 0n,
      currency: r.currency,
      mcc: r.mcc,
      country: r.country,
      decision: r.decision,
      reasonCodes: r.reason_codes ?? [],
      gatesFired: r.gates_fired ?? [],
      merchant: merchantKeyOf(r.merchant_id, r.merchant_name),
      sessionId: r.session_id,
      trustScore: r.trust_score === null ? null : Number(r.trust_score),
      atMs: ms(r.created_at),
    });
  }
  replayHistory(state, history, nowMs);
  return state;
}

function sanitizeOverrides(raw: Record<string, unknown> | null): ThresholdOverrides {
  if (!raw || typeof raw !== 'object') return {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  return out as ThresholdOverrides;
}
