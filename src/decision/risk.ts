// Stage 2: risk scoring (docs/decision-engine.md "Risk scoring"). The score is a capped sum
// of documented contributions; the gates compare exact counts and exact amounts.

import type { Units } from '../domain/money.js';
import { type AgentState, type MandateState, RECENT_SIZE } from './agent-state.js';
import { LARGE_Z, medianMad, merchantLogAmount, SHARE_BASELINE } from './amount-stats.js';
import { imitatesKnown, nameWords } from './lookalike.js';
import type { AuthorizeRequest } from './model/contract.js';
import { round4 } from './model/promotion.js';
import { principalFlagged } from './principal-evidence.js';
import { isProbing } from './probing.js';
import {
  approvalsAtSince,
  approvalsSince,
  burstSize,
  countBurst,
  countryNovelty,
  newCategoryRun,
  newCountryChance,
  PACE_WINDOW_MS,
  paceLearned,
  recentNovel,
} from './recent.js';
import type { AmountBaseline } from './rings.js';

export { MIN_LOG_SPREAD, medianMad, PRIOR_LOG_SPREAD, PRIOR_WEIGHT } from './amount-stats.js';

import {
  currencyOfCountry,
  G_APPAREL,
  G_DINING,
  G_ELECTRONICS,
  G_LUXURY,
  G_RETAIL,
  G_SOFTWARE,
  G_TRAVEL,
  groupsOfIntent,
  groupsOfMcc,
  HIGH_RISK_GROUPS,
  regionOf,
} from './taxonomy.js';

/** MCCs treated as high risk: gambling, quasi-cash, money transfer, stored value, pawn, dating, telemarketing. */
export const HIGH_RISK_MCCS: ReadonlySet<string> = new Set([
  '4829',
  '5933',
  '5967',
  '6051',
  '6540',
  '7273',
  '7800',
  '7801',
  '7802',
  '7995',
]);

export const RISK_WEIGHT_RAPID = 0.25;
export const RISK_WEIGHT_VELOCITY = 0.25;
export const RISK_WEIGHT_OUTLIER = 0.25;
export const RISK_WEIGHT_MERCHANT_FLAGGED = 0.35;
export const RISK_WEIGHT_HIGH_RISK_MCC = 0.2;
export const RISK_WEIGHT_UNIDENTIFIED = 0.05;
export const RISK_WEIGHT_COUNTRY_JUMP = 0.3;
/** A new merchant whose name imitates one the agent paid (lookalike.ts): a STEP_UP finding too. */
export const RISK_WEIGHT_LOOKALIKE = 0.3;
/** A run of small charges in a category new to the agent (recent.ts newCategoryRun): a STEP_UP finding too. */
export const RISK_WEIGHT_CATEGORY_RUN = 0.2;

/**
 * Cold start (the agent has approvals, fewer than amount_outlier_min_history in this currency):
 * share of max_amount_per_transaction from which an amount steps up (+0.2 x trust). A first
 * request ever is bounded by the mandate alone.
 */
export const COLD_CAP_SHARE = 0.75;
/** Robust z (log amount above the median, in spreads) beyond which an amount is an outlier. */
export const OUTLIER_Z = 3.3;
/** Share of max_amount_per_transaction from which an amount is "near the cap". */
export const NEAR_CAP_SHARE = 0.75;
/**
 * After a STEP_UP for amount_outlier that the Principal has not confirmed, for this long, an
 * amount above UNCONFIRMED_OUTLIER_RATIO x the median (or, in a currency without a baseline,
 * above UNCONFIRMED_CAP_SHARE of max_amount_per_transaction) is an outlier as well.
 */
export const UNCONFIRMED_OUTLIER_MS = 6 * 3_600_000;
export const UNCONFIRMED_OUTLIER_RATIO = 3;
export const UNCONFIRMED_CAP_SHARE = 0.25;
/**
 * Within this long after an approved large amount (above amount_outlier_multiplier x the
 * median and LARGE_Z robust spreads; not a confirmed STEP_UP), another one is an outlier: one
 * large purchase is an event, a run of them is a drain.
 */
export const REPEAT_LARGE_MS = 6 * 3_600_000;
/**
 * A run of approvals within PACE_WINDOW_MS (recent.ts) steps up past the agent's own fastest
 * pace (paceMax) and past PACE_CASH_LIKE approvals (this one included) when the request buys
 * goods that turn into cash at once (gift cards, vouchers, game credits, stored value), or
 * PACE_ANY otherwise (a ticket drop: a few orders seconds apart is how honest people buy).
 */
export const PACE_CASH_LIKE = 2;
/** The approval in a new category that is a run (the third), and the largest amount to median. */
export const CATEGORY_RUN = 3;
export const CATEGORY_RUN_RATIO = 0.5;
export const PACE_ANY = 8;
/** MCCs of instantly redeemable goods: digital games and large digital goods merchants, stored value. */
const CASH_LIKE_MCCS: ReadonlySet<string> = new Set(['5816', '5818', '6540']);
const CASH_LIKE_WORDS =
  /\b(e-?gift|gift ?cards?|giftcards?|vouchers?|prepaid|game ?(credits?|coins?|points)|gutscheine?|tarjetas? regalo|cartes? cadeaux?)\b/i;

/** Whether the request buys goods that turn into cash at once (by MCC, merchant name or intent). */
export function cashLike(request: AuthorizeRequest): boolean {
  if (request.mcc !== null && (CASH_LIKE_MCCS.has(request.mcc) || HIGH_RISK_MCCS.has(request.mcc))) return true;
  return CASH_LIKE_WORDS.test(request.merchantName ?? '') || CASH_LIKE_WORDS.test(request.intent.intentType);
}

/**
 * An amount within this factor of the last one approved at the same merchant is that merchant's
 * usual charge (a renewal, the next order of the same tickets): the agent's overall median does
 * not make it an outlier. Near the cap (a drip) and after an unconfirmed outlier it still does.
 */
export const USUAL_AT_MERCHANT = 1.5;
const USUAL_AT_MERCHANT_MILLI = Math.round(1000 * Math.log(USUAL_AT_MERCHANT));

/** Country-jump score at or above which the request steps up. */
export const COUNTRY_JUMP_THRESHOLD = 0.55;
/** How much an established agent (trustFactor 1) raises the country-jump threshold. */
export const COUNTRY_JUMP_TRUST = 0.05;
/** Country-jump weight of a new country on the elevated card-not-present fraud list. */
export const COUNTRY_JUMP_ELEVATED = 0.1;
/** Country-jump weight of surprise: x (1 - 2 x newCountryChance), x the country's novelty. */
export const JUMP_SURPRISE = 0.4;
/** ... of a merchant the agent was never approved at. */
export const JUMP_NEW_MERCHANT = 0.1;
/** ... of the amount: x log4(amount / median) clamped to [0, 1]; the full weight in a cold currency above 0.25 of the cap. */
export const JUMP_AMOUNT = 0.2;
/** ... of a merchant category the agent never paid in, outside / inside what its intent and capabilities name. */
export const JUMP_NEW_CATEGORY = 0.35;
export const JUMP_NEW_CATEGORY_IN_PURPOSE = 0.2;
/**
 * ... of other requests in that new country: one not approved in the last 24 hours since the
 * last STEP_UP the Principal confirmed there; each approved one within JUMP_SPREE_MS (at most 2).
 */
export const JUMP_PERSISTENCE_REFUSED = 0.35;
export const JUMP_PERSISTENCE_APPROVED = 0.2;
/** Window of the approved requests that count for persistence (a spree, not a stay). */
export const JUMP_SPREE_MS = 2 * 3_600_000;
/**
 * ... of a region none of the agent's countries is in (an agent that pays in 3+ countries):
 * x (1 - 2 r / (n + r)), r its regions, n its approvals (how unexpected a new region is).
 */
export const JUMP_NEW_REGION = 0.25;
/** Discount of a travel or dining merchant for an agent whose intent or capabilities name travel. */
export const JUMP_TRIP = 0.45;
/**
 * Discount of a payment in the new country's own currency under a mandate the Principal granted
 * in that currency, when the agent has paid little in it so far (fewer than
 * amount_outlier_min_history approvals): the Principal expected it to pay there (a trip, a move).
 * Not added to JUMP_TRIP: the larger of the two applies.
 */
export const JUMP_GRANTED_CURRENCY = 0.45;
/**
 * Discount of a software or digital-services merchant (MCC group software only) for an agent that
 * already pays such merchants: a vendor's country is where it bills from (Ireland, Australia,
 * Czechia), not where the agent is. Small, the size of JUMP_NEW_MERCHANT: the rest of the jump
 * (a new merchant, the amount, a new region, refusals there) still counts. The larger of the
 * discounts applies.
 */
export const JUMP_DIGITAL_VENDOR = 0.1;

/**
 * Jurisdictions with elevated card-not-present fraud or sanctions exposure (ISO 3166 alpha-3),
 * as merchant-acquirer risk tiers commonly list them. Only a country NEW to the agent weighs:
 * an agent that already pays there is judged on its own history.
 */
export const ELEVATED_RISK_COUNTRIES: ReadonlySet<string> = new Set(
  'NGA GHA CMR KEN VNM IDN PHL PAK KHM MMR LAO BRA VEN COL ROU UKR RUS BLR MDA IRN PRK SYR YEM'.split(' '),
);

export type Severity = 'none' | 'low' | 'medium' | 'high' | 'critical';
const SEVERITY_RANK: Readonly<Record<Severity, number>> = { none: 0, low: 1, medium: 2, high: 3, critical: 4 };

export interface RiskResult {
  score: number;
  /** Risk signal codes (risk_assessment.reason_codes). */
  readonly signals: string[];
  /** Requests in the rapid-fire window, this one included. */
  requests: number;
  /** Approvals in the velocity window if this one is approved. */
  approvals: number;
  /** Approvals at this merchant in the rapid-fire window, plus this request. */
  sameMerchant: number;
  /** Approvals within PACE_WINDOW_MS, plus this request (0 when the agent's pace is not judged yet). */
  paced: number;
  /** The agent's own fastest pace (AgentState.paceMax) and the run the request's content allows. */
  paceAllowed: number;
  /** amount / median approved amount in this currency (0 without enough history). */
  amountRatio: number;
  /** Robust z of the log amount against the currency baseline (0 without enough history). */
  amountZ: number;
  /** amount / max_amount_per_transaction. */
  capShare: number;
  countryJump: number;
  /** trustFactor of the agent (0 new .. 1 established). */
  trust: number;
  rapidFire: boolean;
  velocity: boolean;
  burst: boolean;
  outlier: boolean;
  /** Above amount_outlier_multiplier x the median (judged baselines only). */
  large: boolean;
  jump: boolean;
  merchantFlagged: boolean;
  /** A merchant new to the agent whose name imitates one it paid (lookalike.ts). */
  lookalike: boolean;
  /** A run of small charges in a category the agent began paying days ago (recent.ts newCategoryRun). */
  categoryRun: boolean;
  /** The agent is searching for a limit (probing.ts). */
  probing: boolean;
  hardDecline: boolean;
  stepUp: boolean;
  severity: Severity;
  condition: 'NORMAL' | 'ELEVATED' | 'HIGH' | 'CRITICAL';
}

function raise(r: RiskResult, s: Severity): void {
  if (SEVERITY_RANK[s] > SEVERITY_RANK[r.severity]) r.severity = s;
}

/**
 * How far the agent's record lets it go (0 new .. 1 established): half its trust_level
 * (REGISTERED 0, VERIFIED 0.5, TRUSTED 1), half its kya_score (0 until scored).
 */
export function trustFactor(state: AgentState): number {
  const level = state.trustLevel === 'TRUSTED' ? 1 : state.trustLevel === 'VERIFIED' ? 0.5 : 0;
  return 0.5 * level + 0.5 * (state.kyaScore ?? 0);
}

/**
 * Bursts are judged once the agent's pace is learned (recent.ts paceLearned) and only when
 * bursts were not part of it (outcome.ts).
 */
function judgesBursts(state: AgentState): boolean {
  return !state.burstsNormal && paceLearned(state);
}

/** Scores the request against the agent's own windows and baselines. Does not mutate state. */
export function assessRisk(
  state: AgentState,
  request: AuthorizeRequest,
  amount: Units,
  merchant: string,
  nowMs: number,
  mandate: MandateState,
): RiskResult {
  const t = state.thresholds;
  const d = state.derived;
  const trust = trustFactor(state);
  const from = nowMs - d.rapidWindowMs;
  const sameMerchant = approvalsAtSince(state, merchant, from) + 1;
  const r: RiskResult = {
    score: 0,
    signals: [],
    requests: state.requests.countSince(from) + 1,
    approvals: state.approvals.countSince(nowMs - d.velocityWindowMs) + 1,
    sameMerchant,
    paced: 0,
    paceAllowed: 0,
    amountRatio: 0,
    amountZ: 0,
    capShare: 0,
    countryJump: 0,
    trust: round4(trust),
    rapidFire: false,
    velocity: false,
    burst: false,
    outlier: false,
    large: false,
    jump: false,
    merchantFlagged: false,
    lookalike: false,
    categoryRun: false,
    probing: false,
    hardDecline: false,
    stepUp: false,
    severity: 'none',
    condition: 'NORMAL',
  };
  let score = RISK_WEIGHT_RAPID * Math.min(1, r.requests / t.rapid_fire_max_count);
  score += RISK_WEIGHT_VELOCITY * Math.min(1, r.approvals / t.risk_velocity_max_count);

  if (r.requests > t.rapid_fire_max_count) {
    r.rapidFire = true;
    r.signals.push('rapid_fire');
    raise(r, 'high');
  }
  // Count velocity: approvals over risk_velocity_max_count in its window, or a burst of
  // approvals at one merchant inside the rapid-fire window unless bursts are the agent's pace.
  if (
    r.approvals > t.risk_velocity_max_count ||
    (judgesBursts(state) && (sameMerchant >= burstSize(t) || r.requests >= countBurst(t)))
  ) {
    r.velocity = true;
    r.burst = r.approvals <= t.risk_velocity_max_count;
    r.signals.push('velocity_spike');
    raise(r, 'medium');
  }
  // Pace: approvals seconds apart, faster than the agent's own fastest pace and than the
  // request's content allows (cash-like goods: the third within two minutes). An agent that
  // already filled the ring of recent approvals within the window has a pace the ring cannot
  // measure past: not judged.
  if (paceLearned(state) && state.paceMax < RECENT_SIZE) {
    r.paced = approvalsSince(state, nowMs - PACE_WINDOW_MS) + 1;
    if (r.paced > PACE_CASH_LIKE) {
      r.paceAllowed = Math.max(state.paceMax, cashLike(request) ? PACE_CASH_LIKE : PACE_ANY);
      if (r.paced > r.paceAllowed && !r.velocity) {
        r.velocity = true;
        r.burst = true;
        r.signals.push('velocity_spike');
        raise(r, 'medium');
      }
    }
  }

  // Probing: many tries at varied amounts near a limit, or dry runs, in a short time.
  if (isProbing(state, nowMs)) {
    r.probing = true;
    r.signals.push('limit_probing');
    raise(r, 'medium');
  }

  // Amount: robust baseline of this currency (median/MAD of log amounts), cold start against
  // the mandate's per-transaction limit.
  const value = Number(amount) / 1e8;
  const cap = Number(mandate.perTransaction) / 1e8;
  r.capShare = cap > 0 ? round4(value / cap) : 0;
  const baseline = state.baselines.get(request.currency);
  const shares = state.baselines.get(SHARE_BASELINE);
  // A Principal's own amount_outlier_multiplier replaces the adaptive rule: only "above that
  // multiple of the median" steps up, with no near-cap or cold-start rule.
  const explicit = state.overrides.amount_outlier_multiplier !== undefined;
  const mccGroups = groupsOfMcc(request.mcc);
  const nearCap = !explicit && r.capShare >= NEAR_CAP_SHARE;
  const unconfirmed = !explicit && nowMs - state.unconfirmedOutlierMs < UNCONFIRMED_OUTLIER_MS;
  // A new kind of purchase (a merchant and a category the agent never paid, goods that do not
  // resell): its median elsewhere says nothing of what a venue, a caterer or a removals firm
  // costs, so the amount is judged against the mandate's per-transaction limit, the Principal's
  // own scale, as at cold start.
  const cold =
    !explicit &&
    state.stats.approved > 0 &&
    (r.capShare >= COLD_CAP_SHARE + 0.2 * trust || (unconfirmed && r.capShare >= UNCONFIRMED_CAP_SHARE));
  const kindNew = !explicit && newKindOfPurchase(state, request, merchant);
  if (baseline !== undefined && baseline.count >= t.amount_outlier_min_history) {
    const { median, spread } = medianMad(baseline);
    const lx = Math.log(Math.max(value, 1e-8));
    const excess = lx - median;
    r.amountRatio = round4(Math.exp(excess));
    r.amountZ = round4(excess / spread);
    // The merchant's own level: at a big-ticket merchant of the agent (its last approved amount
    // there was amount_outlier_multiplier x its median or more: the venue that took a deposit),
    // the amount is measured from what it paid there. Not for goods that resell at once: one
    // large purchase let through there must not set the bar for more.
    const last = merchant === '' || (mccGroups & RESALEABLE) !== 0 ? undefined : state.knownMerchants.get(merchant);
    const bigTicket = !explicit && last !== undefined && last / 1000 - median >= Math.log(t.amount_outlier_multiplier);
    const above = bigTicket ? Math.min(excess, lx - (last as number) / 1000) : excess;
    // The distance that makes an outlier: OUTLIER_Z robust spreads and at least the default
    // multiple, plus ln 4 when the reasoning explains the size.
    const explained = explainsLarge(request.intent.reasoningSummary);
    const limit = explicit
      ? Math.log(t.amount_outlier_multiplier)
      : Math.max(Math.log(t.amount_outlier_multiplier), OUTLIER_Z * spread) + (explained ? Math.log(4) : 0);
    // The merchant's own last approved amount: a recurring charge near it is not judged against
    // the agent's overall median.
    const usual =
      !explicit && last !== undefined && Math.abs(merchantLogAmount(amount) - last) <= USUAL_AT_MERCHANT_MILLI;
    r.large = excess > Math.log(t.amount_outlier_multiplier) && r.amountZ > LARGE_Z;
    if (kindNew) {
      if (cold) {
        r.outlier = true;
        score += RISK_WEIGHT_OUTLIER;
      }
    } else if (above > 0 && !usual) score += RISK_WEIGHT_OUTLIER * Math.min(1, above / limit);
    if (kindNew) {
      // judged above
    } else if (
      (!usual && above > limit) ||
      (!explicit && !usual && r.large && nowMs - state.lastLargeMs < REPEAT_LARGE_MS) ||
      (nearCap && excess > Math.log(2)) ||
      (unconfirmed && excess > Math.log(UNCONFIRMED_OUTLIER_RATIO))
    )
      r.outlier = true;
  } else if (
    !explicit &&
    !kindNew &&
    shares !== undefined &&
    shares.count >= t.amount_outlier_min_history &&
    r.capShare > 0 &&
    shareOutlier(shares, r.capShare, request.intent.reasoningSummary, t.amount_outlier_multiplier)
  ) {
    // A currency the agent has too little history in: its amounts as shares of their
    // mandates' per-transaction limits, all currencies together, judged the same way.
    r.outlier = true;
    score += RISK_WEIGHT_OUTLIER;
  } else if (cold) {
    r.outlier = true;
    score += RISK_WEIGHT_OUTLIER;
  }
  if (r.outlier) {
    r.signals.push('amount_outlier');
    raise(r, 'medium');
  }

  // Country jump: a country new to the agent, weighed by how unexpected a new country is from
  // its record, with merchant and category novelty, the amount against its baseline, other
  // requests in that country just before (refused ones weigh most), the region and the
  // country's fraud tier; a trip the intent or capabilities explain weighs less.
  const novelty = countryNovelty(state, request.country, nowMs);
  if (novelty > 0 && request.country !== null) {
    const home = state.countries.size;
    let j = novelty * JUMP_SURPRISE * Math.max(0, 1 - 2 * newCountryChance(state));
    if (merchant !== '' && !state.knownMerchants.has(merchant)) j += JUMP_NEW_MERCHANT;
    if (r.amountRatio > 0) j += JUMP_AMOUNT * Math.min(1, Math.max(0, Math.log(r.amountRatio) / Math.log(4)));
    else if (r.capShare > 0.25) j += JUMP_AMOUNT;
    const purpose = groupsOfIntent(request.intent.intentType) | state.capabilityGroups;
    if (mccGroups !== 0 && (mccGroups & state.groupsSeen) === 0)
      j += (mccGroups & purpose) === 0 ? JUMP_NEW_CATEGORY : JUMP_NEW_CATEGORY_IN_PURPOSE;
    const persistence = recentNovel(state, request.country, nowMs - 86_400_000, nowMs - JUMP_SPREE_MS);
    if (persistence.refused > 0) j += JUMP_PERSISTENCE_REFUSED;
    j += JUMP_PERSISTENCE_APPROVED * Math.min(2, persistence.approved);
    if (ELEVATED_RISK_COUNTRIES.has(request.country)) j += COUNTRY_JUMP_ELEVATED;
    // A region the agent never paid in: telling for an agent that already pays in 3+ countries
    // (for one or two countries, the USA and Canada say, the country surprise already says it).
    if (home >= 3) {
      let regions = 0;
      let n = 0;
      for (const [c, seen] of state.countries) {
        regions |= regionOf(c);
        n += seen.approvals;
      }
      if ((regions & regionOf(request.country)) === 0) {
        let k = 0;
        for (let bits = regions; bits !== 0; bits &= bits - 1) k++;
        j += JUMP_NEW_REGION * Math.max(0, 1 - (2 * k) / (n + k));
      }
    }
    const trip = (mccGroups & (G_TRAVEL | G_DINING)) !== 0 && (purpose & G_TRAVEL) !== 0 ? JUMP_TRIP : 0;
    const granted =
      currencyOfCountry(request.country) === request.currency &&
      (baseline === undefined || baseline.count < t.amount_outlier_min_history)
        ? JUMP_GRANTED_CURRENCY
        : 0;
    const digital = mccGroups === G_SOFTWARE && (state.groupsSeen & G_SOFTWARE) !== 0 ? JUMP_DIGITAL_VENDOR : 0;
    j -= Math.max(trip, granted, digital);
    r.countryJump = round4(Math.max(0, j));
    if (r.countryJump >= COUNTRY_JUMP_THRESHOLD + COUNTRY_JUMP_TRUST * trust) {
      r.jump = true;
      score += RISK_WEIGHT_COUNTRY_JUMP;
      r.signals.push('country_jump');
      raise(r, 'medium');
    }
  }

  // Mimicry: a merchant the agent never paid, named like one it did.
  if (
    merchant !== '' &&
    state.knownNames.size > 0 &&
    !state.knownMerchants.has(merchant) &&
    imitatesKnown(nameWords(request.merchantName), state.knownNames)
  ) {
    r.lookalike = true;
    score += RISK_WEIGHT_LOOKALIKE;
    r.signals.push('merchant_lookalike');
    raise(r, 'high');
  }

  // A run in a new category: the CATEGORY_RUN-th or later approval in a category group the agent
  // began paying within the last week (once its pace was learned), at an amount no larger than its
  // usual one. A drip of small charges to a new kind of merchant looks like nothing else: each one
  // is inside every limit, and the agent has no history there to be unlike.
  if (
    !explicit &&
    baseline !== undefined &&
    baseline.count >= t.amount_outlier_min_history &&
    r.amountRatio > 0 &&
    r.amountRatio <= CATEGORY_RUN_RATIO &&
    newCategoryRun(state, mccGroups, nowMs) >= CATEGORY_RUN - 1
  ) {
    r.categoryRun = true;
    score += RISK_WEIGHT_CATEGORY_RUN;
    r.signals.push('new_category_run');
    raise(r, 'medium');
  }

  if (merchant === '') {
    score += RISK_WEIGHT_UNIDENTIFIED;
    r.signals.push('merchant_unidentified');
    raise(r, 'low');
  } else if (
    (state.merchantDeclines.get(merchant) ?? 0) >= t.merchant_decline_flag_count ||
    principalFlagged(state.principalId, merchant)
  ) {
    score += RISK_WEIGHT_MERCHANT_FLAGGED;
    r.merchantFlagged = true;
    r.signals.push('merchant_flagged');
    raise(r, 'high');
  }
  if (request.mcc !== null && HIGH_RISK_MCCS.has(request.mcc)) {
    score += RISK_WEIGHT_HIGH_RISK_MCC;
    r.signals.push('merchant_high_risk_mcc');
    raise(r, 'medium');
  }

  r.score = round4(Math.min(1, score));
  if (r.score >= t.risk_score_hard_decline) {
    r.hardDecline = true;
    r.condition = 'CRITICAL';
    raise(r, 'critical');
  } else if (r.score >= t.authorize_step_up_threshold) {
    r.stepUp = true;
    r.condition = 'HIGH';
    raise(r, 'high');
  } else if (r.score >= 0.3 || r.rapidFire || r.velocity || r.outlier || r.merchantFlagged || r.jump || r.lookalike) {
    r.condition = 'ELEVATED';
  }
  return r;
}

/** Goods that resell at once: a new category among them is judged by the agent's median as ever. */
const RESALEABLE = G_ELECTRONICS | G_LUXURY | G_APPAREL | G_RETAIL | HIGH_RISK_GROUPS;

/**
 * Whether the request is a new kind of purchase for the agent: a merchant it was never approved
 * at, in a category (MCC group; an MCC outside the taxonomy counts as new) it never paid in,
 * selling goods that do not resell at once (not electronics, luxury, apparel, general retail or a
 * high-risk group).
 */
export function newKindOfPurchase(state: AgentState, request: AuthorizeRequest, merchant: string): boolean {
  if (merchant === '' || request.mcc === null || state.knownMerchants.has(merchant)) return false;
  const groups = groupsOfMcc(request.mcc);
  return (groups & RESALEABLE) === 0 && (groups === 0 || (groups & state.groupsSeen) === 0);
}

/** Whether a share of the per-transaction limit is an outlier against the agent's shares baseline. */
export function shareOutlier(
  shares: AmountBaseline,
  capShare: number,
  reasoning: string | null,
  multiplier: number,
): boolean {
  const { median, spread } = medianMad(shares);
  const excess = Math.log(capShare) - median;
  const limit = Math.max(Math.log(multiplier), OUTLIER_Z * spread) + (explainsLarge(reasoning) ? Math.log(4) : 0);
  return excess > limit;
}

// Words that say why an amount is large. Routine words ("team", "seats", "licenses") alone do
// not: "Monthly renewal of the team plan" is the everyday reasoning of a SaaS agent, and a
// compromised agent re-uses it (it explains a count of seats only with a number of 10 or more).
const SIZE_WORDS =
  /\b(annual|annually|yearly|bulk|quarter|quarterly|package|reserved|wholesale|conference|budget|purchase order|\d{2,} (seats|licen[cs]es|users|units))\b/i;

/**
 * Whether the reasoning explains a large amount: a real sentence (30+ characters) that names
 * what makes it large (annual plan, 40 seats, bulk, conference package, reserved capacity, ...).
 */
export function explainsLarge(reasoning: string | null): boolean {
  return reasoning !== null && reasoning.length >= 30 && SIZE_WORDS.test(reasoning);
}
