// What the MCP tools answer: short, structured, and only what an agent needs to act on. Every
// field is picked by name from the service's answer, so nothing else reaches the model: no risk,
// trust or anomaly score, no threshold, margin or effective limit, no reason_detail or
// recommendations (their sentences quote figures), no receipt.
import type { Decision, DryRun, Mandate, StepUp } from './agent-api.js';

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

export function result(structured: Record<string, unknown>, line: string, isError = false): ToolResult {
  return {
    content: [{ type: 'text', text: line }],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}

const STEP_UP_WAIT =
  'A person has been asked to confirm this purchase: call step_up_status or wait_for_step_up with the step_up_id; once it is CONFIRMED, send the same purchase again (same amount, currency and merchant) with step_up_confirmed: true. Do not retry with a changed amount or merchant.';
const STEP_UP_ASK =
  'This purchase needs a person to confirm it: ask them about this exact purchase, and only once they confirm, send it again unchanged with step_up_confirmed: true. Do not retry with a changed amount or merchant.';

/** What the agent may do next after a decision. */
export function nextStep(decision: string, reasons: readonly string[], stepUpId: string | null, held: boolean): string {
  if (decision === 'APPROVE') {
    return held
      ? 'Hold placed: call capture_hold with the final amount once the purchase is made, or release_hold if it is not, before hold_expires_at.'
      : 'Approved: go ahead with this purchase.';
  }
  if (decision === 'STEP_UP') return stepUpId === null ? STEP_UP_ASK : STEP_UP_WAIT;
  if (reasons.includes('system_unavailable')) {
    return 'The service could not decide: nothing was approved; you may send the same purchase again shortly with the same idempotency_key.';
  }
  return 'Declined: do not make this purchase, and do not change it (split it, another amount or merchant) to get around the decline; tell the person the reason codes.';
}

export function decisionResult(d: Decision): ToolResult {
  const reasons = d.reason_codes ?? [];
  const stepUpId = d.step_up_id ?? null;
  const held = d.status === 'HELD';
  const next = nextStep(d.decision, reasons, stepUpId, held);
  const out: Record<string, unknown> = {
    decision: d.decision,
    reason_codes: reasons,
    authorization_id: d.authorization_id,
    amount: d.amount,
    currency: d.currency,
    status: d.status ?? null,
    hold_expires_at: d.hold_expires_at ?? null,
    step_up_id: stepUpId,
    next,
  };
  const why = reasons.length === 0 ? '' : ` (${reasons.join(', ')})`;
  return result(out, `${d.decision}${why}: ${next}`);
}

export function dryRunResult(d: DryRun): ToolResult {
  const reasons = d.reason_codes ?? [];
  const out = {
    decision: d.decision,
    reason_codes: reasons,
    dry_run: true,
    next:
      d.decision === 'APPROVE'
        ? 'It would be approved now; nothing was recorded or reserved: call authorize_purchase to buy.'
        : d.decision === 'STEP_UP'
          ? 'It would need a person to confirm it; nothing was recorded.'
          : 'It would be declined; nothing was recorded. Do not probe for an amount that passes: repeated checks are themselves a risk signal.',
  };
  const why = reasons.length === 0 ? '' : ` (${reasons.join(', ')})`;
  return result(out, `Would be ${d.decision}${why}. ${out.next}`);
}

/** A mandate's limits and, per cap, what is used, held and left in its current window. */
export function mandateSummary(m: Mandate): Record<string, unknown> {
  const usage = (m as { usage?: Record<string, Record<string, unknown>> }).usage ?? {};
  const caps: Record<string, unknown> = {};
  for (const [cap, u] of Object.entries(usage)) {
    caps[cap] = {
      window: u.window,
      limit: u.limit,
      used: u.used,
      held: u.held,
      remaining: u.remaining,
    };
  }
  return {
    mandate_id: m.id,
    status: m.status,
    currency: m.currency,
    valid_until: m.valid_until,
    max_amount_per_transaction: m.max_amount_per_transaction,
    allowed_mccs: m.allowed_mccs ?? null,
    blocked_mccs: m.blocked_mccs ?? null,
    allowed_countries: m.allowed_countries ?? null,
    blocked_countries: m.blocked_countries ?? null,
    caps,
  };
}

export function stepUpResult(s: StepUp, waited?: { timedOut: boolean; seconds: number }): ToolResult {
  // Read as text: a status the client's generated types may not list yet reads as expired-like.
  const status: string = s.status;
  const next =
    status === 'PENDING'
      ? 'Still waiting for the person: check again later (wait_for_step_up), do not retry the purchase changed.'
      : status === 'CONFIRMED'
        ? 'Confirmed: send the same purchase again (same amount, currency and merchant) with step_up_confirmed: true.'
        : status === 'DECLINED'
          ? 'Declined by the person: do not make this purchase, and do not retry it changed to get around the answer.'
          : status === 'USED'
            ? 'Already used by a confirmed purchase; nothing more to do.'
            : 'Expired unconfirmed: do not make this purchase unless the person asks again.';
  const out: Record<string, unknown> = {
    step_up_id: s.step_up_id,
    status: s.status,
    authorization_id: s.authorization_id,
    amount: s.amount,
    currency: s.currency,
    merchant_name: s.merchant_name ?? null,
    expires_at: s.expires_at,
    next,
  };
  if (waited !== undefined) {
    out.waited_seconds = waited.seconds;
    out.timed_out = waited.timedOut;
  }
  return result(out, `Step-up ${s.step_up_id} is ${s.status}: ${next}`);
}
