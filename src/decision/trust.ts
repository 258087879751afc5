// Stage 3 and post-processing: the cognitive trust score (CTS) over its five dimensions,
// zones and the cognitive limit multiplier, the KYA score, and trust promotion
// REGISTERED -> VERIFIED -> TRUSTED (docs/decision-engine.md "Cognitive trust", "KYA",
// "Trust promotion").
import type { TrustLevel } from '../domain/decision.js';
import type { Units } from '../domain/money.js';
import {
  type AgentState,
  type Derived,
  OUTCOME_HISTORY_SIZE,
  OUTCOME_MANDATE_DECLINE,
  type SessionState,
  type Zone,
} from './agent-state.js';
import type { IntentResult } from './intent.js';
import type { AuthorizeRequest } from './model/contract.js';
import { type AgentMetrics, metricsFor, promotionCriteria, round4 } from './model/promotion.js';
import type { Thresholds } from './model/thresholds.js';
import type { RiskResult } from './risk.js';
import { zoneOf } from './state.js';

const HOUR_MS = 3_600_000;
const ONE: Units = 100_000_000n;

export interface Dimensions {
  context_coherence: number;
  reasoning_quality: number;
  mandate_compliance: number;
  behavioral_consistency: number;
  temporal_stability: number;
}

export interface CtsResult {
  score: number;
  zone: Zone;
  /** cognitive_limit_multiplier as a number (response) and as bigint 10^-8 units (math). */
  multiplier: number;
  multiplierUnits: Units;
  readonly dimensions: Dimensions;
}

function clamp01(n: number): number {
  return n < 0 ? 0 : Math.min(n, 1);
}

/** Share of mandate-gate declines among the agent's last OUTCOME_HISTORY_SIZE decisions. */
function mandateDeclines(state: AgentState): number {
  let n = 0;
  for (let i = 0; i < OUTCOME_HISTORY_SIZE; i++) if (state.outcomes[i] === OUTCOME_MANDATE_DECLINE) n++;
  return n;
}

/** The five CTS dimensions and their mean, for this request against the agent's behaviour. */
export function computeCts(
  state: AgentState,
  request: AuthorizeRequest,
  risk: RiskResult,
  intent: IntentResult,
  session: SessionState | null,
  merchant: string,
): CtsResult {
  const t = state.thresholds;
  const context = clamp01(
    1 -
      (intent.misaligned ? 0.4 : 0) -
      (intent.taskDrift ? 0.3 : 0) -
      (intent.merchantDrift ? 0.2 : 0) -
      (merchant === '' ? 0.1 : 0),
  );

  let reasoning = 0;
  if (!intent.injection) {
    const i = request.intent;
    const summary = i.reasoningSummary;
    reasoning = summary === null || summary.trim() === '' ? 0.8 : summary.length >= 20 ? 1 : 0.85;
    if (i.alternativesConsidered !== null && i.alternativesConsidered.length > 0)
      reasoning = Math.min(1, reasoning + 0.05);
    if (i.confidence !== null) reasoning *= 0.5 + 0.5 * clamp01(i.confidence);
  }

  const compliance = clamp01(1 - 0.1 * mandateDeclines(state));

  let consistency = 1;
  if (risk.amountRatio > 1) {
    consistency = clamp01(1 - (risk.amountRatio - 1) / (2 * (t.amount_outlier_multiplier - 1)));
  }

  const denials = session === null ? 0 : session.consecutiveDenials;
  const temporal = clamp01(
    1 -
      0.5 * Math.min(1, risk.requests / t.rapid_fire_max_count) -
      0.5 * Math.min(1, denials / t.session_max_consecutive_denials),
  );

  const dimensions: Dimensions = {
    context_coherence: round4(context),
    reasoning_quality: round4(reasoning),
    mandate_compliance: round4(compliance),
    behavioral_consistency: round4(consistency),
    temporal_stability: round4(temporal),
  };
  const score = round4((context + reasoning + compliance + consistency + temporal) / 5);
  const zone = zoneOf(score, t);
  const multiplierUnits = multiplierFor(zone, state.derived);
  return { score, zone, multiplier: Number(multiplierUnits) / 1e8, multiplierUnits, dimensions };
}

export function multiplierFor(zone: Zone, d: Derived): Units {
  switch (zone) {
    case 'GREEN':
      return ONE;
    case 'AMBER':
      return d.multiplierAmber;
    case 'RED':
      return d.multiplierRed;
    case 'CRITICAL':
      return 0n;
  }
}

/** The per-transaction limit after the cognitive limit multiplier (rounded down to 10^-8). */
export function effectiveLimit(perTransaction: Units, multiplierUnits: Units): Units {
  return (perTransaction * multiplierUnits) / ONE;
}

// ---------------------------------------------------------------------------------------
// KYA score

/**
 * KYA score 0..1 from the agent's history, two decimals:
 * 0.5 * (approved + 1) / (approved + declined + 2)       (track record, Laplace-smoothed)
 * + 0.3 * min(1, approved / trusted_min_successful_txns)  (volume)
 * + 0.2 * min(1, age_hours / trusted_min_age_hours)       (tenure)
 */
export function kyaScore(approved: number, declined: number, ageHours: number, t: Thresholds): number {
  const record = (approved + 1) / (approved + declined + 2);
  const volume = Math.min(1, approved / Math.max(1, t.trusted_min_successful_txns));
  const tenure = Math.min(1, Math.max(0, ageHours) / Math.max(1, t.trusted_min_age_hours));
  return Math.round((0.5 * record + 0.3 * volume + 0.2 * tenure) * 100) / 100;
}

// ---------------------------------------------------------------------------------------
// Trust promotion (the criteria themselves: ./model/promotion.ts)

/** Metrics of a loaded state (same numbers as metricsFor over the audit log). */
export function metricsOfState(state: AgentState, nowMs: number): AgentMetrics {
  return metricsFor(
    state.agentId,
    {
      trustLevel: state.trustLevel,
      approved: state.stats.approved,
      declined: state.stats.declined,
      stepUps: state.stats.stepUps,
      createdAtMs: state.createdAtMs,
    },
    state.thresholds,
    nowMs,
  );
}

/** The level an ACTIVE agent is promoted to after its latest decision, or null. */
export function promotionOf(state: AgentState, nowMs: number): TrustLevel | null {
  if (state.status !== 'ACTIVE' || state.trustLevel === 'TRUSTED') return null;
  const s = state.stats;
  const p = promotionCriteria(
    {
      trustLevel: state.trustLevel,
      successful: s.approved,
      declined: s.declined,
      total: s.approved + s.declined + s.stepUps,
      ageHours: (nowMs - state.createdAtMs) / HOUR_MS,
    },
    state.thresholds,
  );
  return p.trust_promotion_eligible ? p.next_trust_level : null;
}

export const TIER_NAMES: Readonly<Record<TrustLevel, string>> = {
  REGISTERED: 'new',
  VERIFIED: 'verified',
  TRUSTED: 'trusted',
};
