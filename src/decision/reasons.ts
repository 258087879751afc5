// Every reason code the decision engine answers with, the gate it belongs to and the
// recommendation given to the integrator (docs/decision-engine.md "Reason codes").

export type Gate =
  | 'agent_inactive'
  | 'session_terminated'
  | 'no_active_mandate'
  | 'mandate_expired'
  | 'currency_mismatch'
  | 'mandate_exceeded'
  | 'principal_budget'
  | 'mcc_blocked'
  | 'country_blocked'
  | 'crypto_blocked'
  | 'mandate_terms'
  | 'risk_rapid_fire'
  | 'risk_score'
  | 'risk_velocity'
  | 'risk_amount_outlier'
  | 'cognitive_decline'
  | 'intent_anomaly';

export interface ReasonInfo {
  /** The gate that reports this reason (null: not a gate, e.g. approved). */
  readonly gate: Gate | null;
  readonly recommendation: string;
}

function r(gate: Gate | null, recommendation: string): ReasonInfo {
  return { gate, recommendation };
}

export const REASONS = {
  approved: r(null, 'No action needed.'),
  step_up_confirmed: r(null, 'No action needed: the Principal confirmed the earlier STEP_UP.'),
  step_up_confirmation_ignored: r(
    null,
    'step_up_confirmed only clears an unexpired STEP_UP issued for the same amount, currency and merchant; re-submit exactly the request that received the STEP_UP.',
  ),
  step_up_not_confirmed: r(
    null,
    'The Principal has not confirmed this STEP_UP yet: have the person confirm it (the link or one-time code e-mailed to the confirmation address the Principal registered, or POST /api/v1/step-ups/{step_up_id}/confirm with the Principal credential), then re-submit the same request with step_up_confirmed: true.',
  ),
  step_up_declined: r(
    null,
    'The person declined this exact purchase on the confirmation page: do not retry it; a changed request is a new decision.',
  ),
  agent_inactive: r(
    'agent_inactive',
    'Reactivate the agent with PATCH /agents/{agent_id}/status (a REVOKED agent is final: register a new agent).',
  ),
  session_terminated: r(
    'session_terminated',
    'Stop retrying in this session: review the declines that ended it, then continue under a new session_id.',
  ),
  no_active_mandate: r('no_active_mandate', 'Create a mandate for the agent with POST /mandates.'),
  rail_not_permitted: r(
    'no_active_mandate',
    'Use a rail the agent has a mandate for, or create a mandate that covers this rail.',
  ),
  mandate_not_yet_valid: r('no_active_mandate', 'Retry after the mandate valid_from time.'),
  mandate_expired: r('mandate_expired', 'Create a new mandate: this one is past its valid_until.'),
  currency_mismatch: r(
    'currency_mismatch',
    'Send the amount in the mandate currency (no conversion is made) or create a mandate in this currency.',
  ),
  per_transaction_limit_exceeded: r(
    'mandate_exceeded',
    'Lower the amount to at most max_amount_per_transaction, or have the Principal grant a mandate with a higher limit.',
  ),
  crypto_max_transfer_exceeded: r('mandate_exceeded', 'Lower the amount to at most the mandate crypto max_transfer.'),
  daily_limit_exceeded: r(
    'mandate_exceeded',
    'The daily cap is used up: retry after midnight (Principal time zone, UTC by default), lower the amount, release open holds, or raise max_daily_amount.',
  ),
  monthly_limit_exceeded: r(
    'mandate_exceeded',
    'The monthly cap is used up: retry next month (Principal time zone), lower the amount, or raise max_monthly_amount.',
  ),
  weekly_limit_exceeded: r(
    'mandate_exceeded',
    'The weekly cap is used up: retry next week (Monday, Principal time zone), lower the amount, capture or release open holds, or raise max_weekly_amount.',
  ),
  yearly_limit_exceeded: r(
    'mandate_exceeded',
    'The yearly cap is used up: retry next year (Principal time zone), lower the amount, or raise max_yearly_amount.',
  ),
  total_limit_exceeded: r(
    'mandate_exceeded',
    'The mandate max_total_amount is used up: lower the amount, release open holds, or have the Principal grant a new mandate.',
  ),
  daily_count_exceeded: r(
    'mandate_exceeded',
    'The mandate max_daily_count is reached: retry tomorrow (Principal time zone) or raise max_daily_count.',
  ),
  monthly_count_exceeded: r(
    'mandate_exceeded',
    'The mandate max_monthly_count is reached: retry next month (Principal time zone) or raise max_monthly_count.',
  ),
  principal_budget_exhausted: r(
    'principal_budget',
    "The Principal's budget for all its agents is used up for this window: retry in the next window (Principal time zone), lower the amount, release open holds, or have the Principal raise it (PUT /principals/{principal_id}/budget).",
  ),
  mcc_blocked: r('mcc_blocked', 'This merchant category is blocked by the mandate; choose another merchant.'),
  mcc_not_allowed: r(
    'mcc_blocked',
    'Send the merchant mcc and use a merchant whose category is in the mandate allowed_mccs.',
  ),
  country_blocked: r('country_blocked', 'The merchant country is blocked by the mandate; choose another merchant.'),
  country_not_allowed: r(
    'country_blocked',
    'Send the merchant country and use a merchant in one of the mandate allowed_countries.',
  ),
  chain_not_allowed: r('crypto_blocked', 'Use a chain listed in the mandate allowed_chains.'),
  asset_not_allowed: r('crypto_blocked', 'Use an asset listed in the mandate allowed_assets.'),
  counterparty_not_allowed: r('crypto_blocked', 'Pay a counterparty listed in the mandate allowed_counterparties.'),
  amount_below_minimum: r(
    'mandate_terms',
    'Raise the amount to at least the mandate min_amount_per_transaction, or have the Principal lower it.',
  ),
  outside_execution_window: r(
    'mandate_terms',
    'The mandate execution_window does not cover this time: retry inside it (not_before to not_after), or have the Principal amend it.',
  ),
  day_of_week_not_allowed: r(
    'mandate_terms',
    "The mandate pays only on its execution_window.days_of_week (the Principal's time zone): retry on one of them.",
  ),
  payee_not_allowed: r(
    'mandate_terms',
    'Send the merchant_id of a payee in the mandate allowed_payees (with merchant_lock, a merchant_id is required).',
  ),
  payee_locked: r(
    'mandate_terms',
    'The mandate is locked to the merchant of its first payment (merchant_lock): pay that merchant, or have the Principal grant a new mandate.',
  ),
  recurrence_max_occurrences_reached: r(
    'mandate_terms',
    'The mandate recurrence.max_occurrences is used up: have the Principal grant a new mandate or raise it.',
  ),
  recurrence_period_used: r(
    'mandate_terms',
    "The mandate allows one payment per recurrence period and this one is used: retry in the next period (calendar, the Principal's time zone).",
  ),
  risk_rapid_fire: r(
    'risk_rapid_fire',
    'Too many requests in a short window: slow down (see rapid_fire_max_count per rapid_fire_window_seconds) and retry.',
  ),
  risk_score_too_high: r(
    'risk_score',
    'The combined risk is too high; review risk_assessment.reason_codes before retrying.',
  ),
  risk_score_elevated: r(
    'risk_score',
    'Ask the Principal to confirm, then re-submit the same request with step_up_confirmed: true.',
  ),
  country_jump: r(
    'risk_score',
    'The merchant country is new to this agent and unlike its history: ask the Principal to confirm, then re-submit the same request with step_up_confirmed: true.',
  ),
  merchant_lookalike: r(
    'risk_score',
    'The merchant is new to this agent and named like one it paid before: check it is the merchant the agent meant; ask the Principal to confirm, then re-submit the same request with step_up_confirmed: true.',
  ),
  new_category_run: r(
    'risk_score',
    'The agent began paying in this category days ago and keeps making small charges there: check the merchant is one the agent was meant to pay; ask the Principal to confirm, then re-submit the same request with step_up_confirmed: true.',
  ),
  velocity_spike: r(
    'risk_velocity',
    'Spending velocity is unusually high: ask the Principal to confirm, then re-submit the same request with step_up_confirmed: true.',
  ),
  limit_probing: r(
    'risk_score',
    'The agent tried many amounts near a limit, or many dry runs, in a short time: ask the Principal to confirm, then re-submit the same request with step_up_confirmed: true; if the agent was not meant to search, stop it and rotate its key.',
  ),
  amount_outlier: r(
    'risk_amount_outlier',
    'The amount is far above this agent usual amounts: ask the Principal to confirm, then re-submit the same request with step_up_confirmed: true.',
  ),
  cts_critical: r(
    'cognitive_decline',
    'The agent trust score is CRITICAL: stop the agent and review its recent requests and intent context.',
  ),
  cts_red: r(
    'cognitive_decline',
    'The agent trust score is RED: ask the Principal to confirm, then re-submit with step_up_confirmed: true; give a clear reasoning_summary.',
  ),
  cognitive_limit_exceeded: r(
    'cognitive_decline',
    'The amount is above effective_limit (the limit reduced for the current trust zone): lower the amount or ask the Principal to confirm.',
  ),
  prompt_injection_detected: r(
    'intent_anomaly',
    'The intent text contains instructions aimed at the authorizer; send a plain description of the purchase.',
  ),
  task_drift: r(
    'intent_anomaly',
    'The task_reference changed within the session; use a new session_id for a new task.',
  ),
  merchant_drift: r(
    'intent_anomaly',
    'Too many different merchants in one session; use a new session_id for a new task.',
  ),
  goal_misalignment: r(
    'intent_anomaly',
    'The merchant category does not fit intent_type; check the merchant or send an accurate intent_type.',
  ),
} as const satisfies Record<string, ReasonInfo>;

export type ReasonCode = keyof typeof REASONS;

export const STEP_UP_RECOMMENDATION =
  'Ask the Principal to confirm, then re-submit the same request (same amount, currency and merchant) with step_up_confirmed: true before the STEP_UP expires.';
