// Settling AP2 presentation claims left PENDING (docs/ap2.md "Presentation", step 3): a claim
// older than the answer deadline was left by a process killed between the claim and its
// settlement, by a settlement that failed, or by the safe DECLINE (its commit possibly in doubt).
// Past the deadline no decision of the claim's request can still be recorded (the commit guard,
// migrations/0263), so the authorizations table says how it ended: an APPROVE recorded under the
// claim's request (idempotency_key ap2:<request_id>) makes it CONSUMED with that authorization;
// none means nothing was paid and the claim is released.
//
// Two paths settle stale claims, with the same conditional statements: the next presentation of
// the same closed mandate (or its transaction_id), in ap2-routes.ts, and the background sweep
// here (Ap2ClaimSweep), which every instance runs on each database. The sweep claims the stale
// rows it settles with FOR UPDATE SKIP LOCKED in one transaction, so two instances sweeping at
// once split them and each claim is settled, and its event written, once; every change is
// conditional on the claim it read (status, claim time and request id), so a presentation that
// took a claim over in between is left alone.
import type { Logger } from 'pino';
import type postgres from 'postgres';
import { fromDb } from '../domain/money.js';
import { type EventOwner, outboxEvent, writeOutbox } from '../events/outbox.js';
import type { Databases, Sql } from '../storage/db.js';
import { PeriodicJob } from '../storage/periodic-job.js';
import { moneyText } from './ap2-statements.js';

export interface PresentationRow {
  closed_hash: string;
  mandate_id: string;
  open_hash: string;
  transaction_id: string;
  principal_id: string;
  agent_id: string;
  status: 'PENDING' | 'CONSUMED';
  authorization_id: string | null;
  amount: string;
  currency: string;
  payee_id: string;
  presented_at: Date;
  consumed_at: Date | null;
  request_id: string | null;
  claimed_at: Date;
}

/** A claim as read for settlement: claimed_stamp is claimed_at as text at full precision. */
export type StaleClaim = PresentationRow & { claimed_stamp: string };

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
type Db = postgres.ISql<{}>;

/** The idempotency_key under which a presentation's decision is recorded. */
export function claimKey(requestId: string): string {
  return `ap2:${requestId}`;
}

/**
 * The APPROVE recorded for a stale claim, if any: the one under its request's key. Claims taken
 * before migration 0283 carry no request id: an APPROVE of the same agent, mandate, payee and
 * amount recorded from the claim to its deadline counts as theirs (erring on consumed).
 */
export async function recordedApprove(
  db: Db,
  was: StaleClaim,
  deadlineSeconds: number,
): Promise<{ id: string; created_at: Date } | null> {
  const [approve] = await db<{ id: string; created_at: Date }[]>`
    select id, created_at from authorizations
    where principal_id = ${was.principal_id} and decision = 'APPROVE' and (
      (${was.request_id}::text is not null and idempotency_key = ${was.request_id === null ? null : claimKey(was.request_id)})
      or (${was.request_id}::text is null and agent_id = ${was.agent_id} and mandate_id = ${was.mandate_id}
        and merchant_id = ${was.payee_id} and amount = ${was.amount}::numeric
        and created_at >= ${was.claimed_stamp}::text::timestamptz
        and created_at <= ${was.claimed_stamp}::text::timestamptz + make_interval(secs => ${deadlineSeconds})))
      and not exists (select 1 from authorization_voids v where v.authorization_id = authorizations.id)
    order by created_at limit 1`;
  return approve ?? null;
}

/**
 * Makes a stale claim CONSUMED by `approve` with its ap2_mandate.consumed event (reconciled:
 * true), in `tx`, if it is still the claim that was read; null when it no longer is.
 */
export async function consumeStale(
  tx: Db,
  was: StaleClaim,
  approve: { id: string; created_at: Date },
  owner: EventOwner,
): Promise<PresentationRow | null> {
  const [done] = await tx<PresentationRow[]>`
    update ap2_presentations set status = 'CONSUMED', authorization_id = ${approve.id}, consumed_at = ${approve.created_at}
    where closed_hash = ${was.closed_hash} and status = 'PENDING' and claimed_at::text = ${was.claimed_stamp}
      and request_id is not distinct from ${was.request_id}
    returning *`;
  if (done === undefined) return null;
  await writeOutbox(tx, [
    outboxEvent(owner, 'ap2_mandate.consumed', {
      mandate_id: done.mandate_id,
      agent_id: done.agent_id,
      credential_hash: done.open_hash,
      closed_mandate_hash: done.closed_hash,
      transaction_id: done.transaction_id,
      authorization_id: approve.id,
      amount: moneyText(fromDb(done.amount) ?? 0n, done.currency),
      currency: done.currency,
      payee_id: done.payee_id,
      consumed_at: approve.created_at.toISOString(),
      reconciled: true,
    }),
  ]);
  return done;
}

/** Stale claims settled per transaction; a round repeats while a batch fills up (bounded). */
const BATCH = 100;
const MAX_BATCHES = 20;

/**
 * One transaction: claims up to `limit` PENDING presentation claims older than the answer
 * deadline (FOR UPDATE SKIP LOCKED: another instance's sweep takes others) and settles each:
 * CONSUMED with the APPROVE recorded for it, else released (deleted: nothing was paid, and the
 * closed mandate may be presented again). Returns how many of each.
 */
export async function sweepStaleClaims(
  sql: Sql,
  deadlineMs: number,
  limit: number,
): Promise<{ consumed: number; released: number; seen: number }> {
  const deadlineSeconds = deadlineMs / 1000;
  return sql.begin(async (tx) => {
    const rows = await tx<(StaleClaim & { client_id: string })[]>`
      select p.*, p.claimed_at::text as claimed_stamp, pr.client_id
      from ap2_presentations p join principals pr on pr.id = p.principal_id
      where p.status = 'PENDING' and p.claimed_at <= now() - make_interval(secs => ${deadlineSeconds})
      order by p.claimed_at limit ${limit}
      for update of p skip locked`;
    let consumed = 0;
    let released = 0;
    for (const was of rows) {
      const approve = await recordedApprove(tx, was, deadlineSeconds);
      if (approve !== null) {
        const owner = { clientId: was.client_id, principalId: was.principal_id };
        if ((await consumeStale(tx, was, approve, owner)) !== null) consumed++;
        continue;
      }
      const gone = await tx`
        delete from ap2_presentations
        where closed_hash = ${was.closed_hash} and status = 'PENDING' and claimed_at::text = ${was.claimed_stamp}
          and request_id is not distinct from ${was.request_id}
        returning closed_hash`;
      released += gone.length;
    }
    return { consumed, released, seen: rows.length };
  }) as Promise<{ consumed: number; released: number; seen: number }>;
}

/**
 * The background sweep of stale presentation claims: every AP2_CLAIM_SWEEP_MS (and once at
 * start), on each open database, until a batch comes back short. Without it a stale claim was
 * settled only when the same closed mandate was presented again, and its status by hash stayed
 * PENDING until then; now it is settled at most one sweep period after the answer deadline.
 */
export class Ap2ClaimSweep {
  readonly #job: PeriodicJob;

  constructor(dbs: Pick<Databases, 'forEnv' | 'isOpen'>, log: Logger, intervalMs: number, deadlineMs: number) {
    this.#job = PeriodicJob.perDatabase({
      dbs,
      intervalMs,
      log,
      failed: 'AP2 claim sweep failed; retried at the next interval',
      round: async (sql, env) => {
        let consumed = 0;
        let released = 0;
        for (let i = 0; i < MAX_BATCHES; i++) {
          const r = await sweepStaleClaims(sql, deadlineMs, BATCH);
          consumed += r.consumed;
          released += r.released;
          if (r.seen < BATCH) break;
        }
        if (consumed + released > 0) log.info({ env, consumed, released }, 'stale AP2 presentation claims settled');
      },
    });
    this.#job.start();
    // At start: claims left by instances that stopped while no one swept.
    void this.run();
  }

  /** One round over the open databases (a round already running is joined, not doubled). */
  run(): Promise<void> {
    return this.#job.run();
  }

  close(): Promise<void> {
    return this.#job.close();
  }
}
