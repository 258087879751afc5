// The event catalog of SPEC.md "Events": the webhook event types, their descriptions and sample
// payloads (GET /api/v1/webhooks/events), and the registration aliases of the cts events.
// authorization.decided is published on NATS for every decision (CONTRACT.md) but is not a
// webhook event type: webhooks, even with `*`, never receive it.

export const WEBHOOK_EVENT_TYPES = [
  'gate.fired',
  'authorization.decline',
  'cts.red',
  'cts.critical',
  'session.terminate',
  'trust.promotion',
  'step_up.created',
  'step_up.confirmed',
  'step_up.declined',
  'webhook.delivery_exhausted',
  'authorization.captured',
  'authorization.released',
  'authorization.expired',
  'authorization.refunded',
  'authorization.voided',
  'budget.threshold_reached',
  'budget.exhausted',
  'mandate.updated',
  'mandate.revoked',
  'principal_budget.threshold_reached',
  'principal_budget.exhausted',
  'ap2_mandate.imported',
  'ap2_mandate.consumed',
  'ap2_mandate.refused',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Names accepted at registration for the cts events (SPEC.md "Naming conflict"). */
export const EVENT_TYPE_ALIASES: Readonly<Record<string, WebhookEventType>> = Object.freeze({
  'kya.zone.red': 'cts.red',
  'kya.zone.critical': 'cts.critical',
});

export const WILDCARD = '*';

/** Every name a webhook may subscribe to. */
export const SUBSCRIBABLE_EVENT_TYPES: readonly string[] = [
  ...WEBHOOK_EVENT_TYPES,
  ...Object.keys(EVENT_TYPE_ALIASES),
  WILDCARD,
];

/** A webhook delivery stopped for good without success (src/webhooks/exhausted.ts). */
export const DELIVERY_EXHAUSTED_EVENT_TYPE = 'webhook.delivery_exhausted';

/** The NATS-only event published for every decision, with the audit entry as data. */
export const DECIDED_EVENT_TYPE = 'authorization.decided';

const webhookTypes: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

export function isWebhookEventType(type: string): boolean {
  return webhookTypes.has(type);
}

/** Canonical type of a subscription entry (alias resolved); `*` stays `*`. */
export function canonicalEventType(type: string): string {
  return EVENT_TYPE_ALIASES[type] ?? type;
}

/**
 * True when a webhook subscribed to `subscribed` (as registered) receives `eventType`.
 * Future webhook types reach `*` subscribers; authorization.decided never reaches webhooks.
 */
export function subscriptionMatches(subscribed: readonly string[], eventType: string): boolean {
  if (eventType === DECIDED_EVENT_TYPE) return false;
  for (const s of subscribed) {
    if (s === WILDCARD || canonicalEventType(s) === eventType) return true;
  }
  return false;
}

const SAMPLE_AGENT = 'agt_sample000000000000000000';
const SAMPLE_AUTH = 'auth_sample00000000000000000';
const SAMPLE_MANDATE = 'mnd_sample000000000000000000';
const DIMENSIONS = {
  context_coherence: 0.41,
  reasoning_quality: 0.38,
  mandate_compliance: 0.52,
  behavioral_consistency: 0.29,
  temporal_stability: 0.35,
};

export interface CatalogEntry {
  readonly type: string;
  readonly description: string;
  readonly sample_payload: Record<string, unknown>;
}

const CATALOG: readonly CatalogEntry[] = [
  {
    type: 'gate.fired',
    description: 'A safety gate fired during an authorization (one event per gate).',
    sample_payload: {
      agent_id: SAMPLE_AGENT,
      authorization_id: SAMPLE_AUTH,
      gate: 'mandate_exceeded',
      decision: 'DECLINE',
      amount: '250.00',
      currency: 'USD',
      merchant: 'Example Store',
      trust_score: 0.82,
      risk_score: 0.12,
    },
  },
  {
    type: 'authorization.decline',
    description: 'A transaction was declined.',
    sample_payload: {
      agent_id: SAMPLE_AGENT,
      authorization_id: SAMPLE_AUTH,
      amount: '250.00',
      currency: 'USD',
      merchant: 'Example Store',
      gates_fired: ['mandate_exceeded'],
      trust_score: 0.82,
      risk_score: 0.12,
      recommendations: ['Request a higher per-transaction limit from the principal'],
    },
  },
  {
    type: 'cts.red',
    description: 'The cognitive trust score fell into the RED zone (also registrable as kya.zone.red).',
    sample_payload: {
      agent_id: SAMPLE_AGENT,
      previous_zone: 'AMBER',
      current_zone: 'RED',
      trust_score: 0.39,
      cognitive_limit_multiplier: 0.25,
      dimensions: DIMENSIONS,
    },
  },
  {
    type: 'cts.critical',
    description: 'The cognitive trust score fell into the CRITICAL zone (also registrable as kya.zone.critical).',
    sample_payload: {
      agent_id: SAMPLE_AGENT,
      previous_zone: 'RED',
      current_zone: 'CRITICAL',
      trust_score: 0.18,
      cognitive_limit_multiplier: 0,
      dimensions: { ...DIMENSIONS, behavioral_consistency: 0.1, temporal_stability: 0.12 },
    },
  },
  {
    type: 'session.terminate',
    description: 'A session was ended after repeated failures or critical trust.',
    sample_payload: {
      agent_id: SAMPLE_AGENT,
      session_id: 'sess_checkout_42',
      reason: 'consecutive_denials',
      consecutive_denials: 5,
      final_trust_score: 0.31,
    },
  },
  {
    type: 'trust.promotion',
    description: 'An agent moved to a higher trust tier (tiers: new, verified, trusted).',
    sample_payload: {
      agent_id: SAMPLE_AGENT,
      previous_tier: 'new',
      new_tier: 'verified',
      trust_score: 0.86,
      successful_txns: 25,
      age_hours: 72.5,
    },
  },
  {
    type: 'step_up.created',
    description:
      "A STEP_UP decision asks the human principal to confirm a transaction. Under the Principal's step-up policy principal it opens a step-up (step_up_id; null otherwise), whose link and one-time code the service e-mails to the address the Principal registered: never in this event.",
    sample_payload: {
      agent_id: SAMPLE_AGENT,
      authorization_id: SAMPLE_AUTH,
      amount: '180.00',
      currency: 'USD',
      merchant: 'Example Store',
      mcc: '5411',
      session_id: 'sess_checkout_42',
      gates_fired: ['risk_amount_outlier'],
      reason_codes: ['risk_amount_outlier'],
      expires_at: '2025-01-01T12:15:00.000Z',
      trust_score: 0.74,
      risk_score: 0.58,
      step_up_id: 'stp_sample00000000000000000',
    },
  },
  {
    type: 'step_up.confirmed',
    description:
      'The person confirmed a step-up (on the confirmation page: via link; with the one-time code: code; with the Principal credential: credential; a notify-and-proceed notice not declined within its veto window: veto_window). The agent may now re-send the same request with step_up_confirmed: true before expires_at.',
    sample_payload: {
      step_up_id: 'stp_sample00000000000000000',
      agent_id: SAMPLE_AGENT,
      authorization_id: SAMPLE_AUTH,
      amount: '180.00',
      currency: 'USD',
      merchant_id: null,
      merchant_name: 'Example Store',
      confirmed_via: 'link',
      expires_at: '2025-01-01T12:15:00.000Z',
    },
  },
  {
    type: 'step_up.declined',
    description:
      'The person declined a step-up on the confirmation page: the same request is declined (step_up_declined) until expires_at.',
    sample_payload: {
      step_up_id: 'stp_sample00000000000000000',
      agent_id: SAMPLE_AGENT,
      authorization_id: SAMPLE_AUTH,
      amount: '180.00',
      currency: 'USD',
      merchant_id: null,
      merchant_name: 'Example Store',
      expires_at: '2025-01-01T12:15:00.000Z',
    },
  },
  {
    type: 'webhook.delivery_exhausted',
    description:
      'A webhook delivery stopped without success: its retries ran out, or the webhook was disabled after consecutive failures. Redeliver with POST /api/v1/webhooks/{id}/redeliver. Never sent for a delivery of this type itself.',
    sample_payload: {
      webhook_id: 'wh_sample000000000000000000',
      url: 'https://example.com/hooks/asas',
      event_id: 'evt_sample000000000000000000',
      event_type: 'authorization.decline',
      attempts: 6,
      last_status_code: 503,
      last_error: 'HTTP 503',
      reason: 'retries_exhausted',
    },
  },
  {
    type: 'authorization.captured',
    description: 'A hold (capture_method manual) was captured; the rest of it went back to the budget.',
    sample_payload: {
      authorization_id: SAMPLE_AUTH,
      agent_id: SAMPLE_AGENT,
      mandate_id: SAMPLE_MANDATE,
      currency: 'USD',
      amount: '60',
      status: 'CAPTURED',
      captured_amount: '45',
      released_amount: '15',
    },
  },
  {
    type: 'authorization.released',
    description: 'A hold was released: its whole amount went back to the budget.',
    sample_payload: {
      authorization_id: SAMPLE_AUTH,
      agent_id: SAMPLE_AGENT,
      mandate_id: SAMPLE_MANDATE,
      currency: 'USD',
      amount: '60',
      status: 'RELEASED',
      released_amount: '60',
    },
  },
  {
    type: 'authorization.expired',
    description: 'A hold was not captured before its expiry: its whole amount went back to the budget.',
    sample_payload: {
      authorization_id: SAMPLE_AUTH,
      agent_id: SAMPLE_AGENT,
      mandate_id: SAMPLE_MANDATE,
      currency: 'USD',
      amount: '60',
      status: 'EXPIRED',
      released_amount: '60',
      expired_at: '2025-01-08T12:00:00.000Z',
    },
  },
  {
    type: 'authorization.refunded',
    description:
      'A captured authorization was refunded (in part or in whole); the amount went back to the windows it counted in.',
    sample_payload: {
      authorization_id: SAMPLE_AUTH,
      agent_id: SAMPLE_AGENT,
      mandate_id: SAMPLE_MANDATE,
      currency: 'USD',
      amount: '60',
      refund_id: 'rfd_sample00000000000000000',
      refund_amount: '20',
      refunded_amount: '20',
      captured_amount: '60',
    },
  },
  {
    type: 'authorization.voided',
    description:
      'A decision was recorded after the service had answered it with the safe DECLINE system_unavailable (its commit was slow to come back): it is voided. An APPROVE gives its amount and count back to the windows it counted in and its status becomes VOIDED; nobody was told of it, so nothing may be captured under it.',
    sample_payload: {
      authorization_id: SAMPLE_AUTH,
      agent_id: SAMPLE_AGENT,
      mandate_id: SAMPLE_MANDATE,
      decision: 'APPROVE',
      currency: 'USD',
      amount: '60',
      status: 'VOIDED',
      reason: 'answered_safe_decline',
    },
  },
  {
    type: 'budget.threshold_reached',
    description:
      'An approval or hold brought a mandate cap to its alert share (budget_alert_share, default 0.8); once per cap and window.',
    sample_payload: {
      agent_id: SAMPLE_AGENT,
      mandate_id: SAMPLE_MANDATE,
      authorization_id: SAMPLE_AUTH,
      cap: 'max_daily_amount',
      window: 'day',
      window_start: '2025-01-01T00:00:00.000Z',
      limit: '100',
      used: '85',
      remaining: '15',
      currency: 'USD',
      share: 0.8,
    },
  },
  {
    type: 'budget.exhausted',
    description:
      'A mandate cap is used up: an approval or hold reached it, or a request was declined for it; once per cap and window.',
    sample_payload: {
      agent_id: SAMPLE_AGENT,
      mandate_id: SAMPLE_MANDATE,
      authorization_id: SAMPLE_AUTH,
      cap: 'max_daily_count',
      window: 'day',
      window_start: '2025-01-01T00:00:00.000Z',
      limit: 5,
      used: 5,
      remaining: 0,
      currency: null,
      declined_amount: '12',
    },
  },
  {
    type: 'mandate.updated',
    description:
      "A mandate was amended (PATCH /api/v1/mandates/{id}): its limits, lists or valid_until changed; in force from the agent's next decision.",
    sample_payload: {
      mandate_id: SAMPLE_MANDATE,
      agent_id: SAMPLE_AGENT,
      changes: {
        max_daily_amount: { from: '100', to: '50' },
        blocked_mccs: { from: null, to: ['7995'] },
      },
      mandate_hash: 'sha256:5c1f0d2e4b7a9c8e3f6a1b2d4c7e9f0a3b5d8c1e4f7a0b3c6d9e2f5a8b1c4d7e',
      previous_mandate_hash: 'sha256:9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d',
      updated_at: '2025-01-01T12:00:00.000Z',
    },
  },
  {
    type: 'mandate.revoked',
    description: 'A mandate was revoked (POST /api/v1/mandates/{id}/revoke): every later decision on it declines.',
    sample_payload: {
      mandate_id: SAMPLE_MANDATE,
      agent_id: SAMPLE_AGENT,
      reason: 'Trip cancelled',
      previous_status: 'ACTIVE',
      mandate_hash: 'sha256:5c1f0d2e4b7a9c8e3f6a1b2d4c7e9f0a3b5d8c1e4f7a0b3c6d9e2f5a8b1c4d7e',
      revoked_at: '2025-01-01T12:00:00.000Z',
    },
  },
  {
    type: 'principal_budget.threshold_reached',
    description:
      "The Principal's budget for all its agents reached its alert share (alert_share, default 0.8): counted on what the agents were handed (spent, held, or escrowed in an agent's slice); once per window.",
    sample_payload: {
      principal_id: 'prn_sample000000000000000000',
      window: 'month',
      window_start: '2025-01-01T00:00:00.000Z',
      limit: '5000',
      currency: 'EUR',
      allocated: '4012.5',
      available: '987.5',
    },
  },
  {
    type: 'principal_budget.exhausted',
    description:
      "The Principal's budget for all its agents could not cover a request (after the agents' unspent slices were recalled); once per window.",
    sample_payload: {
      principal_id: 'prn_sample000000000000000000',
      window: 'month',
      window_start: '2025-01-01T00:00:00.000Z',
      limit: '5000',
      currency: 'EUR',
      agent_id: SAMPLE_AGENT,
      available: '3.2',
      declined_amount: '12',
    },
  },
  {
    type: 'ap2_mandate.imported',
    description:
      "An AP2 open Payment Mandate was verified and imported as an agent's mandate (POST /api/v1/agents/{agent_id}/ap2-mandates); spent only by presenting closed mandates bound to it.",
    sample_payload: {
      mandate_id: SAMPLE_MANDATE,
      agent_id: SAMPLE_AGENT,
      credential_hash: 'uixoHemmfrrCSbPREo9j-ziLuMkqExsPeWrwA-PK0Ck',
      issuer_kid: 'wallet-key-1',
      mandate_hash: 'sha256:5c1f0d2e4b7a9c8e3f6a1b2d4c7e9f0a3b5d8c1e4f7a0b3c6d9e2f5a8b1c4d7e',
      currency: 'USD',
      max_amount_per_transaction: '50.00',
      max_total_amount: '60.00',
      valid_until: '2025-02-01T00:00:00.000Z',
    },
  },
  {
    type: 'ap2_mandate.consumed',
    description:
      'A closed AP2 Payment Mandate presented with POST /api/v1/authorize/ap2 was approved and consumed: it (and its transaction_id) is refused from now on.',
    sample_payload: {
      mandate_id: SAMPLE_MANDATE,
      agent_id: SAMPLE_AGENT,
      credential_hash: 'uixoHemmfrrCSbPREo9j-ziLuMkqExsPeWrwA-PK0Ck',
      closed_mandate_hash: 'G2DuU6IjyDkD-9ItStdsUo48C5uJqDs1E9Hf5GT3TgM',
      transaction_id: 'NivWhuqfzcvZNapvIEJ2-3tsdQLkiuIcye2g46WVgX8',
      authorization_id: SAMPLE_AUTH,
      amount: '30.00',
      currency: 'USD',
      payee_id: 'merchant_1',
      consumed_at: '2025-01-01T12:00:00.000Z',
    },
  },
  {
    type: 'ap2_mandate.refused',
    description:
      'An AP2 Payment Mandate was refused: at import (stage import: a verification error or unresolved_constraint), at presentation (stage presentation: bad chain, replay) or by the decision (stage decision: DECLINE or STEP_UP, not consumed). error is the service code, ap2_error the AP2 one.',
    sample_payload: {
      stage: 'presentation',
      agent_id: SAMPLE_AGENT,
      error: 'ap2_mandate_already_consumed',
      ap2_error: 'invalid_mandate',
      message: 'This closed Payment Mandate (or its transaction_id) was already presented.',
      credential_hash: 'G2DuU6IjyDkD-9ItStdsUo48C5uJqDs1E9Hf5GT3TgM',
    },
  },
];

export function eventCatalog(): readonly CatalogEntry[] {
  return CATALOG;
}

export function samplePayload(type: string): Record<string, unknown> {
  const canonical = canonicalEventType(type);
  const entry = CATALOG.find((e) => e.type === canonical);
  return { ...(entry?.sample_payload ?? {}) };
}

export const WILDCARD_DESCRIPTION =
  'Subscribe with "*" to receive every webhook event type, including types added in the future. ' +
  'kya.zone.red and kya.zone.critical are accepted as aliases of cts.red and cts.critical.';
