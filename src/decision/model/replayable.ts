// The thresholds a backtest or a shadow set may change, and the checks of a patch of them: what
// the routes of the main thread validate before a range worker replays anything.
import {
  isThresholdName,
  mergeThresholds,
  THRESHOLD_SPECS,
  type ThresholdName,
  type ThresholdOverrides,
  type Thresholds,
} from './thresholds.js';

/** The thresholds a backtest or a shadow set may change (in THRESHOLD_SPECS order). */
export const REPLAYABLE_THRESHOLDS: readonly ThresholdName[] = Object.freeze([
  'authorize_step_up_threshold',
  'risk_score_hard_decline',
  'cts_green_threshold',
  'cts_amber_threshold',
  'cts_red_threshold',
  'cognitive_multiplier_amber',
  'cognitive_multiplier_red',
  'intent_anomaly_threshold',
]);

const REPLAYABLE_SET: ReadonlySet<string> = new Set(REPLAYABLE_THRESHOLDS);

export function isReplayable(name: string): boolean {
  return REPLAYABLE_SET.has(name);
}

/** The replayable fields of a complete set of thresholds. */
export function replayableValues(t: Thresholds): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of REPLAYABLE_THRESHOLDS) out[name] = t[name];
  return out;
}

export interface PatchProblem {
  readonly field: string;
  /** Field error codes of src/errors/registry.ts. */
  readonly code: 'type' | 'unknown_field' | 'not_allowed' | 'minimum' | 'maximum';
  readonly message: string;
}

/**
 * Field by field, a patch of replayable thresholds (a backtest's overrides, a shadow set): an
 * object whose fields are replayable threshold names, each null or a number within its range.
 * The cross-field order is checked on the merged result (validateThresholdOverrides).
 */
export function replayablePatchErrors(patch: unknown, prefix: string): PatchProblem[] {
  if (patch === undefined) return [];
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    return [{ field: prefix, code: 'type', message: 'must be an object of threshold fields' }];
  }
  const out: PatchProblem[] = [];
  for (const [k, v] of Object.entries(patch)) {
    const field = prefix === '' ? k : `${prefix}.${k}`;
    if (!isThresholdName(k)) {
      out.push({
        field,
        code: 'unknown_field',
        message: `unknown threshold field; replayable fields: ${REPLAYABLE_THRESHOLDS.join(', ')}`,
      });
      continue;
    }
    if (!isReplayable(k)) {
      out.push({
        field,
        code: 'not_allowed',
        message: `cannot be evaluated from the stored scores (it changes the scores or the agent's state over time); replayable fields: ${REPLAYABLE_THRESHOLDS.join(', ')}`,
      });
      continue;
    }
    if (v === null) continue;
    const s = THRESHOLD_SPECS[k];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      out.push({ field, code: 'type', message: 'must be a number or null' });
      continue;
    }
    if (s.minInclusive ? v < s.min : v <= s.min) {
      out.push({ field, code: 'minimum', message: `must be ${s.minInclusive ? 'at least' : 'greater than'} ${s.min}` });
    } else if (v > s.max) {
      out.push({ field, code: 'maximum', message: `must be at most ${s.max}` });
    }
  }
  return out;
}

/**
 * The thresholds of a Principal's shadow set: its live overrides with the shadow's replayable
 * fields over them (null: no shadow set, or one without a replayable number).
 */
export function shadowThresholdsOf(
  live: ThresholdOverrides,
  shadow: Readonly<Record<string, unknown>> | null | undefined,
): Thresholds | null {
  if (shadow === null || shadow === undefined) return null;
  const merged: Record<string, unknown> = { ...live };
  let any = false;
  for (const name of REPLAYABLE_THRESHOLDS) {
    const v = shadow[name];
    if (typeof v === 'number' && Number.isFinite(v)) {
      merged[name] = v;
      any = true;
    }
  }
  return any ? mergeThresholds(merged) : null;
}
