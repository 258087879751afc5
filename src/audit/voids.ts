// Voids (docs/engine-durability.md "Voids"): decisions a group commit recorded after the edge had
// answered them with the safe DECLINE (the COMMIT reached PostgreSQL before its commit_by, its
// answer came back too late). The agent was told system_unavailable, so what the row says it
// decided is undone, as a card network reverses an authorization whose answer timed out: one
// transaction writes a row in authorization_voids for each (migrations/0330), gives an APPROVE's
// amount and count back to its windows and its Principal's budget (a budget credit of kind
// void), VOIDs its hold (opened for an automatic APPROVE as a refund opens it), ends a STEP_UP's
// pending confirmation, and emits an authorization.voided event. A decision already voided is
// skipped, so the transaction can be retried whole. Decisions of keyed requests are not voided
// (the committer leaves them out): a retry with the same idempotency_key gets the decision
// recorded, which is what the key is for.
import type postgres from 'postgres';
import { formatAmount, fromDb } from '../domain/money.js';
import { type EventOwner, type OutboxTuple, outboxEvent, writeOutbox } from '../events/outbox.js';
import type { HoldRow } from '../storage/rows/holds.js';
import { creditBudget } from './budget-credit.js';

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
type Sql = postgres.Sql<{}>;

/** Why a decision was voided (authorization_voids.reason). */
export const ANSWERED_SAFE_DECLINE = 'answered_safe_decline';

/** A recorded decision whose answer was the safe DECLINE. */
export interface AnsweredOtherwise {
  readonly id: string;
  readonly clientId: string;
  readonly principalId: string;
  readonly agentId: string;
  readonly decision: string;
}

/**
 * Voids `rows` in one transaction; returns how many it voided. Rows not in the audit log (never
 * recorded), voided before, or APPROVEs someone acted on (captured, released, refunded, expired)
 * are skipped. Keep a transaction small (its budget credits lock the
 * agents' and Principals' rows) and its rows in (Principal, agent) order, as the committer does.
 */
export async function voidAnswered(sql: Sql, rows: readonly AnsweredOtherwise[]): Promise<number> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return (await sql.begin(async (tx) => {
    const fresh = await tx<
      {
        authorization_id: string;
        decision: string;
        mandate_id: string | null;
        currency: string;
        amount: string;
        step_up_id: string | null;
      }[]
    >`
      with v as (
        insert into authorization_voids (authorization_id, principal_id, agent_id, decision, reason)
        select a.id, a.principal_id, a.agent_id, a.decision, ${ANSWERED_SAFE_DECLINE}
        from authorizations a where a.id in ${tx(rows.map((r) => r.id))}
        on conflict (authorization_id) do nothing
        returning authorization_id
      )
      select a.id as authorization_id, a.decision, a.mandate_id, a.currency, a.amount::text as amount, a.step_up_id
      from authorizations a join v on v.authorization_id = a.id`;
    const events: OutboxTuple[] = [];
    let voided = 0;
    for (const f of fresh) {
      const r = byId.get(f.authorization_id) as AnsweredOtherwise;
      const owner: EventOwner = { clientId: r.clientId, principalId: r.principalId, authorizationId: r.id };
      let status: string | null = null;
      if (f.decision === 'APPROVE') {
        // An automatic APPROVE has no holds row until something undoes it (as a refund opens it).
        await tx`
          insert into holds (authorization_id, principal_id, agent_id, mandate_id, currency, capture_method, amount,
            captured_amount, status, authorized_at, settled_at)
          select id, principal_id, agent_id, mandate_id, currency, 'automatic', amount, amount, 'CAPTURED', created_at, created_at
          from authorizations where id = ${r.id} and coalesce(capture_method, 'automatic') = 'automatic'
          on conflict (authorization_id) do nothing`;
        // A hold still HELD, or an automatic APPROVE nothing was refunded of: anything else (a
        // hold captured, released or expired, a refund: someone learned the id from the event or
        // the log and acted on it) has given back what it gives back, and is left as it is.
        const [h] = await tx<
          (Pick<
            HoldRow,
            'authorization_id' | 'principal_id' | 'agent_id' | 'mandate_id' | 'currency' | 'authorized_at'
          > & { amount: string })[]
        >`
          update holds set status = 'VOIDED', released_amount = amount - refunded_amount, settled_at = now(), updated_at = now()
          where authorization_id = ${r.id} and (status = 'HELD'
            or (status = 'CAPTURED' and capture_method = 'automatic' and refunded_amount = 0))
          returning authorization_id, principal_id, agent_id, mandate_id, currency, authorized_at, amount::text as amount`;
        if (h === undefined) {
          // Someone acted on it: it stands, and is not voided.
          await tx`delete from authorization_voids where authorization_id = ${r.id}`;
          continue;
        }
        await creditBudget(tx, h, 'void', fromDb(h.amount) ?? 0n, 1);
        status = 'VOIDED';
      } else if (f.decision === 'STEP_UP' && f.step_up_id !== null) {
        // Under the 'principal' policy: the agent was answered the safe DECLINE, not this
        // step-up, so its confirmation ends now (nobody can confirm it, a reload does not hold it
        // open, the notifier sends no e-mail for it), unless another decision of the agent that
        // stands was answered with it (the decision that opened it, or the same request again:
        // follow-up.ts), each at or after the one that opened it.
        await tx`
          update step_ups s set expires_at = least(s.expires_at, now())
          from authorizations c
          where s.id = ${f.step_up_id} and s.status = 'PENDING' and c.id = s.authorization_id
            and not exists (
              select 1 from authorizations a
              where a.agent_id = c.agent_id and a.created_at >= c.created_at and a.step_up_id = s.id
                and a.id <> ${r.id}
                and not exists (select 1 from authorization_voids v where v.authorization_id = a.id))`;
      }
      voided++;
      events.push(
        outboxEvent(owner, 'authorization.voided', {
          authorization_id: r.id,
          agent_id: r.agentId,
          mandate_id: f.mandate_id,
          decision: f.decision,
          currency: f.currency,
          amount: formatAmount(fromDb(f.amount) ?? 0n, 0),
          status,
          reason: ANSWERED_SAFE_DECLINE,
        }),
      );
    }
    await writeOutbox(tx, events);
    return voided;
  })) as number;
}
