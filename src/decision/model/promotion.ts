// Trust promotion as the main thread reads it (GET /agents/{agent_id}/metrics): the criteria
// for the next trust level and the metrics body, from counts. Pure; the shard's actors reach the
// same numbers from a loaded state (../trust.ts).
import type { Thresholds } from './thresholds.js';

const HOUR_MS = 3_600_000;

/** A ratio rounded to 4 decimals, as the API reports rates and scores. */
export function round4(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

export interface PromotionStats {
  readonly trustLevel: string;
  /** APPROVE decisions. */
  readonly successful: number;
  /** DECLINE decisions. */
  readonly declined: number;
  /** Every decision (APPROVE, DECLINE, STEP_UP). */
  readonly total: number;
  /** Hours since the agent was created. */
  readonly ageHours: number;
}

export interface Criterion {
  readonly required: number;
  readonly actual: number;
  readonly met: boolean;
}

export interface PromotionCriteria {
  readonly next_trust_level: 'VERIFIED' | 'TRUSTED' | null;
  readonly trust_promotion_eligible: boolean;
  readonly promotion_criteria: Record<string, Criterion>;
}

export function declineRate(declined: number, total: number): number {
  return total === 0 ? 0 : round4(declined / total);
}

/**
 * The criteria for the next trust level (GET /agents/{id}/metrics): min_successful_txns,
 * min_age_hours and max_decline_rate, each {required, actual, met}. TRUSTED has no next
 * level: next_trust_level null, not eligible, no criteria.
 */
export function promotionCriteria(stats: PromotionStats, t: Thresholds): PromotionCriteria {
  const next = stats.trustLevel === 'REGISTERED' ? 'VERIFIED' : stats.trustLevel === 'VERIFIED' ? 'TRUSTED' : null;
  if (next === null) return { next_trust_level: null, trust_promotion_eligible: false, promotion_criteria: {} };
  const v = next === 'VERIFIED';
  const minTx = v ? t.verified_min_successful_txns : t.trusted_min_successful_txns;
  const minAge = v ? t.verified_min_age_hours : t.trusted_min_age_hours;
  const maxRate = v ? t.verified_max_decline_rate : t.trusted_max_decline_rate;
  const rate = declineRate(stats.declined, stats.total);
  const age = Math.round(Math.max(0, stats.ageHours) * 100) / 100;
  const criteria: Record<string, Criterion> = {
    min_successful_txns: { required: minTx, actual: stats.successful, met: stats.successful >= minTx },
    min_age_hours: { required: minAge, actual: age, met: stats.ageHours >= minAge },
    max_decline_rate: { required: maxRate, actual: rate, met: rate <= maxRate },
  };
  let eligible = true;
  for (const k in criteria) if (!(criteria[k] as Criterion).met) eligible = false;
  return { next_trust_level: next, trust_promotion_eligible: eligible, promotion_criteria: criteria };
}

export interface AgentMetrics extends PromotionCriteria {
  readonly agent_id: string;
  readonly trust_level: string;
  readonly total_transactions: number;
  readonly successful_transactions: number;
  readonly declined_transactions: number;
  readonly decline_rate: number;
  readonly dispute_deflection_rate: number;
}

/**
 * The body of GET /agents/{agent_id}/metrics from counts the caller reads from the audit log
 * (or from a loaded state). dispute_deflection_rate: share of non-approved decisions that were
 * STEP_UPs (a human was asked instead of a charge going through), 0 without any.
 */
export function metricsFor(
  agentId: string,
  counts: { trustLevel: string; approved: number; declined: number; stepUps: number; createdAtMs: number },
  t: Thresholds,
  nowMs: number,
): AgentMetrics {
  const total = counts.approved + counts.declined + counts.stepUps;
  const p = promotionCriteria(
    {
      trustLevel: counts.trustLevel,
      successful: counts.approved,
      declined: counts.declined,
      total,
      ageHours: (nowMs - counts.createdAtMs) / HOUR_MS,
    },
    t,
  );
  const notApproved = counts.declined + counts.stepUps;
  return {
    agent_id: agentId,
    trust_level: counts.trustLevel,
    total_transactions: total,
    successful_transactions: counts.approved,
    declined_transactions: counts.declined,
    decline_rate: declineRate(counts.declined, total),
    dispute_deflection_rate: notApproved === 0 ? 0 : round4(counts.stepUps / notApproved),
    ...p,
  };
}
