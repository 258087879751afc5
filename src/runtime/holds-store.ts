// SQL of holds (docs/holds.md): capture, release, refund and expiry of an authorization. Every
// state change is ONE conditional UPDATE on the holds row (`status = 'HELD'`, the amounts still
// in range), so a capture racing a release or the expiry sweep has exactly one winner, whatever
// instance each runs on. In the same transaction the change writes what it gives back to the
// budget (budget_credits, keyed by the original authorization's time) and its event (one
// outbox_batches row, relayed to NATS and webhooks like a decision's), and gives the amount back
// to the Principal's budget pool (docs/principal-budget.md). The credit bumps the agent's
// credit_seq (migrations/0310) and is returned, and the caller tells the agent's actor
// (DecisionEngine.creditAgent), which counts it in memory: a change only ever gives budget back,
// so an actor that has not heard of it yet errs on the strict side, never over a cap.
import type postgres from 'postgres';
import { creditBudget as credit } from '../audit/budget-credit.js';
import type { BudgetCredit } from '../decision/model/contract.js';
import { randomToken } from '../domain/ids.js';
import { formatAmount, fromDb, toDb, toJsonNumber, type Units } from '../domain/money.js';
import { ApiError } from '../errors/registry.js';
import { type OutboxTuple, outboxEvent, writeOutbox } from '../events/outbox.js';
import type { Sql } from '../storage/db.js';
import type { AgentRow } from '../storage/rows/agents.js';
import type { AuthorizationRow } from '../storage/rows/authorizations.js';
import type { HoldRow } from '../storage/rows/holds.js';

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
type Db = postgres.ISql<{}>;

/** A hold as HOLD_COLUMNS reads it, with its agent's Client (the events' owner). */
type HeldRow = Omit<HoldRow, 'settled_at' | 'updated_at'> & Pick<AgentRow, 'client_id'>;

const HOLD_COLUMNS = (db: Db) => db`h.authorization_id, h.principal_id, h.agent_id, h.mandate_id, h.currency,
  h.capture_method, h.amount::text as amount, h.captured_amount::text as captured_amount,
  h.released_amount::text as released_amount, h.refunded_amount::text as refunded_amount, h.status,
  h.authorized_at, h.expires_at`;

const u = (text: string): Units => fromDb(text) ?? 0n;
const num = (units: Units): number => toJsonNumber(units);

/** An event about hold `h` (src/events/outbox.ts). */
function tuple(h: HeldRow, eventType: string, data: Record<string, unknown>): OutboxTuple {
  return outboxEvent(
    { clientId: h.client_id, principalId: h.principal_id, authorizationId: h.authorization_id },
    eventType,
    data,
  );
}

/** What a hold operation changed for its agent's actor: its agent and the credit, if any. */
export type Credited = {
  agentId: string;
  credit: BudgetCredit | null;
};

function baseData(h: HeldRow): Record<string, unknown> {
  return {
    authorization_id: h.authorization_id,
    agent_id: h.agent_id,
    mandate_id: h.mandate_id,
    currency: h.currency,
    amount: formatAmount(u(h.amount), 0),
  };
}

/** Why a hold operation found nothing to change: not the caller's (404), not a hold, or no longer HELD. */
async function refusal(db: Db, principalId: string, id: string): Promise<ApiError> {
  const [a] = await db<
    (Pick<AuthorizationRow, 'decision' | 'capture_method'> & { status: HoldRow['status'] | null; due: boolean })[]
  >`
    select a.decision, a.capture_method, h.status, (h.expires_at <= now()) as due
    from authorizations a left join holds h on h.authorization_id = a.id
    where a.id = ${id} and a.principal_id = ${principalId}`;
  if (a === undefined) return new ApiError('authorization_not_found');
  if (a.decision !== 'APPROVE' || a.capture_method !== 'manual' || a.status === null) {
    return new ApiError('authorization_not_held');
  }
  if (a.status === 'HELD' && a.due) return new ApiError('hold_expired');
  return new ApiError(
    'hold_not_active',
    `The hold is ${a.status}: only a HELD authorization can be captured or released.`,
  );
}

async function heldRow(db: Db, principalId: string, id: string): Promise<HeldRow> {
  const [h] = await db<HeldRow[]>`
    select ${HOLD_COLUMNS(db)}, ag.client_id from holds h join agents ag on ag.id = h.agent_id
    where h.authorization_id = ${id} and h.principal_id = ${principalId}`;
  if (h === undefined) throw await refusal(db, principalId, id);
  return h;
}

export type CaptureResult = {
  authorization_id: string;
  status: 'CAPTURED';
  captured_amount: number;
  released_amount: number;
} & Credited;

/** Captures `amount` (default: all) of a HELD, unexpired hold and releases the rest. */
export async function captureHold(
  db: Db,
  principalId: string,
  id: string,
  amount: Units | null,
): Promise<CaptureResult> {
  const h = await heldRow(db, principalId, id);
  const held = u(h.amount);
  const take = amount ?? held;
  if (take > held) throw new ApiError('amount_exceeds_hold', `The hold is ${formatAmount(held, 0)} ${h.currency}.`);
  const rest = held - take;
  const rows = await db<Pick<HoldRow, 'authorization_id'>[]>`
    update holds set status = 'CAPTURED', captured_amount = ${toDb(take)}, released_amount = ${toDb(rest)},
      settled_at = now(), updated_at = now()
    where authorization_id = ${id} and principal_id = ${principalId} and status = 'HELD' and expires_at > now()
    returning authorization_id`;
  if (rows.length === 0) throw await refusal(db, principalId, id);
  const given = await credit(db, h, 'capture_remainder', rest, 0);
  await writeOutbox(db, [
    tuple(h, 'authorization.captured', {
      ...baseData(h),
      status: 'CAPTURED',
      captured_amount: formatAmount(take, 0),
      released_amount: formatAmount(rest, 0),
    }),
  ]);
  return {
    authorization_id: id,
    status: 'CAPTURED',
    captured_amount: num(take),
    released_amount: num(rest),
    agentId: h.agent_id,
    credit: given,
  };
}

/** Gives a HELD hold back to the budget whole (amount and count). */
export async function releaseHold(
  db: Db,
  principalId: string,
  id: string,
): Promise<{ authorization_id: string; status: 'RELEASED'; released_amount: number } & Credited> {
  const h = await heldRow(db, principalId, id);
  const rows = await db<Pick<HoldRow, 'authorization_id'>[]>`
    update holds set status = 'RELEASED', released_amount = amount, settled_at = now(), updated_at = now()
    where authorization_id = ${id} and principal_id = ${principalId} and status = 'HELD' and expires_at > now()
    returning authorization_id`;
  if (rows.length === 0) throw await refusal(db, principalId, id);
  const held = u(h.amount);
  const given = await credit(db, h, 'release', held, 1);
  await writeOutbox(db, [
    tuple(h, 'authorization.released', { ...baseData(h), status: 'RELEASED', released_amount: formatAmount(held, 0) }),
  ]);
  return {
    authorization_id: id,
    status: 'RELEASED',
    released_amount: num(held),
    agentId: h.agent_id,
    credit: given,
  };
}

export type RefundResult = {
  authorization_id: string;
  refund_id: string;
  status: 'CAPTURED';
  refund_amount: number;
  refunded_amount: number;
  captured_amount: number;
} & Credited;

/**
 * Refunds `amount` (default: all not yet refunded) of a captured APPROVE: a captured hold, or an
 * automatic APPROVE (its holds row is opened on its first refund). Recorded as a budget credit
 * of kind refund: it gives the amount back to the windows the original authorization counted in.
 */
export async function refundAuthorization(
  db: Db,
  principalId: string,
  id: string,
  amount: Units | null,
): Promise<RefundResult> {
  await db`
    insert into holds (authorization_id, principal_id, agent_id, mandate_id, currency, capture_method, amount,
      captured_amount, status, authorized_at, settled_at)
    select id, principal_id, agent_id, mandate_id, currency, 'automatic', amount, amount, 'CAPTURED', created_at, created_at
    from authorizations
    where id = ${id} and principal_id = ${principalId} and decision = 'APPROVE'
      and coalesce(capture_method, 'automatic') = 'automatic'
    on conflict (authorization_id) do nothing`;
  const [h] = await db<HeldRow[]>`
    select ${HOLD_COLUMNS(db)}, ag.client_id from holds h join agents ag on ag.id = h.agent_id
    where h.authorization_id = ${id} and h.principal_id = ${principalId}`;
  if (h === undefined) {
    const [a] = await db`select 1 from authorizations where id = ${id} and principal_id = ${principalId}`;
    throw new ApiError(a === undefined ? 'authorization_not_found' : 'authorization_not_refundable');
  }
  if (h.status !== 'CAPTURED') {
    throw new ApiError(
      'authorization_not_refundable',
      `The authorization is ${h.status}: only a captured one can be refunded.`,
    );
  }
  const left = u(h.captured_amount) - u(h.refunded_amount);
  const give = amount ?? left;
  if (give > left || give <= 0n) {
    throw new ApiError('amount_exceeds_captured', `${formatAmount(left, 0)} ${h.currency} is left to refund.`);
  }
  const rows = await db<Pick<HoldRow, 'refunded_amount' | 'captured_amount'>[]>`
    update holds set refunded_amount = refunded_amount + ${toDb(give)}, updated_at = now()
    where authorization_id = ${id} and status = 'CAPTURED' and refunded_amount + ${toDb(give)} <= captured_amount
    returning refunded_amount::text as refunded_amount, captured_amount::text as captured_amount`;
  const r = rows[0];
  if (r === undefined) throw new ApiError('amount_exceeds_captured');
  const refundId = `rfd_${randomToken()}`;
  const given = await credit(db, h, 'refund', give, 0, refundId);
  await writeOutbox(db, [
    tuple(h, 'authorization.refunded', {
      ...baseData(h),
      refund_id: refundId,
      refund_amount: formatAmount(give, 0),
      refunded_amount: formatAmount(u(r.refunded_amount), 0),
      captured_amount: formatAmount(u(r.captured_amount), 0),
    }),
  ]);
  return {
    authorization_id: id,
    refund_id: refundId,
    status: 'CAPTURED',
    refund_amount: num(give),
    refunded_amount: num(u(r.refunded_amount)),
    captured_amount: num(u(r.captured_amount)),
    agentId: h.agent_id,
    credit: given,
  };
}

/**
 * Expires up to `limit` due holds (status HELD, expires_at passed), claimed with FOR UPDATE SKIP
 * LOCKED and changed by the same conditional UPDATE as a release, in one transaction with their
 * credits and events: each due hold is expired exactly once, by whichever instance claims it,
 * and never after a capture or release won. Returns the credits, each with its agent.
 */
export async function expireDueHolds(sql: Sql, limit: number): Promise<Credited[]> {
  return (await sql.begin(async (tx) => {
    const rows = await tx<HeldRow[]>`
      with due as (
        select authorization_id from holds where status = 'HELD' and expires_at <= now()
        order by expires_at limit ${limit} for update skip locked
      ), done as (
        update holds h set status = 'EXPIRED', released_amount = h.amount, settled_at = now(), updated_at = now()
        from due where h.authorization_id = due.authorization_id and h.status = 'HELD'
        returning h.*
      )
      select ${HOLD_COLUMNS(tx)}, ag.client_id from done h join agents ag on ag.id = h.agent_id`;
    const events: OutboxTuple[] = [];
    const credited: Credited[] = [];
    for (const h of rows) {
      credited.push({ agentId: h.agent_id, credit: await credit(tx, h, 'expiry', u(h.amount), 1) });
      events.push(
        tuple(h, 'authorization.expired', {
          ...baseData(h),
          status: 'EXPIRED',
          released_amount: formatAmount(u(h.amount), 0),
          expired_at: h.expires_at === null ? null : h.expires_at.toISOString(),
        }),
      );
    }
    await writeOutbox(tx, events);
    return credited;
  })) as Credited[];
}
