// Stage 4: intent anomaly (docs/decision-engine.md "Intent anomaly"): instructions aimed at
// the authorizer in the intent text (injection.ts), drift judged on meaning (the task_reference
// hierarchy, the intent text and the coherence of merchant categories with the session), and
// goal misalignment between the MCC taxonomy (taxonomy.ts) and the intent and capabilities.

import type { AgentState, SessionState } from './agent-state.js';
import { detectInjectionCached } from './injection.js';
import type { AuthorizeRequest } from './model/contract.js';
import { foldText, groupsOfIntent, groupsOfMcc, HIGH_RISK_GROUPS } from './taxonomy.js';

export const INTENT_WEIGHT_INJECTION = 1;
/** A new task root in the session. */
export const INTENT_WEIGHT_TASK_DRIFT = 0.3;
/** ... with an intent text unlike the session's. */
export const INTENT_WEIGHT_INTENT_SHIFT = 0.2;
/** A merchant category that fits neither the session, the intent nor the capabilities. */
export const INTENT_WEIGHT_MERCHANT_DRIFT = 0.3;
export const INTENT_WEIGHT_MISALIGNMENT = 0.6;
/** Word-set (Jaccard) similarity below which two intent texts mean different things. */
export const INTENT_SIMILARITY_MIN = 0.34;

const ITEM_SUFFIX = /[-_.:# ]*(item|line|step|part|unit|no|nr|n|#)?[-_.:# ]*\d+$/i;

/**
 * The root of a task_reference: what is before its last separator ("reading-list/item-3" ->
 * "reading-list", "po-2025-0412/line-3" -> "po-2025-0412", "trip:paris>hotel" -> "trip:paris"),
 * or the reference without a trailing item number ("reading-list-item-3" -> "reading-list").
 */
export function taskRoot(task: string): string {
  let cut = -1;
  for (let i = task.length - 1; i > 0; i--) {
    const c = task.charCodeAt(i);
    if (c === 47 /* / */ || c === 62 /* > */ || c === 92 /* \ */) {
      cut = i;
      break;
    }
  }
  const root = cut > 0 ? task.slice(0, cut) : task.replace(ITEM_SUFFIX, '');
  return (root === '' ? task : root).toLowerCase();
}

const WORD_SPLIT = /[^\p{L}\p{N}]+/u;

/** Jaccard similarity of the word sets of two intent texts (1 = same words). */
export function intentSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const wa = new Set(
    foldText(a)
      .split(WORD_SPLIT)
      .filter((w) => w.length > 1),
  );
  const wb = new Set(
    foldText(b)
      .split(WORD_SPLIT)
      .filter((w) => w.length > 1),
  );
  if (wa.size === 0 || wb.size === 0) return 0;
  let both = 0;
  for (const w of wa) if (wb.has(w)) both++;
  return both / (wa.size + wb.size - both);
}

/**
 * Goal misalignment: the merchant category is in a high-risk group (gambling, quasi-cash,
 * money transfer, stored value, crypto, pawn/dating) that neither the intent text nor the
 * agent's capabilities name.
 */
export function isMisaligned(intentType: string, mcc: string | null, capabilityGroups = 0): boolean {
  const g = groupsOfMcc(mcc) & HIGH_RISK_GROUPS;
  if (g === 0) return false;
  return (g & (groupsOfIntent(intentType) | capabilityGroups)) === 0;
}

export type { InjectionFinding } from './injection.js';

/**
 * Whether the intent text, or the merchant name it is paid to, carries instructions aimed at the
 * authorizer (never which words).
 */
export function findInjection(intent: AuthorizeRequest['intent'], merchantName: string | null = null): boolean {
  return (
    (merchantName !== null && detectInjectionCached(merchantName) !== null) ||
    detectInjectionCached(intent.taskReference) !== null ||
    detectInjectionCached(intent.intentType) !== null ||
    (intent.reasoningSummary !== null && detectInjectionCached(intent.reasoningSummary) !== null)
  );
}

export interface IntentResult {
  score: number;
  injection: boolean;
  taskDrift: boolean;
  merchantDrift: boolean;
  misaligned: boolean;
  triggered: boolean;
  /** Reason codes of the signals found. */
  readonly signals: string[];
}

/**
 * Scores the intent. `session` is the request's session before this request is added; `merchant`
 * the request's merchant key (state.ts merchantKeyOf), as the pipeline computed it.
 */
export function assessIntent(
  state: AgentState,
  request: AuthorizeRequest,
  session: SessionState | null,
  merchant: string,
  threshold: number,
): IntentResult {
  const intent = request.intent;
  const r: IntentResult = {
    score: 0,
    injection: findInjection(intent, request.merchantName),
    taskDrift: false,
    merchantDrift: false,
    misaligned: isMisaligned(intent.intentType, request.mcc, state.capabilityGroups),
    triggered: false,
    signals: [],
  };
  let score = 0;
  if (r.injection) {
    score += INTENT_WEIGHT_INJECTION;
    r.signals.push('prompt_injection_detected');
  }
  if (session !== null) {
    const mccGroups = groupsOfMcc(request.mcc);
    // Coherence with the session: its categories and what its opening intent names.
    const sessionPurpose = session.intentType === null ? 0 : groupsOfIntent(session.intentType);
    const incoherent = session.groups !== 0 && mccGroups !== 0 && (mccGroups & (session.groups | sessionPurpose)) === 0;
    let drift = 0;
    // A merchant the session already paid (a tip after the ride, a bag added to the booking)
    // continues the task that paid it, whatever its task reference and intent say.
    if (
      session.root !== null &&
      session.root !== taskRoot(intent.taskReference) &&
      !session.merchants.includes(merchant)
    ) {
      drift = INTENT_WEIGHT_TASK_DRIFT;
      if (
        session.intentType !== null &&
        intentSimilarity(session.intentType, intent.intentType) < INTENT_SIMILARITY_MIN
      ) {
        drift += INTENT_WEIGHT_INTENT_SHIFT;
      }
    }
    // A new root alone (same intent, same categories) is a new task, not drift.
    if (drift > 0 && (incoherent || drift > INTENT_WEIGHT_TASK_DRIFT)) {
      r.taskDrift = true;
      score += drift;
      r.signals.push('task_drift');
    }
    if (incoherent) {
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
