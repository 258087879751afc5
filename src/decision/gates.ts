// The gates of SPEC.md "POST /authorize" in order, short-circuiting on a DECLINE: the agent and
// its session, the mandate, risk scoring, cognitive trust, intent anomaly; then a
// step_up_confirmed, which clears STEP_UP gates only. Each gate's reason_detail text is here.

import type { Units } from '../domain/money.js';
import type { AgentState, MandateState } from './agent-state.js';
import { assessIntent, type IntentResult } from './intent.js';
import { checkMandate, rollTotals, selectMandate } from './mandate-check.js';
import { checkTerms, rollTerms, type TermsReason, type TermsState, weekdaysOf } from './mandate-terms.js';
import { isoOf, windowsOf } from './model/calendar.js';
import type { AuthorizeRequest, Decision } from './model/contract.js';
import { STAGE_INTENT, STAGE_RISK, STAGE_TRUST } from './model/timing.js';
import { budgetExceeded } from './principal-budget.js';
import { PROBE_MIN_TRIES, PROBE_WINDOW_MS } from './probing.js';
import type { ReasonCode } from './reasons.js';
import { CATEGORY_RUN_WINDOW_MS, PACE_WINDOW_MS } from './recent.js';
import { assessRisk, CATEGORY_RUN, COUNTRY_JUMP_THRESHOLD, type RiskResult } from './risk.js';
import { ANY_STEP_UP, CONFIRMED_STEP_UP, findPendingStepUp, UNCONFIRMED_STEP_UP } from './step-up.js';
import { scoresPastHardDecline } from './threshold-eval.js';
import { type CtsResult, computeCts, effectiveLimit } from './trust.js';
import { decline, mark, money, stepUp, type Work } from './work.js';

function mandateDetail(reason: ReasonCode, m: MandateState, req: AuthorizeRequest, amount: Units, tz: string): string {
  const amt = money(amount, req.currency);
  switch (reason) {
    case 'per_transaction_limit_exceeded':
      return `amount ${amt} exceeds the per-transaction limit ${money(m.perTransaction, m.currency)} of mandate ${m.id}`;
    case 'crypto_max_transfer_exceeded':
      return `amount ${amt} exceeds the crypto max_transfer ${money(m.cryptoMaxTransfer ?? 0n, m.currency)} of mandate ${m.id}`;
    case 'daily_limit_exceeded':
      return `amount ${amt} with ${money(m.dayAmount, m.currency)} already approved or held today (${tz}) exceeds the daily cap ${money(m.daily ?? 0n, m.currency)} of mandate ${m.id}`;
    case 'weekly_limit_exceeded':
      return `amount ${amt} with ${money(m.weekAmount, m.currency)} already approved or held this week (${tz}) exceeds the weekly cap ${money(m.weekly ?? 0n, m.currency)} of mandate ${m.id}`;
    case 'monthly_limit_exceeded':
      return `amount ${amt} with ${money(m.monthAmount, m.currency)} already approved or held this month (${tz}) exceeds the monthly cap ${money(m.monthly ?? 0n, m.currency)} of mandate ${m.id}`;
    case 'yearly_limit_exceeded':
      return `amount ${amt} with ${money(m.yearAmount, m.currency)} already approved or held this year (${tz}) exceeds the yearly cap ${money(m.yearly ?? 0n, m.currency)} of mandate ${m.id}`;
    case 'total_limit_exceeded':
      return `amount ${amt} with ${money(m.totalAmount, m.currency)} already approved or held under mandate ${m.id} exceeds its max_total_amount ${money(m.total ?? 0n, m.currency)}`;
    case 'daily_count_exceeded':
      return `${m.dayCount} transactions already approved or held today (${tz}) reach the max_daily_count ${m.dailyCount ?? 0} of mandate ${m.id}`;
    case 'monthly_count_exceeded':
      return `${m.monthCount} transactions already approved or held this month (${tz}) reach the max_monthly_count ${m.monthlyCount ?? 0} of mandate ${m.id}`;
    case 'mcc_blocked':
      return `merchant category ${req.mcc} is blocked by mandate ${m.id}`;
    case 'mcc_not_allowed':
      return req.mcc === null
        ? `mandate ${m.id} allows only listed merchant categories and no mcc was sent`
        : `merchant category ${req.mcc} is not in the allowed_mccs of mandate ${m.id}`;
    case 'country_blocked':
      return `merchant country ${req.country} is blocked by mandate ${m.id}`;
    case 'country_not_allowed':
      return req.country === null
        ? `mandate ${m.id} allows only listed countries and no country was sent`
        : `merchant country ${req.country} is not in the allowed_countries of mandate ${m.id}`;
    case 'chain_not_allowed':
      return `chain ${req.crypto?.chain ?? '(none)'} is not in the allowed_chains of mandate ${m.id}`;
    case 'asset_not_allowed':
      return `asset ${req.crypto?.asset ?? '(none)'} is not in the allowed_assets of mandate ${m.id}`;
    case 'counterparty_not_allowed':
      return `counterparty ${req.crypto?.counterparty ?? '(none)'} is not in the allowed_counterparties of mandate ${m.id}`;
    default:
      return reason;
  }
}

function termsDetail(
  reason: TermsReason,
  m: MandateState,
  t: TermsState,
  req: AuthorizeRequest,
  amount: Units,
  tz: string,
): string {
  switch (reason) {
    case 'amount_below_minimum':
      return `amount ${money(amount, req.currency)} is below the min_amount_per_transaction ${money(t.minAmount ?? 0n, m.currency)} of mandate ${m.id}`;
    case 'outside_execution_window':
      return `mandate ${m.id} pays only from ${Number.isFinite(t.notBeforeMs) ? isoOf(t.notBeforeMs) : '(open)'} to ${Number.isFinite(t.notAfterMs) ? isoOf(t.notAfterMs) : '(open)'}`;
    case 'day_of_week_not_allowed':
      return `mandate ${m.id} pays only on ${weekdaysOf(t.days).join(', ')} (${tz})`;
    case 'payee_not_allowed':
      return req.merchantId === null
        ? `mandate ${m.id} pays only named payees and no merchant_id was sent`
        : `merchant_id ${req.merchantId} is not in the allowed_payees of mandate ${m.id}`;
    case 'payee_locked':
      return `mandate ${m.id} is locked to merchant_id ${t.lockedPayee ?? ''}, the payee of its first payment`;
    case 'recurrence_max_occurrences_reached':
      return `${t.occurrences} payments already approved or held under mandate ${m.id} reach its recurrence.max_occurrences ${t.maxOccurrences ?? 0}`;
    case 'recurrence_period_used':
      return `mandate ${m.id} (${t.frequency ?? ''}) already paid in the period that started ${isoOf(t.periodStart)} (${tz})`;
  }
}

const PER: Readonly<Record<string, string>> = { day: 'daily', week: 'weekly', month: 'monthly', year: 'yearly' };

function budgetDetail(state: AgentState, req: AuthorizeRequest, amount: Units): string {
  const b = state.budget;
  return b === null
    ? 'principal_budget_exhausted'
    : `amount ${money(amount, req.currency)} exceeds what is left of the Principal's ${PER[b.window]} budget ${money(b.limit, b.currency)} for its agents (${state.timeZone})`;
}

function selectionDetail(reason: ReasonCode, m: MandateState | null, req: AuthorizeRequest): string {
  switch (reason) {
    case 'no_active_mandate':
      return 'the agent has no ACTIVE mandate';
    case 'rail_not_permitted':
      return `no ACTIVE mandate of the agent covers the ${req.rail} rail`;
    case 'currency_mismatch':
      return `currency ${req.currency} differs from the currency ${m?.currency ?? ''} of mandate ${m?.id ?? ''} (no conversion is made)`;
    case 'mandate_expired':
      return `mandate ${m?.id ?? ''} expired at ${new Date(m?.validUntilMs ?? 0).toISOString()}`;
    case 'mandate_not_yet_valid':
      return `mandate ${m?.id ?? ''} is valid only from ${new Date(m?.validFromMs ?? 0).toISOString()}`;
    default:
      return reason;
  }
}

/** Runs stages 0 to 4 on `w`: its verdict, and the mandate, risk, intent and trust they found. */
export function runGates(state: AgentState, req: AuthorizeRequest, w: Work, nowMs: number): void {
  const t = state.thresholds;
  const { amount, merchant, session } = w;
  let mandate: MandateState | null = null;
  let risk: RiskResult | null = null;
  let intent: IntentResult | null = null;
  let cts: CtsResult | null = null;
  let limit: Units | null = null;

  // Stage 0: the agent and its session.
  if (state.status !== 'ACTIVE') {
    decline(w, 'agent_inactive', `agent ${state.agentId} is ${state.status}`);
  } else if (session?.terminated) {
    decline(
      w,
      'session_terminated',
      `session ${req.sessionId} was terminated earlier; no further request in it is approved`,
    );
  } else {
    // Stage 1: mandate selection and check.
    const sel = selectMandate(state.mandates, req, nowMs);
    mandate = sel.mandate;
    const windows = windowsOf(state.timeZone, nowMs);
    if (mandate !== null) rollTotals(mandate, windows);
    if (sel.reason !== null) {
      decline(w, sel.reason, selectionDetail(sel.reason, mandate, req));
    } else if (mandate !== null) {
      const violation = checkMandate(mandate, req, amount);
      const terms = mandate.terms;
      let broken: TermsReason | null = null;
      if (violation === null && terms !== null) {
        rollTerms(terms, windows, state.timeZone);
        broken = checkTerms(terms, req, amount, nowMs, windows);
      }
      if (violation !== null) decline(w, violation, mandateDetail(violation, mandate, req, amount, state.timeZone));
      else if (broken !== null && terms !== null) {
        decline(w, broken, termsDetail(broken, mandate, terms, req, amount, state.timeZone));
      } else if (budgetExceeded(state, req, amount, nowMs, windows)) {
        decline(w, 'principal_budget_exhausted', budgetDetail(state, req, amount));
      }
    }
  }

  if (w.decision === 'APPROVE' && mandate !== null) {
    // Stage 2: risk scoring.
    mark(w, STAGE_RISK);
    risk = assessRisk(state, req, amount, merchant, nowMs, mandate);
    if (risk.rapidFire) {
      decline(
        w,
        'risk_rapid_fire',
        `${risk.requests} requests within ${t.rapid_fire_window_seconds} s exceed rapid_fire_max_count ${t.rapid_fire_max_count}`,
      );
    } else if (risk.hardDecline) {
      decline(
        w,
        'risk_score_too_high',
        `risk_score ${risk.score} is at or above risk_score_hard_decline ${t.risk_score_hard_decline}`,
      );
      // For backtests and shadow thresholds: what stages 3 and 4 would have scored.
      w.pastHardDecline = scoresPastHardDecline(state, req, risk, w);
    } else {
      if (risk.velocity) {
        stepUp(
          w,
          'velocity_spike',
          risk.burst && risk.paceAllowed > 0 && risk.paced > risk.paceAllowed
            ? `${risk.paced} approvals within ${PACE_WINDOW_MS / 1000} s exceed the agent's own pace and what this purchase allows (${risk.paceAllowed})`
            : risk.burst
              ? `${risk.requests} requests (${risk.sameMerchant} at this merchant) within ${t.rapid_fire_window_seconds} s are a burst`
              : `${risk.approvals} approvals within ${t.risk_velocity_window_seconds} s exceed risk_velocity_max_count ${t.risk_velocity_max_count}`,
        );
      }
      if (risk.outlier) {
        stepUp(
          w,
          'amount_outlier',
          risk.amountRatio === 0
            ? `amount is ${risk.capShare} of max_amount_per_transaction with too little history in ${req.currency} to judge it`
            : `amount is ${risk.amountRatio} times the agent median approved amount in ${req.currency} (robust z ${risk.amountZ}, ${risk.capShare} of max_amount_per_transaction; amount_outlier_multiplier ${t.amount_outlier_multiplier})`,
        );
      }
      if (risk.probing) {
        stepUp(
          w,
          'limit_probing',
          `the agent tried ${PROBE_MIN_TRIES} or more amounts near a limit or in dry runs within ${PROBE_WINDOW_MS / 60_000} minutes`,
        );
      }
      if (risk.jump) {
        stepUp(
          w,
          'country_jump',
          `merchant country ${req.country} is new to the agent (country-jump score ${risk.countryJump}, threshold ${COUNTRY_JUMP_THRESHOLD})`,
        );
      }
      if (risk.lookalike) {
        stepUp(
          w,
          'merchant_lookalike',
          'the merchant is new to the agent and its name imitates a merchant the agent paid',
        );
      }
      if (risk.categoryRun) {
        stepUp(
          w,
          'new_category_run',
          `the agent began paying in this category (MCC ${req.mcc}) within the last ${CATEGORY_RUN_WINDOW_MS / 86_400_000} days and this is charge ${CATEGORY_RUN} or later there at no more than half its usual amount, the last one 30 minutes or more before`,
        );
      }
      if (risk.stepUp) {
        stepUp(
          w,
          'risk_score_elevated',
          `risk_score ${risk.score} is at or above authorize_step_up_threshold ${t.authorize_step_up_threshold}`,
        );
      }

      // Stage 3: cognitive trust (the intent it reads is scored first).
      mark(w, STAGE_INTENT);
      intent = assessIntent(state, req, session, merchant, t.intent_anomaly_threshold);
      mark(w, STAGE_TRUST);
      cts = computeCts(state, req, risk, intent, session, merchant);
      limit = effectiveLimit(mandate.perTransaction, cts.multiplierUnits);
      const over = amount > limit;
      if (cts.zone === 'CRITICAL') {
        decline(
          w,
          'cts_critical',
          `trust_score ${cts.score} is below cts_red_threshold ${t.cts_red_threshold} (CRITICAL)`,
        );
      } else if (cts.zone === 'RED') {
        if (over) {
          decline(
            w,
            'cognitive_limit_exceeded',
            `trust zone RED limits this agent to ${money(limit, mandate.currency)} per transaction (multiplier ${cts.multiplier})`,
          );
        } else {
          stepUp(
            w,
            'cts_red',
            `trust_score ${cts.score} is in the RED zone (below cts_amber_threshold ${t.cts_amber_threshold})`,
          );
        }
      } else if (cts.zone === 'AMBER' && over) {
        stepUp(
          w,
          'cognitive_limit_exceeded',
          `trust zone AMBER limits this agent to ${money(limit, mandate.currency)} per transaction (multiplier ${cts.multiplier})`,
        );
      }

      // Stage 4: intent anomaly.
      if ((w.decision as Decision) !== 'DECLINE' && intent.triggered) {
        const first = w.reasons.length;
        for (const s of intent.signals) decline(w, s as ReasonCode, '');
        w.details.length = first;
        w.details.push(
          `intent_anomaly_score ${intent.score} is at or above intent_anomaly_threshold ${t.intent_anomaly_threshold} (${intent.signals.join(', ')})`,
        );
      }
    }
  }
  w.mandate = mandate;
  w.risk = risk;
  w.intent = intent;
  w.cts = cts;
  w.limit = limit;
}

/**
 * Step-up confirmation: clears STEP_UP gates only (never a DECLINE). The STEP_UP it matched is
 * used once the decision is recorded (outcome.ts applyOutcome), as a reload does from the row.
 */
export function confirmStepUp(state: AgentState, req: AuthorizeRequest, w: Work, nowMs: number): void {
  const { amount, merchant } = w;
  let confirmed = false;
  let ignoredConfirmation = false;
  if (req.stepUpConfirmed && w.decision !== 'DECLINE') {
    // Under the 'principal' policy only a step-up the Principal confirmed clears it.
    const kind = state.stepUpByPrincipal ? CONFIRMED_STEP_UP : ANY_STEP_UP;
    const idx = findPendingStepUp(state, amount, req.currency, merchant, nowMs, kind);
    if (idx >= 0) {
      const p = state.pendingStepUps[idx];
      confirmed = true;
      w.stepUpId = p?.stepUpId ?? null;
      w.decision = 'APPROVE';
      w.gates.length = 0;
      w.reasons.length = 0;
      w.details.length = 0;
      w.details.push(`the STEP_UP ${p?.authorizationId ?? ''} was confirmed by the Principal`);
    } else if (w.decision === 'STEP_UP') {
      ignoredConfirmation = true;
    }
  }
  if (ignoredConfirmation && state.stepUpByPrincipal) {
    const idx = findPendingStepUp(state, amount, req.currency, merchant, nowMs, UNCONFIRMED_STEP_UP);
    if (idx >= 0) {
      const id = (state.pendingStepUps[idx] as { stepUpId: string }).stepUpId;
      w.reasons.push('step_up_not_confirmed');
      w.details.push(`step_up_confirmed was ignored: the Principal has not confirmed step-up ${id} yet`);
      ignoredConfirmation = false;
    }
  }
  if (ignoredConfirmation) {
    w.reasons.push('step_up_confirmation_ignored');
    w.details.push('step_up_confirmed was ignored: no unexpired STEP_UP for the same amount, currency and merchant');
  }
  w.confirmed = confirmed;
}
