// Bounds the idempotency stores by time and by size per owner, in the background:
// - POST /authorize (per Principal): the replayable answer of an authorization that carries an
//   idempotency_key (a row of authorization_responses, migrations/0300) is deleted after the
//   retention, and beyond the newest `maxStoredPerOwner` of the Principal. The audit row and its
//   key stay, so a repeat of such a key is refused (422 idempotency_key_expired), never decided a
//   second time. An answer an earlier release kept on the audit row is cleared after the retention.
// - Onboarding Idempotency-Key (per Client): rows past the retention are deleted (SPEC: the key
//   may then be reused); beyond the newest `maxStoredPerOwner` stored answers of a Client the
//   older answers are dropped and their keys, still reserved until the retention ends, answer
//   422 idempotency_key_expired.
// Between two sweeps a store can exceed its cap by what the owner sends in one interval (which
// the rate limits bound). The /authorize rules read each Principal's stored answers through its
// (principal_id, created_at) index, and the cap only for Principals that stored an answer since
// the last sweep: a sweep costs what it drops plus a probe per Principal and up to the cap's
// count of index entries per active one, never a pass over every stored answer. Each database
// is swept by one instance at a time: the sweep claims it with a session advisory lock and skips
// it when another instance holds it.
import type { Logger } from 'pino';
import type { Databases, Sql } from './db.js';
import { PeriodicJob } from './periodic-job.js';

/** How long an idempotency key replays its answer (SPEC.md: "roughly 24 hours"). */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;
const LOCK_KEY = 727_274_110;
/**
 * Rows touched per statement; a sweep runs at most MAX_BATCHES of them per store and rule, with
 * BATCH_PAUSE_MS between two, so the group commits find room between the statements.
 */
const BATCH = 500;
const MAX_BATCHES = 200;
const BATCH_PAUSE_MS = 20;

export interface IdempotencySweepOptions {
  /** Stored answers kept per owner (Principal for /authorize, Client for onboarding). */
  readonly maxStoredPerOwner: number;
  /** Milliseconds between sweeps. */
  readonly intervalMs: number;
  readonly retentionSeconds?: number;
}

export class IdempotencySweep {
  readonly #log: Logger;
  readonly #options: IdempotencySweepOptions;
  readonly #job: PeriodicJob;
  /** Per database, its time at the start of this instance's last sweep of it. */
  readonly #checkedUpTo = new Map<Sql, Date>();

  constructor(dbs: Pick<Databases, 'forEnv' | 'isOpen'>, log: Logger, options: IdempotencySweepOptions) {
    this.#log = log;
    this.#options = options;
    this.#job = PeriodicJob.perDatabase({
      dbs,
      intervalMs: options.intervalMs,
      log,
      failed: 'idempotency sweep failed; retried at the next interval',
      round: (sql) => this.#sweep(sql),
    });
    this.#job.start();
  }

  /** One sweep of every open database (a sweep already running is joined, not doubled). */
  run(): Promise<void> {
    return this.#job.run();
  }

  close(): Promise<void> {
    return this.#job.close();
  }

  async #sweep(sql: Sql): Promise<void> {
    const conn = await sql.reserve();
    try {
      const [claim] = await conn<{ ok: boolean }[]>`select pg_try_advisory_lock(${LOCK_KEY}) as ok`;
      if (claim?.ok !== true) return;
      try {
        const secs = this.#options.retentionSeconds ?? IDEMPOTENCY_RETENTION_SECONDS;
        const cap = this.#options.maxStoredPerOwner;
        const counts = { expired: 0, capped: 0, keysDeleted: 0, keysCapped: 0 };
        // POST /authorize, by Principal: each statement reads the Principals' stored answers
        // through their (principal_id, created_at) index, never the whole table, so a sweep
        // costs what it removes plus a probe per Principal, however many answers are kept.
        const [clock] = await conn<{ at: Date }[]>`select now() as at`;
        const at = clock?.at ?? new Date();
        // Principals that stored an answer since the last sweep this instance ran, less one
        // interval (a decision is stamped when it was received and committed a little later; an
        // instance's clock may run a little ahead), or within the last two intervals the first
        // time: only they can have gone past the cap since.
        const last = this.#checkedUpTo.get(sql);
        const since = new Date((last ?? at).getTime() - (last === undefined ? 2 : 1) * this.#options.intervalMs);
        const principals = (
          await conn<{ id: string }[]>`
            with recursive p(id) as (
              (select principal_id from authorization_responses order by principal_id limit 1)
              union all
              select (select r.principal_id from authorization_responses r
                where r.principal_id > p.id order by r.principal_id limit 1)
              from p where p.id is not null)
            select id from p where id is not null`
        ).map((r) => r.id);
        if (principals.length > 0) {
          counts.expired = await repeat(
            () => conn`
              delete from authorization_responses
              where authorization_id in (select a.authorization_id
                from unnest(${principals}::text[]) as p(id)
                cross join lateral (select authorization_id from authorization_responses
                  where principal_id = p.id
                    and created_at < ${at}::timestamptz - make_interval(secs => ${secs})
                  order by created_at limit ${BATCH}) a
                limit ${BATCH})`,
          );
          // The time of each active Principal's (cap + 1)-th newest stored answer (read from the
          // index alone): answers before it are beyond the cap, and so are those at that time
          // past the cap's count, newest id first.
          const bounds = await conn<{ id: string; at: Date }[]>`
            with active as materialized (
              select p.id from unnest(${principals}::text[]) as p(id)
              where exists (select 1 from authorization_responses
                where principal_id = p.id and created_at > ${since}))
            select active.id, b.created_at as at from active
            cross join lateral (select created_at from authorization_responses
              where principal_id = active.id
              order by created_at desc offset ${cap} limit 1) b`;
          for (const b of bounds) {
            counts.capped += await repeat(
              () => conn`
                delete from authorization_responses
                where authorization_id in (select authorization_id from authorization_responses
                  where principal_id = ${b.id} and created_at < ${b.at}
                  limit ${BATCH})`,
            );
            const ties = await conn`
              delete from authorization_responses
              where authorization_id in (select authorization_id from authorization_responses
                where principal_id = ${b.id} and created_at = ${b.at}
                order by authorization_id desc
                offset greatest(0, ${cap}::int - (select count(*)::int from authorization_responses
                  where principal_id = ${b.id} and created_at > ${b.at})))`;
            counts.capped += ties.count;
          }
        }
        // Answers an instance of an earlier release kept on the audit row during a rolling deploy
        // (migrations/0300): dropped after the retention, through the partial index of such rows.
        counts.expired += await repeat(
          () => conn`
            update authorizations set response = null
            where id in (select id from authorizations
              where response is not null and created_at < ${at}::timestamptz - make_interval(secs => ${secs})
              limit ${BATCH})`,
        );
        this.#checkedUpTo.set(sql, at);
        counts.keysDeleted = await repeat(
          () => conn`
            delete from idempotency_keys
            where (client_id, key) in (select client_id, key from idempotency_keys
              where created_at < now() - make_interval(secs => ${secs}) limit ${BATCH})`,
        );
        counts.keysCapped = await repeat(
          () => conn`
            update idempotency_keys k set response_json = null, response_body = null
            from (select client_id, key from (
                select client_id, key, row_number() over (partition by client_id order by created_at desc, key) as rn
                from idempotency_keys where state = 'done' and response_json is not null) r
              where rn > ${cap} limit ${BATCH}) o
            where k.client_id = o.client_id and k.key = o.key`,
        );
        if (counts.expired + counts.capped + counts.keysDeleted + counts.keysCapped > 0) {
          this.#log.info(counts, 'idempotency store swept');
        }
      } finally {
        await conn`select pg_advisory_unlock(${LOCK_KEY})`;
      }
    } finally {
      conn.release();
    }
  }
}

/** Runs a batch statement until it touches fewer than BATCH rows (at most MAX_BATCHES times). */
async function repeat(statement: () => Promise<{ count: number }>): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, BATCH_PAUSE_MS));
    const { count } = await statement();
    total += count;
    if (count < BATCH) break;
  }
  return total;
}
