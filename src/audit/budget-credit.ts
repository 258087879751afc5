// A budget credit (migrations/0160): what an authorization gives back to the windows it counted
// in and to its Principal's budget once it is undone in part or whole (the rest of a partial
// capture, a release, an expiry, a refund: src/runtime/holds-store.ts; a void: voids.ts). Written
// in the change's own transaction.
import type postgres from 'postgres';
import type { BudgetCredit } from '../decision/model/contract.js';
import { randomToken } from '../domain/ids.js';
import { toDb, type Units } from '../domain/money.js';

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
type Db = postgres.ISql<{}>;

/** The authorization a credit gives back for (a holds row has these columns). */
export interface CreditedAuthorization {
  readonly authorization_id: string;
  readonly principal_id: string;
  readonly agent_id: string;
  readonly mandate_id: string | null;
  readonly currency: string;
  /** The original authorization's time: the credit comes off the windows it counted in. */
  readonly authorized_at: Date;
}

export type CreditKind = 'capture_remainder' | 'release' | 'expiry' | 'refund' | 'void';

/**
 * Writes the credit of `amount` and `countBack` approvals for `h` with `db`, gives the amount
 * back to the Principal's budget, and bumps the agent's credit_seq (migrations/0310). Returns the
 * credit for the agent's actor (DecisionEngine.creditAgent), or null when there is nothing for it
 * (nothing given back, or an authorization under no mandate).
 */
export async function creditBudget(
  db: Db,
  h: CreditedAuthorization,
  kind: CreditKind,
  amount: Units,
  countBack: number,
  id: string = `crd_${randomToken()}`,
): Promise<BudgetCredit | null> {
  if (amount === 0n && countBack === 0) return null;
  await db`insert into budget_credits (id, authorization_id, principal_id, agent_id, mandate_id, kind, amount, count_back, authorized_at)
    values (${id}, ${h.authorization_id}, ${h.principal_id}, ${h.agent_id}, ${h.mandate_id}, ${kind}, ${toDb(amount)},
      ${countBack}, ${h.authorized_at})`;
  // The Principal's budget gets it back too, in the window the authorization counted in
  // (migrations/0220 asas_budget_credit; nothing when it did not count there).
  await db`select asas_budget_credit(${h.principal_id}, ${h.currency}, ${h.authorized_at}, ${toDb(amount)}::numeric)`;
  // An authorization under no mandate counted in no mandate's windows: nothing for the actor.
  const mandateId = h.mandate_id;
  if (mandateId === null) return null;
  // The agent's row lock orders its credits by commit: the number says which loads saw this one.
  const [agent] = await db<{ seq: string }[]>`
    update agents set credit_seq = credit_seq + 1 where id = ${h.agent_id} returning credit_seq::text as seq`;
  return {
    seq: Number(agent?.seq ?? 0),
    mandateId,
    authorizedAtMs: h.authorized_at.getTime(),
    amount: amount.toString(),
    countBack,
  };
}
