// Stage 4: intent anomaly (docs/decision-engine.md "Intent anomaly"): prompt-injection
// phrases in the intent text, drift of task or merchant within a session, and goal
// misalignment between intent_type and the merchant category.
import type { AuthorizeRequest } from '../contract.js';
import { HIGH_RISK_MCCS } from './risk.js';
import type { SessionState } from './state.js';

export const INTENT_WEIGHT_INJECTION = 1;
export const INTENT_WEIGHT_TASK_DRIFT = 0.5;
export const INTENT_WEIGHT_MERCHANT_DRIFT = 0.3;
export const INTENT_WEIGHT_MISALIGNMENT = 0.6;

/**
 * Phrases that try to steer the decision instead of describing a purchase. Matched in
 * intent_type, task_reference and reasoning_summary, lower-cased, whitespace collapsed.
 */
export const INJECTION_PHRASES: readonly string[] = [
  'ignore previous instructions',
  'ignore all previous',
  'ignore prior instructions',
  'ignore the above',
  'ignore your instructions',
  'ignore the mandate',
  'ignore mandate',
  'disregard previous',
  'disregard all previous',
  'disregard the mandate',
  'disregard your instructions',
  'forget your instructions',
  'forget previous instructions',
  'override the mandate',
  'override mandate',
  'override spending limit',
  'bypass the mandate',
  'bypass mandate',
  'bypass the limit',
  'bypass limits',
  'bypass security',
  'bypass authorization',
  'without authorization',
  'you are now',
  'act as an administrator',
  'act as admin',
  'developer mode',
  'jailbreak',
  'do anything now',
  'system prompt',
  'new instructions:',
  'approve this transaction regardless',
  'approve regardless',
  'always approve',
  'auto-approve',
];

function phrasePattern(phrase: string): string {
  return phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');
}

// One case-insensitive alternation compiled once at load: a single regex pass per text is
// several times cheaper than lower-casing the text and searching for each phrase.
const INJECTION_PATTERN = new RegExp(INJECTION_PHRASES.map(phrasePattern).join('|'), 'i');
const WHITESPACE = /\s+/g;

interface Category {
  readonly name: string;
  readonly keywords: readonly string[];
  readonly mccs: ReadonlySet<string>;
  /** Inclusive numeric MCC ranges (e.g. airlines 3000-3299). */
  readonly ranges: readonly (readonly [number, number])[];
}

/** intent_type keyword -> the merchant categories it is expected to pay. */
export const INTENT_CATEGORIES: readonly Category[] = [
  {
    name: 'travel',
    keywords: ['travel', 'flight', 'airfare', 'hotel', 'lodging', 'trip', 'car_rental', 'car rental'],
    mccs: new Set(['4111', '4112', '4121', '4131', '4411', '4511', '4722', '4789', '7011', '7512', '7519']),
    ranges: [[3000, 3999]],
  },
  {
    name: 'food',
    keywords: ['food', 'grocery', 'groceries', 'meal', 'restaurant', 'dining', 'catering'],
    mccs: new Set(['5411', '5422', '5441', '5451', '5462', '5499', '5811', '5812', '5813', '5814']),
    ranges: [],
  },
  {
    name: 'software',
    keywords: ['software', 'saas', 'cloud', 'hosting', 'compute', 'api_credits', 'license'],
    mccs: new Set(['4816', '4899', '5045', '5734', '5817', '5818', '5968', '7372', '7379']),
    ranges: [],
  },
  {
    name: 'office',
    keywords: ['office', 'stationery', 'supplies'],
    mccs: new Set(['5021', '5044', '5045', '5111', '5943', '5978']),
    ranges: [],
  },
  {
    name: 'fuel',
    keywords: ['fuel', 'gasoline', 'ev_charging', 'charging'],
    mccs: new Set(['5541', '5542', '5552', '5983']),
    ranges: [],
  },
];

function inCategory(c: Category, mcc: string, code: number): boolean {
  if (c.mccs.has(mcc)) return true;
  for (const [lo, hi] of c.ranges) if (code >= lo && code <= hi) return true;
  return false;
}

// intent_type values come from a small vocabulary per integrator: memoise the lookup.
const categoryCache = new Map<string, Category | null>();
const CATEGORY_CACHE_SIZE = 512;

/** The category an intent_type names (first keyword match), or null. */
export function categoryOfIntent(intentType: string): Category | null {
  const hit = categoryCache.get(intentType);
  if (hit !== undefined) return hit;
  const lower = intentType.toLowerCase();
  let found: Category | null = null;
  for (const c of INTENT_CATEGORIES) {
    for (const k of c.keywords) {
      if (lower.includes(k)) {
        found = c;
        break;
      }
    }
    if (found !== null) break;
  }
  if (categoryCache.size >= CATEGORY_CACHE_SIZE) categoryCache.clear();
  categoryCache.set(intentType, found);
  return found;
}

/**
 * Goal misalignment: the intent names a category, the MCC is known, is not in that category,
 * and is either in another known category or high risk. An MCC no category knows is not
 * judged (a "purchase" at a general store is fine).
 */
export function isMisaligned(intentType: string, mcc: string | null): boolean {
  if (mcc === null) return false;
  const c = categoryOfIntent(intentType);
  if (c === null) return false;
  const code = Number(mcc);
  if (inCategory(c, mcc, code)) return false;
  if (HIGH_RISK_MCCS.has(mcc)) return true;
  for (const other of INTENT_CATEGORIES) if (other !== c && inCategory(other, mcc, code)) return true;
  return false;
}

/** First injection phrase found in the intent text, or null. */
export function findInjection(intent: AuthorizeRequest['intent']): string | null {
  return (
    scan(intent.taskReference) ??
    scan(intent.intentType) ??
    (intent.reasoningSummary === null ? null : scan(intent.reasoningSummary))
  );
}

function scan(text: string): string | null {
  if (text.length < 6) return null;
  const m = INJECTION_PATTERN.exec(text);
  return m === null ? null : m[0].toLowerCase().replace(WHITESPACE, ' ');
}

export interface IntentResult {
  score: number;
  injection: string | null;
  taskDrift: boolean;
  merchantDrift: boolean;
  misaligned: boolean;
  triggered: boolean;
  /** Reason codes of the signals found. */
  readonly signals: string[];
}

/** Scores the intent. `session` is the request's session before this request is added. */
export function assessIntent(
  request: AuthorizeRequest,
  session: SessionState | null,
  merchant: string,
  threshold: number,
  maxSessionMerchants: number,
): IntentResult {
  const r: IntentResult = {
    score: 0,
    injection: findInjection(request.intent),
    taskDrift: false,
    merchantDrift: false,
    misaligned: isMisaligned(request.intent.intentType, request.mcc),
    triggered: false,
    signals: [],
  };
  let score = 0;
  if (r.injection !== null) {
    score += INTENT_WEIGHT_INJECTION;
    r.signals.push('prompt_injection_detected');
  }
  if (session !== null) {
    if (session.task !== null && session.task !== request.intent.taskReference) {
      r.taskDrift = true;
      score += INTENT_WEIGHT_TASK_DRIFT;
      r.signals.push('task_drift');
    }
    if (merchant !== '' && session.merchants.length >= maxSessionMerchants && !session.merchants.includes(merchant)) {
      r.merchantDrift = true;
      score += INTENT_WEIGHT_MERCHANT_DRIFT;
      r.signals.push('merchant_drift');
    }
  }
  if (r.misaligned) {
    score += INTENT_WEIGHT_MISALIGNMENT;
    r.signals.push('goal_misalignment');
  }
  r.score = Math.min(1, Math.round(score * 10_000) / 10_000);
  r.triggered = r.score >= threshold;
  return r;
}
