// SQL and response shape of the runtime plane's mandates. Ownership runs through the mandate's
// agent: a mandate whose agent is not the caller's is answered as not found.
//
// Expiry is derived, not persisted: a mandate still stored ACTIVE whose valid_until has passed
// is reported (and filtered) as EXPIRED. REVOKED is stored (POST /api/v1/mandates/{id}/revoke). Reads stay free of writes, and the decision engine
// applies the same rule (mandate_expired) from valid_until, so both always agree.

import type postgres from 'postgres';
import { fromDb, toJsonNumber } from '../domain/money.js';
import { ApiError } from '../errors/registry.js';

/** A pool or a transaction. */
// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
type Sql = postgres.ISql<{}>;

import { iso } from '../domain/timestamp.js';
import type { MandateRow, MandateStatus } from '../storage/rows/mandates.js';
import { extraView } from './mandate-limits.js';
import { termsView } from './mandate-terms.js';

export type { MandateStatus };

/**
 * A mandate as COLUMNS selects it: every column but program_id, status as reported (a passed
 * valid_until reads EXPIRED). rails and crypto are terms of mandate_hash the view does not show
 * (src/runtime/mandate-amend.ts).
 */
export type RuntimeMandateRow = Omit<MandateRow, 'program_id'>;

function amount(value: string | null): number | null {
  const units = fromDb(value);
  return units === null ? null : toJsonNumber(units);
}

/** The runtime-plane mandate shape (SPEC.md "Mandate"): flat, amounts as JSON numbers. */
export function mandateView(row: RuntimeMandateRow): Record<string, unknown> {
  return {
    id: row.id,
    agent_id: row.agent_id,
    principal_id: row.principal_id,
    status: row.status,
    valid_from: iso(row.valid_from),
    valid_until: iso(row.valid_until),
    max_amount_per_transaction: amount(row.max_amount_per_transaction),
    currency: row.currency,
    max_daily_amount: amount(row.max_daily_amount),
    max_monthly_amount: amount(row.max_monthly_amount),
    allowed_mccs: row.allowed_mccs,
    blocked_mccs: row.blocked_mccs,
    allowed_countries: row.allowed_countries,
    blocked_countries: row.blocked_countries,
    allowed_chains: row.allowed_chains,
    allowed_assets: row.allowed_assets,
    allowed_counterparties: row.allowed_counterparties,
    ...extraView(row),
    ...termsView(row.terms),
    mandate_hash: row.mandate_hash,
    created_at: iso(row.created_at),
    updated_at: row.updated_at === null ? null : iso(row.updated_at),
    revoked_at: row.revoked_at === null ? null : iso(row.revoked_at),
    revocation_reason: row.revocation_reason,
  };
}

/** The database clock decides expiry, so a reported status and a status filter always agree. */
const STATUS = (db: Sql) =>
  db`(case when m.status = 'ACTIVE' and m.valid_until <= now() then 'EXPIRED' else m.status end)`;

export const COLUMNS = (
  db: Sql,
) => db`m.id, m.agent_id, m.principal_id, ${STATUS(db)} as status, m.valid_from, m.valid_until, m.currency,
  m.max_amount_per_transaction::text as max_amount_per_transaction,
  m.max_daily_amount::text as max_daily_amount, m.max_monthly_amount::text as max_monthly_amount,
  m.allowed_mccs, m.blocked_mccs, m.allowed_countries, m.blocked_countries, m.allowed_chains,
  m.allowed_assets, m.allowed_counterparties, m.mandate_hash, m.created_at,
  m.max_weekly_amount::text as max_weekly_amount, m.max_yearly_amount::text as max_yearly_amount,
  m.max_total_amount::text as max_total_amount, m.max_daily_count, m.max_monthly_count, m.hold_expiry_seconds,
  m.budget_alert_share::text as budget_alert_share, m.updated_at, m.revoked_at, m.revocation_reason, m.rails,
  m.crypto, m.terms`;

export async function loadOwnedMandate(db: Sql, principalId: string, mandateId: string): Promise<RuntimeMandateRow> {
  const rows = await db<RuntimeMandateRow[]>`
    select ${COLUMNS(db)} from mandates m join agents a on a.id = m.agent_id
    where m.id = ${mandateId} and a.principal_id = ${principalId}`;
  const row = rows[0];
  if (row === undefined) throw new ApiError('mandate_not_found');
  return row;
}

/** The agent's mandates, newest first, optionally by reported status (EXPIRED as derived above). */
export async function listAgentMandates(
  db: Sql,
  agentId: string,
  status: MandateStatus | null,
): Promise<RuntimeMandateRow[]> {
  const filter = status === null ? db`` : db`and ${STATUS(db)} = ${status}`;
  return db<RuntimeMandateRow[]>`
    select ${COLUMNS(db)} from mandates m where m.agent_id = ${agentId} ${filter}
    order by m.created_at desc, m.id desc`;
}

/**
 * The most unexpired ACTIVE mandates one agent may hold. Mandates leave ACTIVE through the API
 * only by a revoke (expiry is derived), and the agent's actor keeps them all in memory and scans them,
 * newest first, on every decision: without a bound, an integrator creating one mandate per
 * purchase would slow down and bloat that agent's decisions without end. Expired mandates do
 * not count, so an agent always regains room as its mandates expire.
 */
export const MAX_LIVE_MANDATES_PER_AGENT = 100;

/**
 * Inside the creating transaction, before the insert: 422 `mandate_limit_reached` when the
 * agent already holds MAX_LIVE_MANDATES_PER_AGENT unexpired ACTIVE mandates. A transaction-level
 * advisory lock on the agent serialises concurrent creations for one agent (so two racing
 * requests cannot both take the last place) without locking the agent's row, which the audit
 * group commit updates.
 */
// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
export async function assertMandateRoom(tx: postgres.TransactionSql<{}>, agentId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`mandates:${agentId}`}, 0))`;
  const rows = await tx<{ n: number }[]>`
    select count(*)::int as n from mandates
    where agent_id = ${agentId} and status = 'ACTIVE' and valid_until > now()`;
  if ((rows[0]?.n ?? 0) >= MAX_LIVE_MANDATES_PER_AGENT) throw new ApiError('mandate_limit_reached');
}
