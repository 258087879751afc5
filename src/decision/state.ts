// Creating an agent's state and the small changes to it that every part of the pipeline makes:
// a fresh state (load.ts fills it from the database; tests use it directly), new thresholds,
// the outcome ring, the merchant key and the trust zone of a score.

import type { TrustLevel } from '../domain/decision.js';
import type { Units } from '../domain/money.js';
import {
  type AgentState,
  type Derived,
  type MandateState,
  OUTCOME_HISTORY_SIZE,
  RECENT_SIZE,
  type Zone,
} from './agent-state.js';
import { mandateBytes } from './memory.js';
import { mergeThresholds, type ThresholdOverrides, type Thresholds, thresholdsVersion } from './model/thresholds.js';
import { newProbeMemory } from './probing.js';
import { AmountHistory, TimeWindow } from './rings.js';
import { groupsOfCapabilities } from './taxonomy.js';

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
  timeZone?: string;
  /** principals.step_up_confirmation = 'principal'. */
  stepUpByPrincipal?: boolean;
}

/** A fresh state with no history (loadAgentState fills it from the database; tests use it directly). */
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
    timeZone: seed.timeZone ?? 'UTC',
    creditSeq: -1,
    creditsApplied: [],
    budget: null,
    capabilities: (seed.capabilities ?? []).map((c) => c.toLowerCase()),
    mandates: seed.mandates ?? [],
    mandateBytes: (seed.mandates ?? []).reduce((n, m) => n + mandateBytes(m), 0),
    overrides: seed.overrides ?? {},
    thresholds,
    thresholdsVersion: thresholdsVersion(thresholds),
    // Set by load.ts from the Principal's shadow overrides (threshold-eval.ts shadowSetOf).
    shadow: null,
    derived: derive(thresholds),
    stats: { approved: 0, declined: 0, stepUps: 0 },
    amounts: new AmountHistory(),
    requests: new TimeWindow(),
    approvals: new TimeWindow(),
    probes: newProbeMemory(),
    outcomes: new Uint8Array(OUTCOME_HISTORY_SIZE),
    outcomeHead: 0,
    capabilityGroups: groupsOfCapabilities(seed.capabilities ?? []),
    groupsSeen: 0,
    baselines: new Map(),
    countries: new Map(),
    knownMerchants: new Map(),
    knownNames: new Map(),
    knownChars: 0,
    recentMs: new Float64Array(RECENT_SIZE).fill(Number.NEGATIVE_INFINITY),
    recentMerchants: new Array<string>(RECENT_SIZE).fill(''),
    recentGroups: new Int32Array(RECENT_SIZE),
    groupFirstMs: new Float64Array(32).fill(Number.NaN),
    recentHead: 0,
    burstsNormal: false,
    paceSkipped: 0,
    paceMax: 0,
    novelMs: new Float64Array(RECENT_SIZE).fill(Number.NEGATIVE_INFINITY),
    novelCountries: new Array<string>(RECENT_SIZE).fill(''),
    novelApproved: new Uint8Array(RECENT_SIZE),
    novelHead: 0,
    merchantDeclines: new Map(),
    merchantChars: 0,
    sessions: new Map(),
    pendingStepUps: [],
    stepUpByPrincipal: seed.stepUpByPrincipal ?? false,
    unconfirmedOutlierMs: Number.NEGATIVE_INFINITY,
    lastLargeMs: Number.NEGATIVE_INFINITY,
    auditRowsSinceRollup: 0,
    lastZone: null,
    lastTrustScore: null,
    decidedUpToMs: Number.NEGATIVE_INFINITY,
  };
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
