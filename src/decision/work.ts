// The decision being built for one request: the verdict so far (gates, reasons, details) and
// what each stage of evaluate() found, handed from stage to stage (core.ts).
import { performance } from 'node:perf_hooks';
import { formatAmount, type Units } from '../domain/money.js';
import type { MandateState, SessionState } from './agent-state.js';
import type { IntentResult } from './intent.js';
import type { Decision, EngineEvent } from './model/contract.js';
import { type Gate, REASONS, type ReasonCode } from './reasons.js';
import type { ReplayInputs } from './replay-inputs.js';
import type { RiskResult } from './risk.js';
import type { CtsResult } from './trust.js';

/** Per-request scratch of the decision being built. */
export interface Work {
  decision: Decision;
  readonly gates: Gate[];
  readonly reasons: ReasonCode[];
  readonly details: string[];
  /** STEP_UP gates, cleared together by a matching step_up_confirmed. */
  stepUpGates: number;
  readonly authorizationId: string;
  readonly amount: Units;
  /** Merchant key of the request (merchantKeyOf; '' when it names no merchant). */
  readonly merchant: string;
  readonly session: SessionState | null;
  /** The mandate selected (null: none, or the agent or its session stopped the request first). */
  mandate: MandateState | null;
  risk: RiskResult | null;
  intent: IntentResult | null;
  cts: CtsResult | null;
  /** Per-transaction limit under the trust zone's multiplier, once computed. */
  limit: Units | null;
  /** A step_up_confirmed matched a pending STEP_UP of the agent. */
  confirmed: boolean;
  /**
   * The step-up of the decision: on a STEP_UP under the 'principal' policy the one it opened or
   * re-asks for, on an APPROVE the one whose confirmation it used (null: none).
   */
  stepUpId: string | null;
  /** This decision opened its step-up (its audit row opens the step_ups row). */
  stepUpOpened: boolean;
  /** When the decision's step-up expires (ms). */
  stepUpExpiresAtMs: number;
  /** Events of the decision, in the order they are emitted. */
  readonly events: EngineEvent[];
  /**
   * Decided while the service's answers were slow (the database: src/shard/committer.ts
   * answersSlow): the agent's spacing may be ours, so the approval teaches no pace (outcome.ts).
   */
  readonly slowAnswers: boolean;
  /**
   * After a hard decline: the trust and intent-anomaly scores the later stages would have read
   * (threshold-eval.ts scoresPastHardDecline), kept for backtests and shadow thresholds only.
   */
  pastHardDecline?: { readonly trust: number; readonly intent: number } | undefined;
  /** What the replayable thresholds act on (threshold-eval.ts), set once the gates decided. */
  replay?: ReplayInputs | undefined;
  /** The decision under the Principal's shadow thresholds (no effect), when it has them. */
  shadow?: { readonly decision: Decision; readonly gates: readonly string[]; readonly version: string } | undefined;
  /** When each stage started, for Server-Timing (src/decision/model/timing.ts STAGE_* slots). */
  readonly marks: Float64Array;
}

/** Notes that stage `slot` (src/decision/model/timing.ts) starts now. */
export function mark(w: Work, slot: number): void {
  w.marks[slot] = performance.now();
}

export function addGate(w: Work, gate: Gate): void {
  if (!w.gates.includes(gate)) w.gates.push(gate);
}

export function decline(w: Work, reason: ReasonCode, detail: string): void {
  w.decision = 'DECLINE';
  const gate = REASONS[reason].gate;
  if (gate !== null) addGate(w, gate);
  w.reasons.push(reason);
  w.details.push(detail);
}

export function stepUp(w: Work, reason: ReasonCode, detail: string): void {
  if (w.decision === 'APPROVE') w.decision = 'STEP_UP';
  const gate = REASONS[reason].gate;
  if (gate !== null) addGate(w, gate);
  w.reasons.push(reason);
  w.details.push(detail);
  w.stepUpGates++;
}

export function money(u: Units, currency: string): string {
  return `${formatAmount(u)} ${currency}`;
}
