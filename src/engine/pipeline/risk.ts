// Stage 2: risk scoring (docs/decision-engine.md "Risk scoring"). The score is a capped sum
// of documented contributions; the gates compare exact counts and exact amounts.
import type { Units } from '../../domain/money.js';
import type { AuthorizeRequest } from '../contract.js';
import type { AgentState } from './state.js';

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
  /** amount / mean approved amount (0 without enough history). */
  amountRatio: number;
  rapidFire: boolean;
  velocity: boolean;
  outlier: boolean;
  merchantFlagged: boolean;
  hardDecline: boolean;
  stepUp: boolean;
  severity: Severity;
  condition: 'NORMAL' | 'ELEVATED' | 'HIGH' | 'CRITICAL';
}

function raise(r: RiskResult, s: Severity): void {
  if (SEVERITY_RANK[s] > SEVERITY_RANK[r.severity]) r.severity = s;
}

export function round4(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

/** Scores the request against the agent's own windows and baselines. Does not mutate state. */
export function assessRisk(
  state: AgentState,
  request: AuthorizeRequest,
  amount: Units,
  merchant: string,
  nowMs: number,
): RiskResult {
  const t = state.thresholds;
  const d = state.derived;
  const r: RiskResult = {
    score: 0,
    signals: [],
    requests: state.requests.countSince(nowMs - d.rapidWindowMs) + 1,
    approvals: state.approvals.countSince(nowMs - d.velocityWindowMs) + 1,
    amountRatio: 0,
    rapidFire: false,
    velocity: false,
    outlier: false,
    merchantFlagged: false,
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
  if (r.approvals > t.risk_velocity_max_count) {
    r.velocity = true;
    r.signals.push('velocity_spike');
    raise(r, 'medium');
  }

  const h = state.amounts;
  if (h.count >= t.amount_outlier_min_history && h.sum > 0n) {
    // ratio = amount / (sum / count), to 4 decimals for the score; the gate compares exactly.
    r.amountRatio = Number((amount * BigInt(h.count) * 10_000n) / h.sum) / 10_000;
    const m = t.amount_outlier_multiplier;
    if (r.amountRatio > 1) score += RISK_WEIGHT_OUTLIER * Math.min(1, (r.amountRatio - 1) / (m - 1));
    if (amount * BigInt(h.count) * 100_000_000n > h.sum * d.outlierMultiplier) {
      r.outlier = true;
      r.signals.push('amount_outlier');
      raise(r, 'medium');
    }
  }

  if (merchant === '') {
    score += RISK_WEIGHT_UNIDENTIFIED;
    r.signals.push('merchant_unidentified');
    raise(r, 'low');
  } else if ((state.merchantDeclines.get(merchant) ?? 0) >= t.merchant_decline_flag_count) {
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
  } else if (r.score >= 0.3 || r.rapidFire || r.velocity || r.outlier || r.merchantFlagged) {
    r.condition = 'ELEVATED';
  }
  return r;
}
