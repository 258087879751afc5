// The outbox relay: reads one environment's unpublished outbox batches (one row per group
// commit, its events in order: migrations/0060 and 0080) in seq order, publishes their
// events to the bus pipelined and marks the batches published. A batch is marked only after the
// bus accepted every one of its events, so a crash or a partial failure in between re-publishes
// it (deduplicated by Nats-Msg-Id). Batches are selected by `published_at is null`, not by a seq
// cursor, so a transaction that commits a lower seq late is still relayed.
//
// Several instances on one database: only the holder of the database's 'outbox' lease
// (table work_leases, migrations/0130_claims.sql) relays, so the outbox is published in seq
// order by one relay at a time, as with one instance (every agent's events keep their order).
// The lease is one short statement, renewed when half of it is left, never a transaction held
// across a publish. The holder publishes only while its lease is valid by its own clock (taken
// before the statement was sent, so it ends no later than the database's); another instance
// takes the lease over once it expired. A batch the old holder published but had not marked is
// published again by the new holder and dropped by the stream as a duplicate (Nats-Msg-Id =
// event_id, duplicate window 2 minutes >> the lease). docs/background-claims.md.
import type { Logger } from 'pino';
import type { Environment } from '../domain/environment.js';
import { asyncCommit } from '../storage/async-commit.js';
import type { Sql } from '../storage/db.js';
import type { EventBus, OutgoingEvent } from './bus.js';
import { subjectFor } from './envelope.js';

export interface OutboxRelayOptions {
  readonly env: Environment;
  readonly sql: Sql;
  readonly bus: EventBus;
  readonly subjectPrefix: string;
  readonly log: Logger;
  /** Outbox batches (group commits) read per round. */
  readonly batchSize?: number;
  /** Poll delay after a partial batch, in milliseconds. */
  readonly busyPollMs?: number;
  /** Longest poll delay when idle, in milliseconds. */
  readonly idlePollMs?: number;
  /** Published rows older than this are deleted, in milliseconds. */
  readonly retentionMs?: number;
  /** This instance's id (src/cluster/instances.ts): the holder name of the relay lease. */
  readonly holder: string;
  /** Lifetime of the relay lease, in milliseconds; a dead holder is replaced after at most this. */
  readonly leaseMs?: number;
  /**
   * False while the database is not open (the embedded sandbox before its first use, which has
   * no outbox rows): the relay waits instead of opening it. Default: always open.
   */
  readonly isOpen?: () => boolean;
}

interface OutboxBatchRow {
  seq: string;
  /** The batch's events as the shard worker wrote them (migrations/0080_outbox_event_tuples.sql). */
  events: string;
}

/** [event_id, event_type, client_id, principal_id, authorization_id, payload text]. */
type OutboxTuple = [string, string, string, string, string | null, string];

export class OutboxRelay {
  readonly #o: Required<OutboxRelayOptions>;
  #running = false;
  #stopping = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #lastCleanupMs = Date.now();
  /** Until when (performance.now()) this instance may publish under its lease; 0: not holding. */
  #leaseValidUntil = 0;
  /** When (performance.now()) a non-holder next tries to take the lease. */
  #nextTryAt = 0;
  /** Events published since start (metrics, tests). */
  published = 0;
  /** Rounds (lease check and fetch) since start: how often an idle relay polls (tests). */
  rounds = 0;

  constructor(options: OutboxRelayOptions) {
    this.#o = {
      batchSize: 64,
      busyPollMs: 20,
      idlePollMs: 50,
      retentionMs: 3_600_000,
      leaseMs: 5_000,
      isOpen: () => true,
      ...options,
    };
  }

  /** True while this instance holds the relay lease (by its own clock). */
  get holding(): boolean {
    return performance.now() < this.#leaseValidUntil;
  }

  /**
   * Holds the relay lease: renews it when less than half is left, or (not holding) tries to take
   * it at most every quarter lease. One statement; false when another instance holds it.
   */
  async #lease(): Promise<boolean> {
    const { leaseMs, holder, sql } = this.#o;
    const now = performance.now();
    if (now < this.#leaseValidUntil - leaseMs / 2) return true;
    if (!this.holding && now < this.#nextTryAt) return false;
    const sent = performance.now();
    const rows = await sql<{ epoch: string }[]>`
      insert into work_leases (name, holder, lease_until)
      values ('outbox', ${holder}, now() + ${`${leaseMs} milliseconds`}::interval)
      on conflict (name) do update set
        holder = excluded.holder,
        lease_until = excluded.lease_until,
        epoch = work_leases.epoch + case when work_leases.holder = excluded.holder then 0 else 1 end,
        acquired_at = case when work_leases.holder = excluded.holder then work_leases.acquired_at else now() end
      where work_leases.holder = excluded.holder or work_leases.lease_until < now()
      returning epoch`;
    if (rows.length === 1) {
      if (!this.holding)
        this.#o.log.info({ env: this.#o.env, holder, epoch: rows[0]?.epoch }, 'outbox relay lease taken');
      // The database's lease ends at (its now() at the update) + leaseMs, never before sent + leaseMs.
      // A tenth is kept back for clock-rate differences and the publish in flight.
      this.#leaseValidUntil = sent + leaseMs * 0.9;
      return true;
    }
    if (this.holding) this.#o.log.warn({ env: this.#o.env, holder }, 'outbox relay lease lost');
    this.#leaseValidUntil = 0;
    this.#nextTryAt = performance.now() + leaseMs / 4;
    return false;
  }

  /** Gives the lease up (clean stop), so another instance takes it at its next try. */
  async #release(): Promise<void> {
    if (this.#leaseValidUntil === 0) return;
    this.#leaseValidUntil = 0;
    try {
      await this.#o.sql`
        update work_leases set lease_until = now() - interval '1 millisecond'
        where name = 'outbox' and holder = ${this.#o.holder}`;
    } catch (err) {
      this.#o.log.warn({ err, env: this.#o.env }, 'cannot release the outbox relay lease; it expires by itself');
    }
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Wakes the relay now (e.g. right after a commit that wrote outbox rows). */
  nudge(): void {
    this.#wake?.();
  }

  /** Sleeps `ms`; a nudge ends the sleep early only when `wakeable`. */
  async #sleep(ms: number, wakeable = true): Promise<void> {
    // Local handles: a sleep that lost a race must not clear the timer of a later sleep.
    let timer: NodeJS.Timeout | undefined;
    let wake: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
      if (wakeable) this.#wake = resolve;
    });
    clearTimeout(timer);
    if (this.#wake === wake) this.#wake = null;
  }

  async #run(): Promise<void> {
    let idle = this.#o.busyPollMs;
    while (this.#running) {
      if (!this.#o.isOpen()) {
        // Nothing to relay before the database opens; its first commit nudges the relay awake.
        if (this.#stopping) break;
        await this.#sleep(1_000);
        continue;
      }
      if (!this.#o.bus.connected()) {
        await Promise.race([this.#o.bus.whenConnected(), this.#sleep(250)]);
        continue;
      }
      let result: { fetched: number; published: number; held: boolean };
      try {
        result = await this.relayOnce();
      } catch (err) {
        if (!this.#running) break;
        this.#o.log.warn({ err, env: this.#o.env }, 'outbox relay failed; retrying');
        await this.#sleep(500);
        continue;
      }
      if (!result.held) {
        // Another instance relays: wait for the next try (nudges end the wait early, cheaply).
        if (this.#stopping) break;
        await this.#sleep(Math.max(1, Math.min(this.#o.idlePollMs * 4, this.#nextTryAt - performance.now())));
        continue;
      }
      if (result.fetched === this.#o.batchSize && result.published === result.fetched) {
        idle = this.#o.busyPollMs;
        continue;
      }
      if (result.published < result.fetched) {
        await this.#sleep(250);
        continue;
      }
      if (this.#stopping && result.fetched === 0) break;
      await this.#maybeCleanup();
      if (result.fetched > 0) {
        // Rows keep coming: poll on a short fixed period and let commits' nudges pile up, so
        // a busy service costs one select and one update per period, not per commit.
        idle = this.#o.busyPollMs;
        await this.#sleep(this.#stopping ? 0 : this.#o.busyPollMs, false);
        continue;
      }
      idle = Math.min(this.#o.idlePollMs, Math.max(idle * 2, this.#o.busyPollMs));
      await this.#sleep(idle);
    }
  }

  /** One round: fetch up to batchSize outbox batches, publish their events pipelined, mark what the bus accepted. */
  async relayOnce(): Promise<{ fetched: number; published: number; held: boolean }> {
    const { sql, env, batchSize } = this.#o;
    this.rounds++;
    if (!(await this.#lease())) return { fetched: 0, published: 0, held: false };
    // The batches' events come as the text the shard worker wrote, parsed here rather than in
    // the database; each payload is the envelope's JSON text, relayed verbatim.
    const rows = await sql<OutboxBatchRow[]>`
      select seq, events from outbox_batches where published_at is null order by seq limit ${batchSize}`;
    if (rows.length === 0) return { fetched: 0, published: 0, held: true };
    // Publish only under a lease still valid by this instance's clock: after a pause longer
    // than the lease another instance may relay these rows already.
    if (!this.holding) return { fetched: 0, published: 0, held: true };
    const events: OutgoingEvent[] = [];
    const ends: number[] = [];
    for (const row of rows) {
      for (const [eventId, eventType, clientId, principalId, , body] of JSON.parse(row.events) as OutboxTuple[]) {
        events.push({
          subject: subjectFor(env, clientId, principalId, eventType, this.#o.subjectPrefix),
          eventId,
          // Verbatim: the same bytes go to NATS and, through the dispatcher, to every webhook attempt.
          body,
        });
      }
      ends.push(events.length);
    }
    const accepted = await this.#o.bus.publishBatch(events);
    // A batch is published when all of its events are.
    const seqs: string[] = [];
    let publishedEvents = 0;
    let start = 0;
    rows.forEach((row, i) => {
      const end = ends[i] as number;
      let all = true;
      for (let j = start; j < end; j++) if (accepted[j] !== true) all = false;
      if (all) {
        seqs.push(row.seq);
        publishedEvents += end - start;
      }
      start = end;
    });
    if (seqs.length > 0) {
      // Lost in a crash of PostgreSQL, the mark makes the batch go out again: the duplicate window drops it.
      await sql`update outbox_batches set published_at = now() from ${asyncCommit(sql)} where seq = any(${seqs}::bigint[])`;
      this.published += publishedEvents;
    }
    return { fetched: rows.length, published: seqs.length, held: true };
  }

  async #maybeCleanup(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastCleanupMs < 60_000) return;
    this.#lastCleanupMs = now;
    try {
      await this.#o.sql`
        delete from outbox_batches where seq in (
          select seq from outbox_batches
          where published_at is not null and published_at < now() - ${`${this.#o.retentionMs} milliseconds`}::interval
          order by seq limit 1000)`;
    } catch (err) {
      this.#o.log.warn({ err, env: this.#o.env }, 'outbox cleanup failed');
    }
  }

  /** Relays what is left (bounded by timeoutMs), then stops. */
  async stop(timeoutMs = 5_000): Promise<void> {
    if (!this.#running) return;
    this.#stopping = true;
    this.nudge();
    const timer = new Promise<void>((r) => setTimeout(r, timeoutMs).unref());
    await Promise.race([this.#loop, timer]);
    this.#running = false;
    this.nudge();
    await this.#loop;
    await this.#release();
  }
}
