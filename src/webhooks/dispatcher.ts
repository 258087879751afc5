// The webhook dispatcher: consumes events from the bus, records one durable delivery row per
// matching webhook (before the event is acknowledged), and delivers them: a signed POST, retried
// after the delays of WEBHOOK_RETRY_SCHEDULE_MS (plus up to 10% jitter, never earlier), with the
// webhook's failure counters kept current and the webhook disabled after WEBHOOK_DISABLE_AFTER
// consecutive failures. Each webhook has its own lane with a small concurrency cap, so a slow or
// dead receiver only ever occupies its own lane: nothing waits behind it.
//
// Several instances on one database: every pending delivery is held by one instance at a time
// (webhook_deliveries.claimed_by until lease_until, migrations/0130_claims.sql). The instance
// that records a delivery holds it; an attempt first re-claims its row for this retry slot
// (attempts unchanged, held by this instance or by nobody live) in the statement that reads the
// webhook, and records its outcome only while still holding it. The holder keeps the claim
// through the retry wait (lease_until = next attempt + lease), so the next slot is attempted
// by it alone; a dead holder's rows are taken by any instance's sweep once the lease passed. A
// clean stop releases its claims. docs/background-claims.md.
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Environment } from '../domain/environment.js';
import type { IncomingEvent } from '../events/bus.js';
import { DECIDED_EVENT_TYPE, subscriptionMatches } from '../events/catalog.js';
import { parseSubject } from '../events/envelope.js';
import type { SecretBox } from '../secrets/box.js';
import { asyncCommit } from '../storage/async-commit.js';
import type { Sql } from '../storage/db.js';
import type { WebhookDeliveryRow } from '../storage/rows/webhook-deliveries.js';
import type { WebhookRow } from '../storage/rows/webhooks.js';
import { announcesExhaustion, recordExhausted } from './exhausted.js';
import type { DeliveryResult, WebhookHttpClient } from './http-client.js';
import { signedHeaders } from './signature.js';
import { SECRET_SELECT, type SecretColumns, signingSecrets } from './signing-secrets.js';

export interface DispatcherOptions {
  readonly config: Pick<Config, 'webhookRetryScheduleMs' | 'webhookDisableAfter'>;
  readonly sqlFor: (env: Environment) => Sql;
  readonly client: WebhookHttpClient;
  readonly subjectPrefix: string;
  /** Embedded PGlite: one query at a time per database. */
  readonly serialize: boolean;
  readonly log: Logger;
  /** Opens the sealed signing secrets (src/secrets/). */
  readonly secrets: SecretBox;
  /** Deliveries in flight per webhook. */
  readonly perWebhookConcurrency?: number;
  /** How long a Principal's webhook list is cached, in milliseconds. */
  readonly cacheTtlMs?: number;
  /** This instance's id (src/cluster/instances.ts): the holder of its claimed deliveries. */
  readonly holder: string;
  /**
   * How long a claim outlives the attempt it was taken for (or the retry it waits for), in
   * milliseconds: longer than WEBHOOK_TIMEOUT_MS, so a live holder never loses a claim mid-attempt.
   */
  readonly leaseMs: number;
  /**
   * False while `env`'s database is not open (the embedded sandbox before its first use, which
   * holds no deliveries): sweeps skip it instead of opening it. Default: always open.
   */
  readonly isOpen?: (env: Environment) => boolean;
  /** Called after a transaction wrote outbox rows of `env` (webhook.exhausted): wakes its relay. */
  readonly onOutbox?: (env: Environment) => void;
}

interface Job {
  readonly env: Environment;
  readonly id: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly body: string;
  attempts: number;
}

interface Lane {
  inFlight: number;
  readonly queue: Job[];
}

interface CachedHooks {
  readonly expiresAt: number;
  readonly hooks: readonly { readonly id: string; readonly eventTypes: readonly string[] }[];
}

type DeliveryRow = Pick<
  WebhookDeliveryRow,
  'id' | 'webhook_id' | 'event_id' | 'event_type' | 'body' | 'attempts' | 'next_attempt_at'
>;

type HookAfter = Pick<WebhookRow, 'active' | 'url' | 'principal_id' | 'client_id'>;

const SWEEP_MS = 5_000;

export class WebhookDispatcher {
  readonly #o: Required<DispatcherOptions>;
  readonly #lanes = new Map<string, Lane>();
  readonly #cache = new Map<string, CachedHooks>();
  /** Delivery keys (env:id) scheduled, queued or in flight in this process. */
  readonly #known = new Set<string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #inFlight = new Set<Promise<void>>();
  /** Delivery ids with an attempt in flight, per database: their claims are never released early. */
  readonly #attempting: Record<Environment, Set<string>> = { live: new Set(), sandbox: new Set() };
  readonly #locks: Record<Environment, Promise<unknown>> = { live: Promise.resolve(), sandbox: Promise.resolve() };
  #sweepTimer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Delivery attempts by outcome (success, http_error, no_response), read by GET /metrics. */
  readonly attemptOutcomes: Record<string, number> = {};

  constructor(options: DispatcherOptions) {
    this.#o = { perWebhookConcurrency: 8, cacheTtlMs: 5_000, isOpen: () => true, onOutbox: () => {}, ...options };
  }

  /** The databases open now (see DispatcherOptions.isOpen). */
  #openEnvs(): Environment[] {
    return (['live', 'sandbox'] as const).filter((env) => this.#o.isOpen(env));
  }

  /** Runs a database operation; serialized per database on embedded PGlite. */
  #db<T>(env: Environment, fn: (sql: Sql) => Promise<T>): Promise<T> {
    const sql = this.#o.sqlFor(env);
    if (!this.#o.serialize) return fn(sql);
    const run = this.#locks[env].then(
      () => fn(sql),
      () => fn(sql),
    );
    this.#locks[env] = run.catch(() => {});
    return run;
  }

  /** Resumes the pending deliveries recorded before a restart, then sweeps periodically. */
  async start(): Promise<void> {
    for (const env of this.#openEnvs()) await this.#resume(env, false);
    const sweep = async () => {
      for (const env of this.#openEnvs()) await this.#resume(env, true).catch(() => {});
      if (!this.#closed) this.#sweepTimer = setTimeout(() => void sweep(), SWEEP_MS).unref();
    };
    this.#sweepTimer = setTimeout(() => void sweep(), SWEEP_MS).unref();
  }

  /**
   * Claims pending deliveries nobody holds (released at a clean stop, or whose holder's lease
   * passed: a dead instance's) and this instance's own due ones it lost track of, then schedules
   * them. At start every such row, due or not; on the periodic sweep only due ones.
   */
  async #resume(env: Environment, dueOnly: boolean): Promise<void> {
    const { holder } = this.#o;
    const lease = this.#lease();
    const rows = await this.#db(
      env,
      (sql) => sql<DeliveryRow[]>`
        update webhook_deliveries d set claimed_by = ${holder},
          lease_until = greatest(d.next_attempt_at, now()) + ${lease}::interval
        where d.id in (
          select id from webhook_deliveries
          where status = 'pending'
            and (claimed_by is null or lease_until < now()
              ${dueOnly ? sql`or claimed_by = ${holder}` : sql``})
            ${dueOnly ? sql`and next_attempt_at <= now()` : sql``}
          order by next_attempt_at limit 5000
          for update skip locked)
        returning d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.attempts, d.next_attempt_at`,
    );
    const now = Date.now();
    for (const r of rows) {
      if (this.#known.has(`${env}:${r.id}`)) continue;
      this.#schedule(this.#job(env, r), Math.max(0, r.next_attempt_at.getTime() - now));
    }
  }

  /** The claim lease as a PostgreSQL interval literal. */
  #lease(): string {
    return `${this.#o.leaseMs} milliseconds`;
  }

  #job(env: Environment, r: Omit<DeliveryRow, 'next_attempt_at'>): Job {
    return {
      env,
      id: String(r.id),
      webhookId: r.webhook_id,
      eventId: r.event_id,
      eventType: r.event_type,
      body: r.body,
      attempts: r.attempts,
    };
  }

  /** Forgets the cached webhook list of a Principal (after create, update or delete). */
  invalidate(env: Environment, principalId: string): void {
    this.#cache.delete(`${env}:${principalId}`);
  }

  async #hooksFor(env: Environment, principalId: string): Promise<CachedHooks['hooks']> {
    const key = `${env}:${principalId}`;
    const now = Date.now();
    const hit = this.#cache.get(key);
    if (hit !== undefined && hit.expiresAt > now) return hit.hooks;
    const rows = await this.#db(
      env,
      (sql) => sql<Pick<WebhookRow, 'id' | 'event_types'>[]>`
        select id, event_types from webhooks where principal_id = ${principalId} and active`,
    );
    const hooks = rows.map((r) => ({ id: r.id, eventTypes: r.event_types }));
    if (this.#cache.size > 50_000) this.#cache.clear();
    this.#cache.set(key, { expiresAt: now + this.#o.cacheTtlMs, hooks });
    return hooks;
  }

  /**
   * The bus consumer: records a delivery for every matching webhook, durably, before the
   * batch is acknowledged. A repeated event (bus redelivery) creates nothing new.
   */
  readonly handleBatch = async (events: readonly IncomingEvent[]): Promise<void> => {
    const rows: Record<Environment, { webhook_id: string; event_id: string; event_type: string; body: string }[]> = {
      live: [],
      sandbox: [],
    };
    for (const e of events) {
      const parts = parseSubject(e.subject, this.#o.subjectPrefix);
      if (parts === null || parts.eventType === DECIDED_EVENT_TYPE) continue;
      const hooks = await this.#hooksFor(parts.env, parts.principalId);
      if (hooks.length === 0) continue;
      let eventId: string;
      try {
        eventId = String((JSON.parse(e.body) as { event_id?: unknown }).event_id);
      } catch {
        this.#o.log.warn({ subject: e.subject }, 'event body is not JSON; skipped');
        continue;
      }
      for (const h of hooks) {
        if (subscriptionMatches(h.eventTypes, parts.eventType)) {
          rows[parts.env].push({ webhook_id: h.id, event_id: eventId, event_type: parts.eventType, body: e.body });
        }
      }
    }
    for (const env of ['live', 'sandbox'] as const) {
      const list = rows[env];
      if (list.length === 0) continue;
      // Claimed by this instance as it records them: it makes the first attempt.
      const inserted = await this.#db(
        env,
        async (sql) => sql<DeliveryRow[]>`
          insert into webhook_deliveries (webhook_id, event_id, event_type, body, claimed_by, lease_until)
          select w, e, t, b, ${this.#o.holder}, now() + ${this.#lease()}::interval
          from unnest(${list.map((r) => r.webhook_id)}::text[], ${list.map((r) => r.event_id)}::text[],
            ${list.map((r) => r.event_type)}::text[], ${list.map((r) => r.body)}::text[]) as x(w, e, t, b)
          on conflict (webhook_id, event_id) do nothing
          returning id, webhook_id, event_id, event_type, body, attempts`,
      );
      for (const r of inserted) this.#schedule(this.#job(env, r), 0);
    }
  };

  #schedule(job: Job, delayMs: number): void {
    if (this.#closed) return;
    this.#known.add(`${job.env}:${job.id}`);
    if (delayMs <= 0) {
      this.#enqueue(job);
      return;
    }
    const t = setTimeout(() => {
      this.#timers.delete(t);
      this.#enqueue(job);
    }, delayMs);
    this.#timers.add(t);
  }

  #enqueue(job: Job): void {
    if (this.#closed) return;
    let lane = this.#lanes.get(job.webhookId);
    if (lane === undefined) {
      lane = { inFlight: 0, queue: [] };
      this.#lanes.set(job.webhookId, lane);
    }
    lane.queue.push(job);
    this.#pump(job.webhookId, lane);
  }

  #pump(webhookId: string, lane: Lane): void {
    while (!this.#closed && lane.inFlight < this.#o.perWebhookConcurrency && lane.queue.length > 0) {
      const job = lane.queue.shift() as Job;
      lane.inFlight++;
      const attempting = this.#attempting[job.env];
      attempting.add(job.id);
      const p = this.#attempt(job)
        .catch((err) => {
          if (!this.#closed) {
            this.#o.log.warn({ err, webhookId, eventId: job.eventId }, 'webhook delivery bookkeeping failed');
            // The row is still pending in the database: the sweep picks it up again.
            this.#known.delete(`${job.env}:${job.id}`);
          }
        })
        .finally(() => {
          attempting.delete(job.id);
          this.#inFlight.delete(p);
          lane.inFlight--;
          if (lane.inFlight === 0 && lane.queue.length === 0) this.#lanes.delete(webhookId);
          else this.#pump(webhookId, lane);
        });
      this.#inFlight.add(p);
    }
  }

  async #attempt(job: Job): Promise<void> {
    const key = `${job.env}:${job.id}`;
    // Claims this retry slot (the row still pending at this attempt count, held by this instance
    // or by nobody live) and reads the webhook, in one statement.
    const hooks = await this.#db(
      job.env,
      (sql) => sql<(SecretColumns & Pick<WebhookRow, 'url' | 'active'>)[]>`
        with slot as (
          update webhook_deliveries set claimed_by = ${this.#o.holder}, lease_until = now() + ${this.#lease()}::interval
          where id = ${job.id} and status = 'pending' and attempts = ${job.attempts}
            and (claimed_by = ${this.#o.holder} or claimed_by is null or lease_until < now())
          returning webhook_id)
        select ${sql.unsafe(SECRET_SELECT)}, w.url, w.active from webhooks w join slot on w.id = slot.webhook_id,
          ${asyncCommit(sql)}`,
    );
    const hook = hooks[0];
    if (hook === undefined) {
      // Another instance holds this delivery (or already made this attempt), it is finished, or
      // the webhook was deleted with its deliveries: nothing to do here.
      this.#known.delete(key);
      return;
    }
    if (!hook.active) {
      await this.#db(
        job.env,
        (sql) => sql`
          update webhook_deliveries set status = 'failed', last_error = 'webhook inactive', lease_until = null
          where id = ${job.id} and status = 'pending' and claimed_by = ${this.#o.holder}`,
      );
      this.#known.delete(key);
      return;
    }
    const secrets = signingSecrets(this.#o.secrets, hook);
    const headers = signedHeaders(secrets.current, job.eventId, job.eventType, job.body, Date.now(), secrets.previous);
    const result = await this.#o.client.post(hook.url, job.body, headers as unknown as Record<string, string>);
    // Recorded even while closing: the receiver may have it, and an unrecorded attempt would be
    // made again by whichever instance takes the delivery next.
    const outcome = result.ok ? 'success' : result.statusCode === null ? 'no_response' : 'http_error';
    this.attemptOutcomes[outcome] = (this.attemptOutcomes[outcome] ?? 0) + 1;
    const attempt = job.attempts + 1;
    const schedule = this.#o.config.webhookRetryScheduleMs;
    const baseDelay = attempt - 1 < schedule.length ? (schedule[attempt - 1] as number) : null;
    const delayMs = baseDelay === null ? null : Math.round(baseDelay * (1 + Math.random() * 0.1));
    const status = await this.#record(job, attempt, result, delayMs);
    if (status === 'failed') this.#o.onOutbox(job.env);
    if (status === 'lost') {
      this.#o.log.warn({ webhookId: job.webhookId, eventId: job.eventId }, 'webhook delivery claim lost mid-attempt');
    }
    if (status === 'pending' && delayMs !== null) {
      job.attempts = attempt;
      this.#schedule(job, delayMs);
    } else {
      this.#known.delete(key);
    }
  }

  /**
   * Records one attempt and updates the delivery and the webhook; returns the delivery status,
   * or 'lost' when this instance no longer holds the delivery (its lease passed mid-attempt and
   * another instance took it: the attempt is recorded, the delivery is the new holder's).
   */
  #record(job: Job, attempt: number, r: DeliveryResult, retryDelayMs: number | null): Promise<string> {
    if (r.ok) return this.#recordSuccess(job, attempt, r);
    const disableAfter = this.#o.config.webhookDisableAfter;
    return this.#db(job.env, (sql) =>
      sql.begin(async (tx) => {
        await tx`
          insert into webhook_delivery_attempts
            (delivery_id, webhook_id, event_id, attempt, succeeded, status_code, error, duration_ms)
          values (${job.id}, ${job.webhookId}, ${job.eventId}, ${attempt}, ${r.ok}, ${r.statusCode}, ${r.error},
            ${r.durationMs})`;
        const [hook] = r.ok
          ? await tx<HookAfter[]>`
              update webhooks set consecutive_failures = 0, last_delivery_at = now(),
                last_status_code = ${r.statusCode}, updated_at = now()
              where id = ${job.webhookId} returning active, url, principal_id, client_id`
          : await tx<HookAfter[]>`
              update webhooks set consecutive_failures = consecutive_failures + 1, last_delivery_at = now(),
                last_status_code = ${r.statusCode},
                active = case when consecutive_failures + 1 >= ${disableAfter} then false else active end,
                disabled_at = case when active and consecutive_failures + 1 >= ${disableAfter} then now()
                  else disabled_at end,
                updated_at = now()
              where id = ${job.webhookId} returning active, url, principal_id, client_id`;
        const status = r.ok ? 'succeeded' : retryDelayMs !== null && hook?.active === true ? 'pending' : 'failed';
        // A pending delivery stays this instance's through the retry wait: lease_until is the
        // next attempt's time plus the lease.
        const next = `${retryDelayMs ?? 0} milliseconds`;
        const updated = await tx`
          update webhook_deliveries set status = ${status}, attempts = ${attempt},
            next_attempt_at = now() + ${next}::interval,
            lease_until = ${status === 'pending' ? tx`now() + ${next}::interval + ${this.#lease()}::interval` : null},
            last_status_code = ${r.statusCode}, last_error = ${r.error}, last_attempt_at = now()
          where id = ${job.id} and claimed_by = ${this.#o.holder} and attempts = ${job.attempts}`;
        if (updated.count === 0) return 'lost';
        if (status === 'failed' && hook !== undefined && announcesExhaustion(job.eventType)) {
          await recordExhausted(tx, {
            webhookId: job.webhookId,
            url: hook.url,
            principalId: hook.principal_id,
            clientId: hook.client_id,
            eventId: job.eventId,
            eventType: job.eventType,
            attempts: attempt,
            lastStatusCode: r.statusCode,
            lastError: r.error,
            reason: retryDelayMs === null ? 'retries_exhausted' : 'webhook_disabled',
          });
        }
        if (hook !== undefined && !hook.active && !r.ok) {
          this.#o.log.warn({ webhookId: job.webhookId }, 'webhook disabled after consecutive failures');
        }
        return status;
      }),
    );
  }

  /**
   * A successful attempt, in one statement: the attempt, the delivery done, and the webhook's
   * counters only when they change (failures to reset, another status code) or last_delivery_at
   * is more than a second old. Every delivery of a webhook updating its one row made them queue
   * on that row's lock, behind each other's commits (the soak, 400/s: 1.5-2 ms a delivery, most
   * of it waiting), so a busy webhook's deliveries fell behind; a success skips the row now.
   */
  async #recordSuccess(job: Job, attempt: number, r: DeliveryResult): Promise<string> {
    const rows = await this.#db(
      job.env,
      (sql) => sql<{ n: number }[]>`
        with attempt as (
          insert into webhook_delivery_attempts
            (delivery_id, webhook_id, event_id, attempt, succeeded, status_code, error, duration_ms)
          values (${job.id}, ${job.webhookId}, ${job.eventId}, ${attempt}, true, ${r.statusCode}, ${r.error},
            ${r.durationMs})
        ), hook as (
          update webhooks set consecutive_failures = 0, last_delivery_at = now(),
            last_status_code = ${r.statusCode}, updated_at = now()
          where id = ${job.webhookId}
            and (consecutive_failures <> 0 or last_status_code is distinct from ${r.statusCode}::int
              or last_delivery_at is null or last_delivery_at < now() - interval '1 second')
        ), done as (
          update webhook_deliveries set status = 'succeeded', attempts = ${attempt}, next_attempt_at = now(),
            lease_until = null, last_status_code = ${r.statusCode}, last_error = ${r.error}, last_attempt_at = now()
          where id = ${job.id} and claimed_by = ${this.#o.holder} and attempts = ${job.attempts}
          returning 1)
        select count(*)::int as n from done, ${asyncCommit(sql)}`,
    );
    return rows[0]?.n === 1 ? 'succeeded' : 'lost';
  }

  /** Schedules a finished delivery again with a fresh retry budget; false when none matched. */
  async redeliver(env: Environment, webhookId: string, eventId: string): Promise<'queued' | 'pending' | 'none'> {
    const rows = await this.#db(
      env,
      (sql) => sql<DeliveryRow[]>`
        update webhook_deliveries set status = 'pending', attempts = 0, next_attempt_at = now(), last_error = null,
          claimed_by = ${this.#o.holder}, lease_until = now() + ${this.#lease()}::interval
        where webhook_id = ${webhookId} and event_id = ${eventId} and status <> 'pending'
        returning id, webhook_id, event_id, event_type, body, attempts`,
    );
    const row = rows[0];
    if (row === undefined) {
      const pending = await this.#db(
        env,
        (sql) => sql`select 1 from webhook_deliveries where webhook_id = ${webhookId} and event_id = ${eventId}`,
      );
      return pending.length > 0 ? 'pending' : 'none';
    }
    this.#schedule(this.#job(env, row), 0);
    return 'queued';
  }

  /**
   * Schedules again, with a fresh retry budget, this webhook's failed deliveries of events
   * recorded in [from, to), oldest first, at most `limit`; `more` when others remain after them.
   */
  async redeliverRange(
    env: Environment,
    webhookId: string,
    from: Date,
    to: Date,
    limit: number,
  ): Promise<{ queued: number; more: boolean; nextFrom: string | null }> {
    const rows = await this.#db(
      env,
      (sql) => sql<(DeliveryRow & Pick<WebhookDeliveryRow, 'created_at'>)[]>`
        update webhook_deliveries d set status = 'pending', attempts = 0, next_attempt_at = now(), last_error = null,
          claimed_by = ${this.#o.holder}, lease_until = now() + ${this.#lease()}::interval
        where d.id in (
          select id from webhook_deliveries
          where webhook_id = ${webhookId} and status = 'failed' and created_at >= ${from} and created_at < ${to}
          order by created_at, id limit ${limit}
          for update skip locked)
        returning d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.attempts, d.created_at`,
    );
    for (const r of rows) this.#schedule(this.#job(env, r), 0);
    const last = rows.reduce<Date | null>((m, r) => (m === null || r.created_at > m ? r.created_at : m), null);
    const [rest] = await this.#db(
      env,
      (sql) => sql<Pick<WebhookDeliveryRow, 'created_at'>[]>`
        select created_at from webhook_deliveries
        where webhook_id = ${webhookId} and status = 'failed' and created_at >= ${last ?? from} and created_at < ${to}
        order by created_at, id limit 1`,
    );
    return { queued: rows.length, more: rest !== undefined, nextFrom: rest?.created_at.toISOString() ?? null };
  }

  /** Stops scheduling; waits (bounded) for attempts in flight. Pending rows resume at restart. */
  async close(timeoutMs = 2_000): Promise<void> {
    this.#closed = true;
    if (this.#sweepTimer !== null) clearTimeout(this.#sweepTimer);
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#lanes.clear();
    const wait = Promise.allSettled([...this.#inFlight]);
    await Promise.race([wait, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    // Pending deliveries are released, so another instance (or this one restarted) takes them
    // at once instead of after the lease; except those whose attempt is still in flight (past
    // the wait above): the receiver may have them, so their slot is left to the lease, never
    // attempted twice.
    for (const env of this.#openEnvs()) {
      const busy = [...this.#attempting[env]];
      await this.#db(
        env,
        (sql) => sql`
          update webhook_deliveries set claimed_by = null, lease_until = null
          where claimed_by = ${this.#o.holder} and status = 'pending'
            and not (id::text = any(${busy}::text[]))`,
      ).catch((err: unknown) => this.#o.log.warn({ err, env }, 'cannot release webhook delivery claims; they expire'));
    }
  }
}
