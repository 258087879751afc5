// Decision thresholds: the complete list of fields a Principal may override through
// PUT /thresholds, their platform defaults, the merge of overrides over defaults and the
// validator (types, ranges, cross-field consistency). docs/decision-engine.md explains how
// each one enters a decision.

interface ThresholdSpec {
  readonly default: number;
  readonly min: number;
  readonly max: number;
  /** Whether min itself is allowed (false: the value must be strictly greater). */
  readonly minInclusive: boolean;
  readonly integer: boolean;
  readonly description: string;
}

function spec(
  def: number,
  min: number,
  max: number,
  integer: boolean,
  description: string,
  minInclusive = true,
): ThresholdSpec {
  return { default: def, min, max, minInclusive, integer, description };
}

/** Every threshold field, its platform default, allowed range and meaning. */
export const THRESHOLD_SPECS = {
  // Risk score (0 safe .. 1 high risk)
  authorize_step_up_threshold: spec(0.6, 0, 1, false, 'risk_score at or above which the decision is STEP_UP'),
  risk_score_hard_decline: spec(0.85, 0, 1, false, 'risk_score at or above which the decision is DECLINE'),
  risk_velocity_window_seconds: spec(3600, 1, 86_400, true, 'window of the spending-velocity gate, seconds'),
  risk_velocity_max_count: spec(30, 1, 65_535, true, 'approved transactions allowed in the velocity window'),
  rapid_fire_window_seconds: spec(10, 1, 3600, true, 'window of the rapid-fire gate, seconds'),
  rapid_fire_max_count: spec(20, 1, 65_535, true, 'requests (any decision) allowed in the rapid-fire window'),
  amount_outlier_multiplier: spec(
    5,
    1,
    1_000_000,
    false,
    'amount above this multiple of the agent mean approved amount is an outlier',
    false,
  ),
  amount_outlier_min_history: spec(5, 1, 10_000, true, 'approved transactions needed before outliers are judged'),
  merchant_decline_flag_count: spec(
    3,
    1,
    1_000_000,
    true,
    'declines at one merchant after which the merchant is flagged for the agent',
  ),
  // Cognitive trust score (0 .. 1) and zones
  cts_green_threshold: spec(0.75, 0, 1, false, 'CTS at or above which the zone is GREEN'),
  cts_amber_threshold: spec(0.5, 0, 1, false, 'CTS at or above which the zone is AMBER'),
  cts_red_threshold: spec(0.25, 0, 1, false, 'CTS at or above which the zone is RED (below: CRITICAL)'),
  cognitive_multiplier_amber: spec(0.75, 0, 1, false, 'cognitive_limit_multiplier in the AMBER zone'),
  cognitive_multiplier_red: spec(0.5, 0, 1, false, 'cognitive_limit_multiplier in the RED zone'),
  // Intent anomaly
  intent_anomaly_threshold: spec(
    0.5,
    0,
    1,
    false,
    'intent_anomaly_score at or above which the intent_anomaly gate declines',
    false,
  ),
  session_max_merchants: spec(3, 1, 1000, true, 'distinct merchants in one session before a new one is drift'),
  // Sessions and step-up
  session_max_consecutive_denials: spec(3, 1, 1000, true, 'consecutive DECLINEs that terminate a session'),
  step_up_window_seconds: spec(900, 1, 86_400, true, 'how long a STEP_UP can be confirmed, seconds'),
  // Trust promotion
  verified_min_successful_txns: spec(10, 0, 1_000_000, true, 'approved transactions needed for VERIFIED'),
  verified_min_age_hours: spec(24, 0, 87_600, false, 'agent age needed for VERIFIED, hours'),
  verified_max_decline_rate: spec(0.2, 0, 1, false, 'highest decline rate allowed for VERIFIED'),
  trusted_min_successful_txns: spec(50, 0, 1_000_000, true, 'approved transactions needed for TRUSTED'),
  trusted_min_age_hours: spec(168, 0, 87_600, false, 'agent age needed for TRUSTED, hours'),
  trusted_max_decline_rate: spec(0.1, 0, 1, false, 'highest decline rate allowed for TRUSTED'),
} as const satisfies Record<string, ThresholdSpec>;

export type ThresholdName = keyof typeof THRESHOLD_SPECS;
export type Thresholds = { readonly [K in ThresholdName]: number };
export type ThresholdOverrides = { readonly [K in ThresholdName]?: number };

export const THRESHOLD_NAMES = Object.freeze(Object.keys(THRESHOLD_SPECS) as ThresholdName[]);

export const THRESHOLD_DEFAULTS: Thresholds = Object.freeze(
  Object.fromEntries(THRESHOLD_NAMES.map((n) => [n, THRESHOLD_SPECS[n].default])) as Thresholds,
);

export function isThresholdName(name: string): name is ThresholdName {
  return Object.hasOwn(THRESHOLD_SPECS, name);
}

/**
 * Effective thresholds: the overrides over the platform defaults. Unknown keys and values
 * that are not finite numbers (e.g. from an older stored row) are ignored.
 */
export function mergeThresholds(overrides: Readonly<Record<string, unknown>> | null | undefined): Thresholds {
  const out: Record<string, number> = { ...THRESHOLD_DEFAULTS };
  if (overrides) {
    for (const name of THRESHOLD_NAMES) {
      const v = overrides[name];
      if (typeof v === 'number' && Number.isFinite(v)) out[name] = v;
    }
  }
  return Object.freeze(out) as Thresholds;
}

export interface ThresholdProblem {
  readonly field: string;
  readonly message: string;
}

export type ThresholdValidation =
  | {
      readonly ok: true;
      /** The overrides to store: the existing ones with the patch applied, nulls removed. */
      readonly overrides: ThresholdOverrides;
      /** Fields whose effective value changed (sorted). */
      readonly fieldsChanged: ThresholdName[];
      /** Effective thresholds after the change. */
      readonly effective: Thresholds;
    }
  | { readonly ok: false; readonly problems: ThresholdProblem[] };

/** Pairs that must keep an order in the effective thresholds: [greater, smaller, strict]. */
const ORDERED: ReadonlyArray<readonly [ThresholdName, ThresholdName, boolean]> = [
  ['cts_green_threshold', 'cts_amber_threshold', true],
  ['cts_amber_threshold', 'cts_red_threshold', true],
  ['risk_score_hard_decline', 'authorize_step_up_threshold', false],
  ['cognitive_multiplier_amber', 'cognitive_multiplier_red', false],
  ['trusted_min_successful_txns', 'verified_min_successful_txns', false],
  ['trusted_min_age_hours', 'verified_min_age_hours', false],
  ['verified_max_decline_rate', 'trusted_max_decline_rate', false],
];

/**
 * Validates a PUT /thresholds body: any subset of threshold fields, a number each, or null to
 * revert that field to its platform default. Checks the type and range of each field, then the
 * cross-field order of the resulting effective thresholds (green > amber > red, hard decline
 * >= step-up, TRUSTED criteria at least as strict as VERIFIED ones). `existing` are the
 * overrides stored before this call.
 */
export function validateThresholdOverrides(patch: unknown, existing: ThresholdOverrides = {}): ThresholdValidation {
  const problems: ThresholdProblem[] = [];
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    return { ok: false, problems: [{ field: '', message: 'the body must be an object of threshold fields' }] };
  }
  const next: Record<string, number> = {};
  for (const name of THRESHOLD_NAMES) {
    const v = existing[name];
    if (typeof v === 'number' && Number.isFinite(v)) next[name] = v;
  }
  const keys = Object.keys(patch);
  if (keys.length === 0) {
    return { ok: false, problems: [{ field: '', message: 'no threshold field given' }] };
  }
  for (const key of keys) {
    const value = (patch as Record<string, unknown>)[key];
    if (!isThresholdName(key)) {
      problems.push({ field: key, message: `unknown threshold field; known fields: ${THRESHOLD_NAMES.join(', ')}` });
      continue;
    }
    if (value === null) {
      delete next[key];
      continue;
    }
    const s = THRESHOLD_SPECS[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      problems.push({ field: key, message: 'must be a number or null' });
      continue;
    }
    if (s.integer && !Number.isInteger(value)) {
      problems.push({ field: key, message: 'must be an integer' });
      continue;
    }
    const belowMin = s.minInclusive ? value < s.min : value <= s.min;
    if (belowMin || value > s.max) {
      const low = s.minInclusive ? `${s.min} <= value` : `${s.min} < value`;
      problems.push({ field: key, message: `out of range: ${low} <= ${s.max}` });
      continue;
    }
    next[key] = value;
  }
  if (problems.length > 0) return { ok: false, problems };

  const effective = mergeThresholds(next);
  for (const [greater, smaller, strict] of ORDERED) {
    const g = effective[greater];
    const l = effective[smaller];
    if (strict ? g <= l : g < l) {
      // Name the field the caller changed, so the problem points at their input.
      const field = Object.hasOwn(patch, smaller) && !Object.hasOwn(patch, greater) ? smaller : greater;
      problems.push({
        field,
        message: `${greater} (${g}) must be ${strict ? 'greater than' : 'at least'} ${smaller} (${l})`,
      });
    }
  }
  if (problems.length > 0) return { ok: false, problems };

  const before = mergeThresholds(existing);
  const fieldsChanged: ThresholdName[] = [];
  for (const name of THRESHOLD_NAMES) if (before[name] !== effective[name]) fieldsChanged.push(name);
  fieldsChanged.sort();
  return { ok: true, overrides: Object.freeze(next) as ThresholdOverrides, fieldsChanged, effective };
}

/**
 * A short version of the thresholds in force (FNV-1a of their values in field order), stored
 * with every decision so the thresholds that decided it can be told apart afterwards.
 */
export function thresholdsVersion(t: Thresholds): string {
  let h = 0x811c9dc5;
  const text = JSON.stringify(t);
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `thr_${h.toString(16).padStart(8, '0')}`;
}
