// The mandate lifecycle (docs/mandate-lifecycle.md): PATCH /api/v1/mandates/{id} amends the
// limits, lists and valid_until of an ACTIVE mandate with the checks of its creation, and
// POST /api/v1/mandates/{id}/revoke ends it. Each runs in one transaction with the mandate's row
// locked (FOR UPDATE), its security-log record and its event (mandate.updated, mandate.revoked:
// one outbox_batches row, relayed like a decision's); the route then makes the agent's owning
// actor reload before it answers, so the change is in force for the agent's next decision.
//
// mandate_hash names the terms: an amendment that changes them stores the hash of the amended
// terms, built from the stored row in the shape POST /api/v1/mandates hashes (so a PATCH that
// changes nothing keeps the hash, and a runtime-plane mandate amended back to its first terms
// gets its first hash back; an onboarding-plane mandate, hashed in that plane's shape at
// creation, carries the runtime shape's hash once amended). The previous hash travels in the
// mandate.updated event.

import type postgres from 'postgres';
import { recordSecurityEvent } from '../audit/security-log.js';
import { runtimeMandateHash } from '../domain/mandate-hash.js';
import { formatAmount, fromDb, toDb, toJsonNumber, type Units } from '../domain/money.js';
import { ApiError, type ErrorDetail } from '../errors/registry.js';
import { type OutboxTuple, outboxEvent, writeOutbox } from '../events/outbox.js';
import type { RequestContext } from '../http/types.js';
import {
  countries,
  EXTRA_AMOUNT_FIELDS,
  type ExtraLimits,
  extraTerms,
  limit,
  readExtraLimits,
} from './mandate-limits.js';
import { COLUMNS, type RuntimeMandateRow } from './mandate-store.js';
import { amendTerms, TERMS_FIELDS, type TermsField, termsView } from './mandate-terms.js';

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
type Tx = postgres.TransactionSql<{}>;

type Amount = string | number;

/** schemas/RuntimeMandateUpdateRequest.json: absent leaves a field as it is, null removes it. */
export interface PatchBody {
  valid_until?: string;
  max_amount_per_transaction?: Amount;
  max_daily_amount?: Amount | null;
  max_monthly_amount?: Amount | null;
  max_weekly_amount?: Amount | null;
  max_yearly_amount?: Amount | null;
  max_total_amount?: Amount | null;
  max_daily_count?: number | null;
  max_monthly_count?: number | null;
  hold_expiry_seconds?: number | null;
  budget_alert_share?: number | null;
  allowed_mccs?: string[] | null;
  blocked_mccs?: string[] | null;
  allowed_countries?: string[] | null;
  blocked_countries?: string[] | null;
  allowed_chains?: string[] | null;
  allowed_assets?: string[] | null;
  allowed_counterparties?: string[] | null;
  min_amount_per_transaction?: Amount | null;
  allowed_payees?: string[] | null;
  merchant_lock?: boolean | null;
  execution_window?: Record<string, unknown> | null;
  recurrence?: Record<string, unknown> | null;
}

const MONEY = ['max_amount_per_transaction', 'max_daily_amount', 'max_monthly_amount', ...EXTRA_AMOUNT_FIELDS] as const;
const INTEGERS = ['max_daily_count', 'max_monthly_count', 'hold_expiry_seconds'] as const;
const LISTS = [
  'allowed_mccs',
  'blocked_mccs',
  'allowed_countries',
  'blocked_countries',
  'allowed_chains',
  'allowed_assets',
  'allowed_counterparties',
] as const;
const CRYPTO_LISTS: readonly string[] = ['allowed_chains', 'allowed_assets', 'allowed_counterparties'];

/** Every field a PATCH may carry, in the order changes are reported. */
export const AMENDABLE_FIELDS: readonly (keyof PatchBody)[] = [
  'valid_until',
  ...MONEY,
  ...INTEGERS,
  'budget_alert_share',
  ...LISTS,
  ...TERMS_FIELDS,
];

/** The amount fields of a PATCH body, for exactAmounts (JSON numbers read from their source text). */
export const PATCH_AMOUNT_PATHS: readonly string[][] = [...MONEY.map((f) => [f]), ['min_amount_per_transaction']];

const sorted = (values: readonly string[] | null | undefined): string[] | null =>
  values === null || values === undefined ? null : [...values].sort();
const units = (text: string | null | undefined): Units | null => fromDb(text ?? null);
const money = (text: string | null | undefined): string | null => {
  const u = units(text);
  return u === null ? null : formatAmount(u);
};

/**
 * mandate_hash terms of a stored mandate, in the shape POST /api/v1/mandates builds them (the
 * crypto block also names an onboarding mandate's max_transfer, so it is part of the terms).
 */
export function termsOf(row: RuntimeMandateRow): Record<string, unknown> {
  const extra: ExtraLimits = {
    weekly: units(row.max_weekly_amount),
    yearly: units(row.max_yearly_amount),
    total: units(row.max_total_amount),
    dailyCount: row.max_daily_count ?? null,
    monthlyCount: row.max_monthly_count ?? null,
    holdExpirySeconds: row.hold_expiry_seconds ?? null,
    alertShare: units(row.budget_alert_share),
  };
  const maxTransfer = row.crypto?.max_transfer;
  return {
    agent_id: row.agent_id,
    principal_id: row.principal_id,
    rails: [...row.rails].sort(),
    limits: {
      currency: row.currency,
      max_amount_per_transaction: money(row.max_amount_per_transaction),
      max_daily_amount: money(row.max_daily_amount),
      max_monthly_amount: money(row.max_monthly_amount),
      ...extraTerms(extra),
    },
    allowed_mccs: sorted(row.allowed_mccs),
    blocked_mccs: sorted(row.blocked_mccs),
    allowed_countries: sorted(row.allowed_countries),
    blocked_countries: sorted(row.blocked_countries),
    crypto: row.rails.includes('crypto')
      ? {
          chains: sorted(row.allowed_chains),
          assets: sorted(row.allowed_assets),
          counterparties: sorted(row.allowed_counterparties),
          max_transfer: typeof maxTransfer === 'string' ? money(maxTransfer) : undefined,
        }
      : null,
    valid_from: row.valid_from.toISOString(),
    valid_until: row.valid_until.toISOString(),
    terms: row.terms ?? undefined,
  };
}

function problem(problems: ErrorDetail[], field: string, message: string, code?: ErrorDetail['code']): void {
  problems.push(code === undefined ? { field, message } : { field, code, message });
}

/** The amended row: `row` with the body's fields applied and checked as at creation. */
export function amended(row: RuntimeMandateRow, body: PatchBody, nowMs: number): RuntimeMandateRow {
  const problems: ErrorDetail[] = [];
  const next: RuntimeMandateRow = { ...row };
  const set = next as unknown as Record<string, unknown>;
  if (body.valid_until !== undefined) {
    const until = new Date(body.valid_until);
    if (!(until.getTime() > nowMs)) problem(problems, 'valid_until', 'must be in the future');
    else if (!(until.getTime() > row.valid_from.getTime())) {
      problem(problems, 'valid_until', 'must be after valid_from');
    } else next.valid_until = until;
  }
  for (const field of MONEY) {
    const v = body[field];
    if (v === undefined) continue;
    if (v === null) {
      if (field === 'max_amount_per_transaction') {
        problem(problems, field, 'is required and cannot be removed', 'required');
      } else set[field] = null;
    } else {
      const u = limit(v, field, row.currency, problems);
      set[field] = u === null ? null : toDb(u);
    }
  }
  for (const field of INTEGERS) {
    const v = body[field];
    if (v !== undefined) set[field] = v;
  }
  if (body.budget_alert_share !== undefined) {
    const share = body.budget_alert_share;
    if (share === null) next.budget_alert_share = null;
    else {
      const x = readExtraLimits({ budget_alert_share: share }, row.currency, (f, m) => problem(problems, f, m));
      next.budget_alert_share = x.alertShare === null ? null : toDb(x.alertShare);
    }
  }
  const crypto = row.rails.includes('crypto');
  for (const field of LISTS) {
    const v = body[field];
    if (v === undefined) continue;
    if (v !== null && !crypto && CRYPTO_LISTS.includes(field)) {
      problem(
        problems,
        field,
        'the mandate does not cover the crypto rail; grant a new mandate to allow crypto',
        'not_allowed',
      );
      continue;
    }
    if (v === null) set[field] = null;
    else if (field === 'allowed_countries' || field === 'blocked_countries') set[field] = countries(v, field, problems);
    else set[field] = [...new Set(v)];
  }
  if (TERMS_FIELDS.some((f) => body[f] !== undefined) || body.max_amount_per_transaction !== undefined) {
    next.terms = amendTerms(
      row.terms,
      body as Partial<Record<TermsField, unknown>>,
      row.currency,
      units(next.max_amount_per_transaction),
      nowMs,
      (f, m) => problem(problems, f, m),
    );
  }
  if (problems.length > 0) throw new ApiError('validation_error', undefined, { details: problems });
  if (crypto && CRYPTO_LISTS.some((f) => body[f as keyof PatchBody] !== undefined)) {
    // The decision engine falls back to the crypto block's lists: it must say the same.
    next.crypto = {
      ...(row.crypto ?? {}),
      chains: next.allowed_chains ?? [],
      assets: next.allowed_assets ?? [],
      counterparties: next.allowed_counterparties ?? [],
    };
  }
  return next;
}

/** A field's value for the event's changes: amounts as canonical decimal strings (docs/events.md). */
function shown(row: RuntimeMandateRow, field: keyof PatchBody): unknown {
  const v = (row as unknown as Record<string, unknown>)[field];
  if (field === 'valid_until') return row.valid_until.toISOString();
  if (field === 'min_amount_per_transaction') {
    const u = units(row.terms?.min_amount_per_transaction);
    return u === null ? null : formatAmount(u, 0);
  }
  if ((TERMS_FIELDS as readonly string[]).includes(field)) return termsView(row.terms)[field];
  if ((MONEY as readonly string[]).includes(field)) {
    const u = units(v as string | null);
    return u === null ? null : formatAmount(u, 0);
  }
  if (field === 'budget_alert_share') {
    const u = units(v as string | null);
    return u === null ? null : toJsonNumber(u);
  }
  // Lists are sets: an order change alone is no change (and leaves mandate_hash as it is).
  if (Array.isArray(v)) return sorted(v as string[]);
  return v ?? null;
}

/** A cap (null: none): the next one is at most the current one, and not removed. */
function capTightened(from: Units | null, to: Units | null): boolean {
  return from === null || (to !== null && to <= from);
}

/** An allowed-list (null: anything allowed): the next one is a subset, and not removed. */
function allowedTightened(
  from: readonly string[] | null | undefined,
  to: readonly string[] | null | undefined,
): boolean {
  if (from === null || from === undefined) return true;
  if (to === null || to === undefined) return false;
  const had = new Set(from);
  return to.every((x) => had.has(x));
}

/** A blocked-list (null: nothing blocked): the next one keeps every entry. */
function blockedTightened(
  from: readonly string[] | null | undefined,
  to: readonly string[] | null | undefined,
): boolean {
  const now = new Set(to ?? []);
  return (from ?? []).every((x) => now.has(x));
}

const msOf = (iso: string | undefined): number | null => (iso === undefined ? null : Date.parse(iso));

/**
 * The fields of a PATCH that would loosen an AP2-backed mandate beyond what the issuer signed
 * (docs/ap2.md): each cap lower or equal and not removed, each allowed-list a subset, each
 * blocked-list a superset, valid_until earlier, the minimum higher, the execution window inside
 * the signed one, the merchant lock kept, recurrence with its frequency and at most its
 * occurrences. Alerts and hold expiry restrict no spending and may change.
 */
export function loosenings(row: RuntimeMandateRow, next: RuntimeMandateRow, body: PatchBody): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const bad = (field: string, message: string) => out.push({ field, code: 'not_allowed', message });
  const r = row as unknown as Record<string, unknown>;
  const n = next as unknown as Record<string, unknown>;
  if (body.valid_until !== undefined && next.valid_until.getTime() > row.valid_until.getTime()) {
    bad('valid_until', 'may only move earlier');
  }
  for (const field of MONEY) {
    if (body[field] === undefined) continue;
    if (!capTightened(units(r[field] as string | null), units(n[field] as string | null))) {
      bad(field, 'may only be lowered (not raised or removed)');
    }
  }
  for (const field of ['max_daily_count', 'max_monthly_count'] as const) {
    if (body[field] === undefined) continue;
    const from = row[field] ?? null;
    const to = next[field] ?? null;
    if (!(from === null || (to !== null && to <= from))) bad(field, 'may only be lowered (not raised or removed)');
  }
  for (const field of LISTS) {
    if (body[field] === undefined) continue;
    const from = r[field] as string[] | null;
    const to = n[field] as string[] | null;
    const ok = field.startsWith('blocked_') ? blockedTightened(from, to) : allowedTightened(from, to);
    if (!ok)
      bad(
        field,
        field.startsWith('blocked_') ? 'may only gain entries' : 'may only lose entries (not gain or be removed)',
      );
  }
  const ft = row.terms ?? {};
  const tt = next.terms ?? {};
  if (body.min_amount_per_transaction !== undefined) {
    const from = units(ft.min_amount_per_transaction) ?? 0n;
    const to = units(tt.min_amount_per_transaction) ?? 0n;
    if (to < from) bad('min_amount_per_transaction', 'may only be raised');
  }
  if (body.allowed_payees !== undefined && !allowedTightened(ft.allowed_payees, tt.allowed_payees)) {
    bad('allowed_payees', 'may only lose payees (not gain or be removed)');
  }
  if (body.merchant_lock !== undefined && ft.merchant_lock === true && tt.merchant_lock !== true) {
    bad('merchant_lock', 'may not be removed');
  }
  if (body.execution_window !== undefined) {
    const f = ft.execution_window;
    const t = tt.execution_window;
    const fb = msOf(f?.not_before);
    const fa = msOf(f?.not_after);
    const tb = msOf(t?.not_before);
    const ta = msOf(t?.not_after);
    const inside =
      (fb === null || (tb !== null && tb >= fb)) &&
      (fa === null || (ta !== null && ta <= fa)) &&
      allowedTightened(f?.days_of_week, t?.days_of_week);
    if (!inside) bad('execution_window', 'may only narrow (not widen or be removed)');
  }
  if (body.recurrence !== undefined && ft.recurrence !== undefined) {
    const f = ft.recurrence;
    const t = tt.recurrence;
    const ok =
      t !== undefined &&
      t.frequency === f.frequency &&
      (f.max_occurrences === undefined || (t.max_occurrences !== undefined && t.max_occurrences <= f.max_occurrences));
    if (!ok) bad('recurrence', 'may only lower max_occurrences (same frequency, not removed)');
  }
  return out;
}

/** The mandate's row, locked, if it is the caller's (through its agent); else 404. */
async function lockOwned(
  tx: Tx,
  principalId: string,
  mandateId: string,
): Promise<RuntimeMandateRow & { client_id: string }> {
  const [row] = await tx<(RuntimeMandateRow & { client_id: string })[]>`
    select ${COLUMNS(tx)}, a.client_id from mandates m join agents a on a.id = m.agent_id
    where m.id = ${mandateId} and a.principal_id = ${principalId}
    for update of m`;
  if (row === undefined) throw new ApiError('mandate_not_found');
  return row;
}

function notActive(row: RuntimeMandateRow, action: string): ApiError {
  return new ApiError('mandate_not_active', `The mandate is ${row.status}: it can no longer be ${action}.`);
}

function eventTuple(
  row: RuntimeMandateRow & { client_id: string },
  type: string,
  data: Record<string, unknown>,
): OutboxTuple {
  return outboxEvent({ clientId: row.client_id, principalId: row.principal_id }, type, data);
}

export interface Outcome {
  readonly agentId: string;
  /** False when the PATCH changed nothing (no event, no reload needed). */
  readonly changed: boolean;
}

/** Amends an ACTIVE mandate of the caller; 422 mandate_not_active when REVOKED or EXPIRED. */
export async function amendMandate(
  tx: Tx,
  ctx: RequestContext,
  principalId: string,
  mandateId: string,
  body: PatchBody,
): Promise<Outcome> {
  const row = await lockOwned(tx, principalId, mandateId);
  if (row.status !== 'ACTIVE') throw notActive(row, 'amended');
  const next = amended(row, body, Date.now());
  // An imported AP2 open Payment Mandate is the issuer's signed grant: it may only be tightened.
  const [ap2] = await tx`select 1 from ap2_mandates where mandate_id = ${mandateId}`;
  if (ap2 !== undefined) {
    const loose = loosenings(row, next, body);
    if (loose.length > 0) {
      throw new ApiError(
        'validation_error',
        'This mandate is an imported AP2 Payment Mandate: a change may only tighten what the issuer signed.',
        { details: loose },
      );
    }
  }
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of AMENDABLE_FIELDS) {
    if (body[field] === undefined) continue;
    const from = shown(row, field);
    const to = shown(next, field);
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
  }
  if (Object.keys(changes).length === 0) return { agentId: row.agent_id, changed: false };
  const hash = runtimeMandateHash(termsOf(next));
  const [done] = await tx<{ updated_at: Date }[]>`
    update mandates set valid_until = ${next.valid_until},
      max_amount_per_transaction = ${next.max_amount_per_transaction}, max_daily_amount = ${next.max_daily_amount},
      max_monthly_amount = ${next.max_monthly_amount}, max_weekly_amount = ${next.max_weekly_amount ?? null},
      max_yearly_amount = ${next.max_yearly_amount ?? null}, max_total_amount = ${next.max_total_amount ?? null},
      max_daily_count = ${next.max_daily_count ?? null}, max_monthly_count = ${next.max_monthly_count ?? null},
      hold_expiry_seconds = ${next.hold_expiry_seconds ?? null}, budget_alert_share = ${next.budget_alert_share ?? null},
      allowed_mccs = ${next.allowed_mccs}, blocked_mccs = ${next.blocked_mccs},
      allowed_countries = ${next.allowed_countries}, blocked_countries = ${next.blocked_countries},
      allowed_chains = ${next.allowed_chains}, allowed_assets = ${next.allowed_assets},
      allowed_counterparties = ${next.allowed_counterparties},
      crypto = ${next.crypto === null ? null : tx.json(next.crypto as never)},
      terms = ${next.terms === null ? null : tx.json(next.terms as never)},
      mandate_hash = ${hash}, updated_at = now()
    where id = ${mandateId} and status = 'ACTIVE'
    returning updated_at`;
  if (done === undefined) throw notActive(row, 'amended');
  await recordSecurityEvent(tx, ctx, {
    action: 'mandate.updated',
    targetType: 'mandate',
    targetId: mandateId,
    changes: { ...changes, mandate_hash: { from: row.mandate_hash, to: hash } },
  });
  await writeOutbox(tx, [
    eventTuple(row, 'mandate.updated', {
      mandate_id: mandateId,
      agent_id: row.agent_id,
      changes,
      mandate_hash: hash,
      previous_mandate_hash: row.mandate_hash,
      updated_at: done.updated_at.toISOString(),
    }),
  ]);
  return { agentId: row.agent_id, changed: true };
}

/** Revokes an ACTIVE (or expired) mandate of the caller; a REVOKED one is 422 mandate_not_active. */
export async function revokeMandate(
  tx: Tx,
  ctx: RequestContext,
  principalId: string,
  mandateId: string,
  reason: string,
): Promise<Outcome> {
  const row = await lockOwned(tx, principalId, mandateId);
  const [done] = await tx<{ revoked_at: Date }[]>`
    update mandates set status = 'REVOKED', revoked_at = now(), revocation_reason = ${reason}, updated_at = now()
    where id = ${mandateId} and status = 'ACTIVE'
    returning revoked_at`;
  if (done === undefined) throw notActive(row, 'revoked');
  await recordSecurityEvent(tx, ctx, {
    action: 'mandate.revoked',
    targetType: 'mandate',
    targetId: mandateId,
    changes: { from: row.status, to: 'REVOKED', reason },
  });
  await writeOutbox(tx, [
    eventTuple(row, 'mandate.revoked', {
      mandate_id: mandateId,
      agent_id: row.agent_id,
      reason,
      previous_status: row.status,
      mandate_hash: row.mandate_hash,
      revoked_at: done.revoked_at.toISOString(),
    }),
  ]);
  return { agentId: row.agent_id, changed: true };
}
