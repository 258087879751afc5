// Builders for unit tests of the decision core: agent states, mandates and requests.

import type { AgentState, MandateState } from '../../src/decision/agent-state.js';
import { evaluate } from '../../src/decision/core.js';
import { mandateFromRow } from '../../src/decision/mandate-row.js';
import type { AuthorizeRequest } from '../../src/decision/model/contract.js';
import type { ThresholdOverrides } from '../../src/decision/model/thresholds.js';
import { newAgentState } from '../../src/decision/state.js';

export const T0 = Date.UTC(2025, 4, 14, 12, 0, 0);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export interface MandateInput {
  id?: string;
  rails?: string[];
  currency?: string;
  perTransaction?: string;
  daily?: string | null;
  monthly?: string | null;
  allowedMccs?: string[] | null;
  blockedMccs?: string[] | null;
  allowedCountries?: string[] | null;
  blockedCountries?: string[] | null;
  allowedChains?: string[] | null;
  allowedAssets?: string[] | null;
  allowedCounterparties?: string[] | null;
  crypto?: Record<string, unknown> | null;
  validFromMs?: number;
  validUntilMs?: number;
  createdAtMs?: number;
}

export function mandate(m: MandateInput = {}, nowMs = T0): MandateState {
  return mandateFromRow(
    {
      id: m.id ?? 'mnd_test',
      rails: m.rails ?? ['card'],
      currency: m.currency ?? 'USD',
      max_amount_per_transaction: m.perTransaction ?? '1000',
      max_daily_amount: m.daily === undefined ? '5000' : m.daily,
      max_monthly_amount: m.monthly === undefined ? null : m.monthly,
      allowed_mccs: m.allowedMccs ?? null,
      blocked_mccs: m.blockedMccs ?? null,
      allowed_countries: m.allowedCountries ?? null,
      blocked_countries: m.blockedCountries ?? null,
      allowed_chains: m.allowedChains ?? null,
      allowed_assets: m.allowedAssets ?? null,
      allowed_counterparties: m.allowedCounterparties ?? null,
      crypto: m.crypto ?? null,
      valid_from: new Date(m.validFromMs ?? T0 - 30 * DAY),
      valid_until: new Date(m.validUntilMs ?? T0 + 365 * DAY),
      created_at: new Date(m.createdAtMs ?? T0 - 30 * DAY),
    },
    nowMs,
  );
}

export function agent(
  opts: { mandates?: MandateState[]; overrides?: ThresholdOverrides; status?: string; createdAtMs?: number } = {},
): AgentState {
  return newAgentState({
    agentId: 'agt_test',
    principalId: 'prn_test',
    clientId: 'cli_test',
    status: opts.status ?? 'ACTIVE',
    createdAtMs: opts.createdAtMs ?? T0 - 30 * DAY,
    mandates: opts.mandates ?? [mandate()],
    overrides: opts.overrides ?? {},
  });
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function request(
  over: Partial<Mutable<AuthorizeRequest>> & {
    intentType?: string;
    task?: string;
    reasoning?: string | null;
    confidence?: number | null;
  } = {},
): AuthorizeRequest {
  const { intentType, task, reasoning, confidence, ...rest } = over;
  return {
    requestId: 'req_test',
    environment: 'sandbox',
    clientId: 'cli_test',
    principalId: 'prn_test',
    agentId: 'agt_test',
    amount: '10',
    currency: 'USD',
    merchantName: 'Acme Supplies',
    merchantId: null,
    mcc: '5999',
    country: 'USA',
    rail: 'CARD',
    crypto: null,
    intent: {
      intentType: intentType ?? 'purchase',
      taskReference: task ?? 'task-1',
      reasoningSummary: reasoning === undefined ? null : reasoning,
      confidence: confidence === undefined ? null : confidence,
      alternativesConsidered: null,
    },
    sessionId: null,
    idempotencyKey: null,
    stepUpConfirmed: false,
    receivedAtMs: T0,
    ...rest,
  };
}

/** Evaluates and returns the response body plus the evaluation. */
export function decide(state: AgentState, req: AuthorizeRequest, nowMs = T0) {
  const ev = evaluate(state, req, nowMs);
  return {
    ev,
    res: ev.response as Record<string, unknown> & { decision: string; reason_codes: string[]; gates_fired: string[] },
  };
}

export function eventTypes(ev: { events: readonly { eventType: string }[] }): string[] {
  return ev.events.map((e) => e.eventType);
}
