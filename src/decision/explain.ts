// POST /api/v1/authorize/explain: the decision evaluate()
// would give now, and why. The owning actor (src/shard/actors.ts) calls explainDecision with
// its agent's state; the decision core runs unchanged on a deep copy of that state (so the
// explanation is the decision the next /authorize with the same body gets), with the one state
// shared across agents, the Principal's merchant evidence, left untouched (withoutEvidence). The
// copy is then dropped: nothing is recorded, signed, emitted or counted.
//
// gateMargins is the per-gate view of a decision: for each check of the gates, the score it
// read, the threshold it compares with and the margin between them. It takes the thresholds
// apart from the decision, so whatever else reports per-gate thresholds (backtests, shadow
// thresholds) can hold a decision's scores against other thresholds: each threshold check
// fires by its own comparison, which is the gate's under the thresholds that decided.

import { parseAmount, toJsonNumber, type Units } from '../domain/money.js';
import type { AgentState, MandateState } from './agent-state.js';
import { CAPS } from './caps.js';
import { type TermsState, weekdaysOf } from './mandate-terms.js';
import { isoOf } from './model/calendar.js';
import type { AuthorizeRequest, Evaluation } from './model/contract.js';
import { round4 } from './model/promotion.js';
import type { Thresholds } from './model/thresholds.js';
import { withoutEvidence } from './principal-evidence.js';
import { noteTry } from './probing.js';
import type { ReasonCode } from './reasons.js';
import { COUNTRY_JUMP_THRESHOLD, COUNTRY_JUMP_TRUST } from './risk.js';
import type { Work } from './work.js';

/** When a check fires: its score above, at or above, or below its threshold; null: not a number. */
export type FiresWhen = 'above' | 'at_or_above' | 'below';

export interface GateMargin {
  /** The gate of gates_fired the check reports to. */
  readonly gate: string;
  /** The check within the gate (a threshold name, a mandate field or a rule). */
  readonly check: string;
  /** The pipeline reached the check (it stops at the first DECLINE of an earlier stage). */
  readonly evaluated: boolean;
  readonly score: number | null;
  readonly threshold: number | null;
  /**
   * Distance from the score to the threshold on the passing side: positive passes, and the
   * check fires at margin < 0 (`above`, `below`) or margin <= 0 (`at_or_above`).
   */
  readonly margin: number | null;
  readonly fires_when: FiresWhen | null;
  /** The check's condition held (its reason code may still be cleared by a step-up confirmation). */
  readonly fired: boolean;
}

type Evaluate = (state: AgentState, req: AuthorizeRequest, nowMs: number, inspect: (w: Work) => void) => Evaluation;

/** A deep copy of an agent's state: plain objects, class instances, arrays, typed arrays, maps and sets. */
export function copyState(state: AgentState): AgentState {
  return copyOf(state, new Map()) as AgentState;
}

function copyOf(v: unknown, seen: Map<object, unknown>): unknown {
  if (v === null || typeof v !== 'object') return v;
  const hit = seen.get(v);
  if (hit !== undefined) return hit;
  let c: unknown;
  if (ArrayBuffer.isView(v)) {
    c = (v as unknown as { slice(): unknown }).slice();
    seen.set(v, c);
  } else if (Array.isArray(v)) {
    const a: unknown[] = new Array(v.length);
    seen.set(v, a);
    for (let i = 0; i < v.length; i++) a[i] = copyOf(v[i], seen);
    c = a;
  } else if (v instanceof Map) {
    const m = new Map();
    seen.set(v, m);
    for (const [k, x] of v) m.set(k, copyOf(x, seen));
    c = m;
  } else if (v instanceof Set) {
    const s = new Set();
    seen.set(v, s);
    for (const x of v) s.add(copyOf(x, seen));
    c = s;
  } else {
    const o = Object.create(Object.getPrototypeOf(v)) as Record<string, unknown>;
    seen.set(v, o);
    for (const k of Object.keys(v)) o[k] = copyOf((v as Record<string, unknown>)[k], seen);
    c = o;
  }
  return c;
}

function money(u: Units): number {
  return toJsonNumber(u);
}

function categorical(gate: string, check: string, evaluated: boolean, fired: boolean): GateMargin {
  return { gate, check, evaluated, score: null, threshold: null, margin: null, fires_when: null, fired };
}

/** A check against a threshold; without `fired`, it fires by its own comparison (when reached). */
function numeric(
  gate: string,
  check: string,
  evaluated: boolean,
  score: number,
  threshold: number,
  firesWhen: FiresWhen,
  fired = evaluated &&
    (firesWhen === 'above' ? score > threshold : firesWhen === 'below' ? score < threshold : score >= threshold),
): GateMargin {
  const margin = round4(firesWhen === 'below' ? score - threshold : threshold - score);
  return { gate, check, evaluated, score, threshold, margin, fires_when: firesWhen, fired };
}

/** The same for exact amounts (score and threshold in units of 10^-8, shown as major units). */
function amountCheck(gate: string, check: string, evaluated: boolean, score: Units, threshold: Units, fired: boolean) {
  return {
    gate,
    check,
    evaluated,
    score: money(score),
    threshold: money(threshold),
    margin: money(threshold - score),
    fires_when: 'above' as const,
    fired,
  };
}

/** What gateMargins reads of a decision (a Work once evaluate ran). */
export type GateInputs = Pick<
  Work,
  'amount' | 'mandate' | 'risk' | 'intent' | 'cts' | 'limit' | 'reasons' | 'gates' | 'session'
>;

const SELECTION_GATES: readonly string[] = ['no_active_mandate', 'mandate_expired', 'currency_mismatch'];
/** Mandate gates checked before the terms (a DECLINE by one of them leaves the terms unevaluated). */
const EARLIER_MANDATE_GATES: readonly string[] = [
  'mandate_exceeded',
  'mcc_blocked',
  'country_blocked',
  'crypto_blocked',
];

/** The recurrence counts and the lock of the terms before the request (the copy's counts move when it approves). */
export interface TermsCounts {
  readonly occurrences: number;
  readonly periodCount: number;
  readonly lockedPayee: string | null;
}

function termsCounts(m: MandateState | null): TermsCounts | null {
  const t = m?.terms ?? null;
  return t === null ? null : { occurrences: t.occurrences, periodCount: t.periodCount, lockedPayee: t.lockedPayee };
}

/** The checks of the mandate terms that are set (mandate-terms.ts checkTerms), gate mandate_terms. */
function termsMargins(
  out: GateMargin[],
  t: TermsState,
  amount: Units,
  on: boolean,
  has: (r: ReasonCode) => boolean,
  before: TermsCounts | null,
): void {
  const g = 'mandate_terms';
  if (t.minAmount !== null) {
    out.push(
      numeric(
        g,
        'min_amount_per_transaction',
        on,
        money(amount),
        money(t.minAmount),
        'below',
        has('amount_below_minimum'),
      ),
    );
  }
  if (Number.isFinite(t.notBeforeMs) || Number.isFinite(t.notAfterMs)) {
    out.push(categorical(g, 'execution_window', on, has('outside_execution_window')));
  }
  if (t.days !== 0) out.push(categorical(g, 'days_of_week', on, has('day_of_week_not_allowed')));
  if (t.payees !== null) out.push(categorical(g, 'allowed_payees', on, has('payee_not_allowed')));
  if (t.merchantLock) out.push(categorical(g, 'merchant_lock', on, has('payee_locked')));
  const occurrences = before?.occurrences ?? t.occurrences;
  if (t.maxOccurrences !== null) {
    out.push(
      numeric(
        g,
        'max_occurrences',
        on,
        occurrences + 1,
        t.maxOccurrences,
        'above',
        has('recurrence_max_occurrences_reached'),
      ),
    );
  }
  if (t.frequency !== null && t.frequency !== 'ON_DEMAND') {
    const used = before?.periodCount ?? t.periodCount;
    out.push(numeric(g, 'recurrence_period', on, used + 1, 1, 'above', has('recurrence_period_used')));
  }
}

/** The terms of the mandate as explain shows them, with the counts before this request. */
function termsView(t: TermsState, before: TermsCounts | null) {
  return {
    min_amount_per_transaction: t.minAmount === null ? null : money(t.minAmount),
    allowed_payees: t.payees === null ? null : [...t.payees],
    merchant_lock: t.merchantLock,
    locked_payee: before?.lockedPayee ?? t.lockedPayee,
    execution_window:
      !Number.isFinite(t.notBeforeMs) && !Number.isFinite(t.notAfterMs) && t.days === 0
        ? null
        : {
            not_before: Number.isFinite(t.notBeforeMs) ? isoOf(t.notBeforeMs) : null,
            not_after: Number.isFinite(t.notAfterMs) ? isoOf(t.notAfterMs) : null,
            days_of_week: t.days === 0 ? null : weekdaysOf(t.days),
          },
    recurrence:
      t.frequency === null && t.maxOccurrences === null
        ? null
        : {
            frequency: t.frequency,
            max_occurrences: t.maxOccurrences,
            occurrences: before?.occurrences ?? t.occurrences,
            period_start: Number.isNaN(t.periodStart) ? null : isoOf(t.periodStart),
            period_occurrences: before?.periodCount ?? t.periodCount,
          },
  };
}

/**
 * Every check of the gates for the decision in `w` (after evaluate ran; `caps` are the mandate's
 * running totals before this request, see explainDecision): what it read, its threshold and the
 * margin. Stages the pipeline did not reach are listed with evaluated false.
 */
export function gateMargins(
  t: Thresholds,
  req: Pick<AuthorizeRequest, 'sessionId' | 'rail'>,
  w: GateInputs,
  capsBefore: ReadonlyMap<string, Units>,
  termsBefore: TermsCounts | null = null,
): GateMargin[] {
  const { amount, mandate, risk, intent, cts, limit } = w;
  const reasons = w.reasons as readonly string[];
  const gates = w.gates as readonly string[];
  const has = (r: ReasonCode) => reasons.includes(r);
  const out: GateMargin[] = [];
  const active = !gates.includes('agent_inactive');
  out.push(categorical('agent_inactive', 'agent_status', true, !active));
  out.push(categorical('session_terminated', 'session', req.sessionId !== null, gates.includes('session_terminated')));
  // A session terminated before this request stops it ahead of the mandate (none selected).
  const selecting = active && !(has('session_terminated') && mandate === null);
  const selected = mandate !== null && !SELECTION_GATES.some((g) => gates.includes(g));
  out.push(categorical('no_active_mandate', 'mandate_selection', selecting, !selected && selecting));
  if (mandate !== null) {
    const on = selected;
    out.push(
      amountCheck(
        'mandate_exceeded',
        'max_amount_per_transaction',
        on,
        amount,
        mandate.perTransaction,
        has('per_transaction_limit_exceeded'),
      ),
    );
    if (req.rail === 'CRYPTO' && mandate.cryptoMaxTransfer !== null) {
      out.push(
        amountCheck(
          'mandate_exceeded',
          'crypto_max_transfer',
          on,
          amount,
          mandate.cryptoMaxTransfer,
          has('crypto_max_transfer_exceeded'),
        ),
      );
    }
    for (const c of CAPS) {
      const capLimit = c.limit(mandate);
      const used = capsBefore.get(c.name);
      if (capLimit === null || used === undefined) continue;
      const fired = reasons.includes(c.reason);
      if (c.kind === 'amount') out.push(amountCheck('mandate_exceeded', c.name, on, used + amount, capLimit, fired));
      else out.push(numeric('mandate_exceeded', c.name, on, Number(used) + 1, Number(capLimit), 'above', fired));
    }
    out.push(categorical('mcc_blocked', 'merchant_category', on, gates.includes('mcc_blocked')));
    out.push(categorical('country_blocked', 'merchant_country', on, gates.includes('country_blocked')));
    if (req.rail === 'CRYPTO') out.push(categorical('crypto_blocked', 'crypto', on, gates.includes('crypto_blocked')));
    if (mandate.terms !== null)
      termsMargins(
        out,
        mandate.terms,
        amount,
        on && !EARLIER_MANDATE_GATES.some((g) => gates.includes(g)),
        has,
        termsBefore,
      );
  }

  const r = risk !== null;
  const riskScore = risk?.score ?? 0;
  out.push(numeric('risk_rapid_fire', 'rapid_fire_max_count', r, risk?.requests ?? 0, t.rapid_fire_max_count, 'above'));
  out.push(numeric('risk_score', 'risk_score_hard_decline', r, riskScore, t.risk_score_hard_decline, 'at_or_above'));
  out.push(
    numeric('risk_score', 'authorize_step_up_threshold', r, riskScore, t.authorize_step_up_threshold, 'at_or_above'),
  );
  const jumpAt = round4(COUNTRY_JUMP_THRESHOLD + COUNTRY_JUMP_TRUST * (risk?.trust ?? 0));
  out.push(numeric('risk_score', 'country_jump', r, risk?.countryJump ?? 0, jumpAt, 'at_or_above'));
  const approvals = risk?.approvals ?? 0;
  // Or a burst at one merchant inside the rapid-fire window (docs/decision-engine.md).
  const velocity = r && (approvals > t.risk_velocity_max_count || risk?.burst === true);
  out.push(
    numeric('risk_velocity', 'risk_velocity_max_count', r, approvals, t.risk_velocity_max_count, 'above', velocity),
  );
  // The outlier rule adapts to the agent's spread of amounts (docs/decision-engine.md): the
  // margin is against amount_outlier_multiplier x the median, `fired` is the rule's own verdict.
  const ratio = risk?.amountRatio ?? 0;
  const outlier = risk?.outlier === true;
  out.push(
    numeric(
      'risk_amount_outlier',
      'amount_outlier_multiplier',
      r,
      ratio,
      t.amount_outlier_multiplier,
      'above',
      outlier,
    ),
  );

  const c = cts !== null;
  const trust = cts?.score ?? 0;
  out.push(numeric('cognitive_decline', 'cts_red_threshold', c, trust, t.cts_red_threshold, 'below'));
  out.push(numeric('cognitive_decline', 'cts_amber_threshold', c, trust, t.cts_amber_threshold, 'below'));
  // Below GREEN the per-transaction limit is multiplied down (effective_limit, below).
  out.push(numeric('cognitive_decline', 'cts_green_threshold', c, trust, t.cts_green_threshold, 'below'));
  if (limit !== null) {
    const limited = cts?.zone === 'AMBER' || cts?.zone === 'RED';
    out.push(amountCheck('cognitive_decline', 'effective_limit', c, amount, limit, limited && amount > limit));
  }
  const anomaly = intent?.score ?? 0;
  out.push(
    numeric(
      'intent_anomaly',
      'intent_anomaly_threshold',
      intent !== null,
      anomaly,
      t.intent_anomaly_threshold,
      'at_or_above',
    ),
  );
  return out;
}

/** Used amounts (or counts) of each cap the mandate has, in its current windows. */
function capUsage(m: MandateState | null): Map<string, Units> {
  const out = new Map<string, Units>();
  if (m === null) return out;
  for (const c of CAPS) if (c.limit(m) !== null) out.set(c.name, c.used(m));
  return out;
}

/** The caps of the mandate: limit, used before this request, what remains, and what would remain after it. */
function capsView(m: MandateState, before: ReadonlyMap<string, Units>, amount: Units, approve: boolean) {
  const out: Record<string, Record<string, unknown>> = {};
  for (const c of CAPS) {
    const limit = c.limit(m);
    const used = before.get(c.name);
    if (limit === null || used === undefined) continue;
    const step = c.kind === 'amount' ? amount : 1n;
    const after = approve ? used + step : used;
    const show = (u: Units) => (c.kind === 'amount' ? money(u) : Number(u));
    const start = c.start(m);
    out[c.name] = {
      window: c.window,
      window_start: start === null ? null : isoOf(start),
      limit: show(limit),
      used: show(used),
      remaining: show(limit > used ? limit - used : 0n),
      remaining_after: show(limit > after ? limit - after : 0n),
    };
  }
  return out;
}

/**
 * The dry run: `evaluate` on a copy of `state`. Returns the /authorize response it would give
 * (authorization_id and receipt null: nothing is created) with dry_run, gates, limits, caps,
 * the events it would emit and the thresholds version. `state` is not touched.
 */
export function explainDecision(
  state: AgentState,
  req: AuthorizeRequest,
  nowMs: number,
  evaluate: Evaluate,
  budgetLent = 0n,
): Record<string, unknown> {
  // The one thing a dry run leaves in the agent's state: a try, to see probing (probing.ts).
  // Noted first, so that the dry run and the /authorize after it judge the same tries.
  noteTry(state, parseAmount(req.amount) ?? 0n, nowMs);
  const copy = copyState(state);
  // Under a Principal budget, what the pool would give the slice for this request is lent to
  // the copy only: the dry run answers as the decision would, and no escrow moves.
  if (budgetLent > 0n && copy.budget !== null) copy.budget.remaining += budgetLent;
  let seen: Work | null = null;
  let before: Map<string, Units> = new Map();
  let termsBefore: TermsCounts | null = null;
  const ev = withoutEvidence(() =>
    evaluate(copy, req, nowMs, (w) => {
      seen = w;
      before = capUsage(w.mandate);
      termsBefore = termsCounts(w.mandate);
    }),
  );
  const w = seen as Work | null;
  if (w === null) throw new Error('the decision core did not reach inspection');
  const m = w.mandate;
  const approve = ev.decision === 'APPROVE';
  const events = ['authorization.decided'];
  for (const e of ev.events) if (!events.includes(e.eventType)) events.push(e.eventType);
  return {
    ...ev.response,
    authorization_id: null,
    receipt: null,
    dry_run: true,
    gates: gateMargins(copy.thresholds, req, w, before, termsBefore),
    limits:
      m === null
        ? null
        : {
            mandate_id: m.id,
            currency: m.currency,
            max_amount_per_transaction: money(m.perTransaction),
            crypto_max_transfer: m.cryptoMaxTransfer === null ? null : money(m.cryptoMaxTransfer),
            effective_limit: ev.response.effective_limit ?? null,
            cognitive_limit_multiplier: ev.response.cognitive_limit_multiplier ?? null,
          },
    caps: m === null ? {} : capsView(m, before, w.amount, approve),
    terms: m === null || m.terms === null ? null : termsView(m.terms, termsBefore),
    would_emit: events,
    thresholds_version: state.thresholdsVersion,
  };
}
