// Group commit of decisions (worker side). Each shard worker has one committer per database.
// Evaluations are collected and written in one transaction per batch: the audit rows, one
// outbox_batches row (each evaluation's events plus authorization.decided) and the agents updates,
// in ONE statement inside one transaction, so a decision, its events and its agent update are
// durable together or not at all. A decision is answered only after its batch commits.
//
// Batching: a batch is flushed at once when no commit is in flight (an idle service adds no
// delay), otherwise when `batchRows` rows are waiting or `batchDelayMs` after the first one,
// with at most `maxInFlight` concurrent transactions; `maxInFlightSlow` while the last batch to
// settle committed after a round trip of SLOW_ROUND_TRIP_MS or more (a network or a stalled
// server: time a batch waits for, not work the database does, so more batches in flight shorten
// each one's wait for a slot; docs/engine-durability.md "Slow PostgreSQL").
//
// Deadline: a batch that has not been sent by its deadline (`deadlineMs`, or
// `relaxedDeadlineMs` while the database has behaved: see Breaker) after its oldest request was
// received at the edge (AuthorizeRequest.receivedAtMs) is abandoned: its decisions are answered
// as failed (the safe decision) at once and nothing of it is written. A batch is sent as one
// round trip: BEGIN, the statement and COMMIT together. Its outbox row carries `commit_by`, the
// instant after which the edge has answered its decisions as the safe DECLINE (less the way back
// from the database), and the database checks it at COMMIT (migrations/0263_commit_guard.sql): a
// commit that would land later rolls back instead (SQLSTATE AS001). So no decision is recorded
// that its caller was told was declined, however long the database stalls after receiving the
// batch. Once sent, the outcome is awaited (an in-doubt commit, the connection dying during
// COMMIT itself, is reported as failed: the one window where a safe DECLINE may have been
// recorded as the original decision).
//
// Isolation: when the database refuses a row of the batch (isRowFault: a value it cannot store,
// a constraint), the batch is split in halves that commit on their own, recursively, so every
// good row commits and only the offending ones are answered as failed (their actors reload
// from the database, so the state keeps nothing of them). One bad row among n costs about
// 2·log2(n) extra transactions, all inside the same deadline.

import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type postgres from 'postgres';
import { entryFromAudit } from '../audit/entry.js';
import { type AnsweredOtherwise, voidAnswered } from '../audit/voids.js';
import type { AuthorizeRequest, Evaluation } from '../decision/model/contract.js';
import { DeadlineError } from '../errors/deadline.js';
import { makeEnvelope } from '../events/envelope.js';
import { type OutboxTuple, tupleOf } from '../events/outbox.js';
import { BATCH_SIZE_BUCKETS, LATENCY_BUCKETS_SECONDS, LocalHistogram } from '../observability/metrics.js';
import type { Breaker } from '../storage/breaker.js';
import type { Sql } from '../storage/db.js';
import type { DbQueue } from './db-queue.js';
import { deadlineAt } from './deadline.js';
import { isUnavailable } from './faults.js';

export interface CommitItem {
  readonly request: AuthorizeRequest;
  readonly evaluation: Evaluation;
}

export type CommitOutcome =
  | { readonly kind: 'committed' }
  /**
   * The idempotency_key was already recorded (by another agent's actor or an earlier life): its
   * stored response (null once swept) and the fingerprint of the request that recorded it.
   */
  | { readonly kind: 'replay'; readonly response: Record<string, unknown> | null; readonly requestHash: string | null }
  | { readonly kind: 'failed' };

export interface CommitterOptions {
  /** Rows per transaction at most. */
  readonly batchRows: number;
  /** How long rows wait for more company while a commit is in flight, in milliseconds. */
  readonly batchDelayMs: number;
  /** Time from a request being received at the edge to its batch reaching COMMIT, in milliseconds. */
  readonly deadlineMs: number;
  /** The deadline while the database has behaved recently, in milliseconds (see Breaker). */
  readonly relaxedDeadlineMs: number;
  /** Concurrent transactions at most. */
  readonly maxInFlight: number;
  /** Concurrent transactions at most while the round trip is slow (SLOW_ROUND_TRIP_MS); absent: maxInFlight. */
  readonly maxInFlightSlow?: number | undefined;
  /**
   * The edge answers by this time after receipt whatever the engine does (AUTHORIZE_DEADLINE_MS),
   * in milliseconds: the batch's commit_by (checked by the database at COMMIT) is this less the
   * way back, so no decision is recorded that was answered as the safe DECLINE. Absent: no such
   * check.
   */
  readonly answerDeadlineMs?: number | undefined;
}

/** Of the answer deadline, what the way from COMMIT's answer to the edge's reply may take. */
const ANSWER_MARGIN_SHARE = 0.05;

/** SQLSTATE of the commit guard (migrations/0263_commit_guard.sql): COMMIT past commit_by. */
export const COMMIT_TOO_LATE = 'AS001';

/** The way back from the database counted into commit_by at most (half a round trip), in ms. */
const MAX_RETURN_MS = 250;

/**
 * A batch round trip this long or longer makes the committer allow maxInFlightSlow batches in
 * flight, in milliseconds. A healthy database commits a batch in about a millisecond, and one
 * saturated by a flood in tens of milliseconds (its commit p99 20-25 ms in the fair-share drill).
 */
const SLOW_ROUND_TRIP_MS = 100;

/** Sent as text and cast to json in SQL: postgres.js would re-serialise a value it thinks is json. */
const TEXT_OID = 25;

/** A recorded idempotency_key's stored response (null once swept) and request fingerprint. */
interface StoredReplay {
  readonly response: Record<string, unknown> | null;
  readonly request_hash: string | null;
}

const COMMITTED: CommitOutcome = Object.freeze({ kind: 'committed' });
const FAILED: CommitOutcome = Object.freeze({ kind: 'failed' });

interface Pending {
  readonly item: CommitItem;
  resolve: (outcome: CommitOutcome) => void;
}

interface Batch {
  readonly entries: Pending[];
  /** When the edge answers the batch's oldest request anyway (ms since the epoch; Infinity: no bound). */
  answerBy: number;
  /** Set when the deadline passed before COMMIT: the transaction must roll back. */
  abandoned: boolean;
  /** Set once the batch is sent (COMMIT with it): the deadline timer no longer applies. */
  committing: boolean;
  settled: boolean;
}

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
type Tx = postgres.ReservedSql<{}>;

export interface CommitterStats {
  commits: number;
  committedRows: number;
  failedCommits: number;
  /** Batches split because the database refused one of their rows (see isRowFault). */
  isolations: number;
  /** Decisions recorded after their answer was the safe DECLINE, and voided (src/audit/voids.ts). */
  voided: number;
}

/** Decisions waiting to be voided at most; beyond, the oldest are dropped (and logged). */
const MAX_PENDING_VOIDS = 100_000;
/**
 * Decisions voided in one transaction at most: its budget credits hold the agents' and
 * Principals' row locks, which decisions of those agents wait for, until it commits.
 */
const VOIDS_PER_TRANSACTION = 20;
/** Wait before trying a failed void transaction again, in milliseconds. */
const VOID_RETRY_MS = 1000;

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function newBatch(entries: Pending[]): Batch {
  return { entries, answerBy: Number.POSITIVE_INFINITY, abandoned: false, committing: false, settled: false };
}

/**
 * True for an error about the data of a row rather than the database or the statement:
 * SQLSTATE classes 22 (data exception: a value the database cannot store, e.g. a NUL or a lone
 * surrogate in text), 23 (integrity constraint violation), 54 (program limit exceeded, e.g. an
 * index row too large) and P0 (raised by a trigger). Such a batch is split so the other rows
 * commit; connection loss, timeouts and everything else fail the batch as before.
 */
export function isRowFault(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || code.length !== 5) return false;
  const cls = code.slice(0, 2);
  return cls === '22' || cls === '23' || cls === '54' || cls === 'P0';
}

export class GroupCommitter {
  readonly #sql: Sql;
  readonly #queue: DbQueue;
  readonly #breaker: Breaker;
  /** Half the last batch's round trip: the way back from the database, taken off commit_by. */
  #returnMs = 0;
  /**
   * The last batch to settle committed, and its round trip took SLOW_ROUND_TRIP_MS or more: the
   * database is slow but answers. Any batch that fails, is abandoned or refused clears it, and so
   * does a fast commit (#returnMs alone keeps the last success's value through an outage).
   */
  #slowButAnswering = false;
  /** ms from the last committed batch's flush to its commit (its wait for a connection included). */
  #lastCommitMs = 0;
  readonly #options: CommitterOptions;
  readonly #log: Logger;
  #pending: Pending[] = [];
  #inFlight = 0;
  #timer: NodeJS.Timeout | null = null;
  #immediate: NodeJS.Immediate | null = null;
  #idleWaiters: (() => void)[] = [];
  readonly stats: CommitterStats = { commits: 0, committedRows: 0, failedCommits: 0, isolations: 0, voided: 0 };
  /** Told the agents whose decisions were voided (their actors reload: the void gave budget back). */
  onVoided: ((agentIds: readonly string[]) => void) | null = null;
  #voids: AnsweredOtherwise[] = [];
  #voiding = false;
  /** Rows per successful group commit (read by /metrics through the shard's stats). */
  readonly batchSizes = new LocalHistogram(BATCH_SIZE_BUCKETS);
  /** Seconds from sending a batch to its transaction's outcome, successful or not. */
  readonly commitSeconds = new LocalHistogram(LATENCY_BUCKETS_SECONDS);

  constructor(sql: Sql, queue: DbQueue, breaker: Breaker, options: CommitterOptions, log: Logger) {
    this.#sql = sql;
    this.#queue = queue;
    this.#breaker = breaker;
    this.#options = options;
    this.#log = log;
  }

  enqueue(item: CommitItem): Promise<CommitOutcome> {
    return new Promise((resolve) => {
      this.#pending.push({ item, resolve });
      this.#schedule();
    });
  }

  /** Resolves once nothing is queued or in flight. */
  idle(): Promise<void> {
    if (this.#pending.length === 0 && this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #schedule(): void {
    const { batchRows, batchDelayMs } = this.#options;
    if (this.#pending.length === 0 || this.#inFlight >= this.#maxInFlight()) return;
    if (this.#pending.length >= batchRows) {
      this.#flush();
      return;
    }
    if (this.#inFlight === 0) {
      // Idle: flush on this turn's check phase, so rows queued in the same turn share the batch.
      this.#immediate ??= setImmediate(() => {
        this.#immediate = null;
        this.#flush();
      });
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      this.#flush();
    }, batchDelayMs);
  }

  #flush(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#immediate !== null) {
      clearImmediate(this.#immediate);
      this.#immediate = null;
    }
    const maxInFlight = this.#maxInFlight();
    while (this.#pending.length > 0 && this.#inFlight < maxInFlight) {
      const entries = this.#pending.splice(0, this.#options.batchRows);
      this.#inFlight++;
      void this.#commit(newBatch(entries)).finally(() => {
        this.#inFlight--;
        if (this.#pending.length > 0) this.#schedule();
        else if (this.#inFlight === 0) this.#notifyIdle();
      });
    }
  }

  /**
   * True while this instance's answers are slow: the last batch committed took SLOW_ROUND_TRIP_MS
   * or more from its flush. A decision made now is marked (the audit row's answers_slow) and
   * teaches the agent no pace: an agent that waits for each answer is paced by us
   * (src/decision/outcome.ts).
   */
  get answersSlow(): boolean {
    return this.#lastCommitMs >= SLOW_ROUND_TRIP_MS;
  }

  /**
   * Batches allowed in flight now: maxInFlightSlow while the database is slow but answers
   * (#slowButAnswering) and nothing of it (a load, a probe) missed a deadline or failed since
   * its last answer (Breaker.troubled). Otherwise a batch likely goes unanswered, and the
   * connections it would hold are what the probe and the loads need to find the database back
   * (measured: with three batches held through a 2-s round trip, the first second after it
   * cleared approved a third of the usual).
   */
  #maxInFlight(): number {
    const { maxInFlight, maxInFlightSlow } = this.#options;
    if (maxInFlightSlow === undefined || !this.#slowButAnswering) return maxInFlight;
    return this.#breaker.troubled(Date.now()) ? maxInFlight : maxInFlightSlow;
  }

  #notifyIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }

  async #commit(batch: Batch): Promise<void> {
    let oldest = Number.POSITIVE_INFINITY;
    for (const e of batch.entries) if (e.item.request.receivedAtMs < oldest) oldest = e.item.request.receivedAtMs;
    const now = Date.now();
    const remaining =
      deadlineAt(this.#breaker, oldest, this.#options.deadlineMs, this.#options.relaxedDeadlineMs, now) - now;
    const answer = this.#options.answerDeadlineMs;
    if (answer !== undefined) batch.answerBy = oldest + answer * (1 - ANSWER_MARGIN_SHARE);
    if (remaining <= 0 || !this.#breaker.allows(Date.now())) {
      if (remaining <= 0) this.#breaker.slow(Date.now());
      this.#settle(batch, null);
      return;
    }
    // Before the batch is sent, its deadline abandons it. Once sent, its outcome is awaited until
    // the edge answers anyway (answerBy): past that the database's guard refuses the COMMIT, so
    // the decisions are answered as failed and their actors reload whatever the outcome.
    const onDeadline = () => {
      if (batch.settled) return;
      if (batch.committing) {
        if (batch.answerBy === Number.POSITIVE_INFINITY) return;
        const wait = batch.answerBy - Date.now();
        if (wait > 0) {
          deadline = setTimeout(onDeadline, wait);
          return;
        }
      }
      batch.abandoned = true;
      this.stats.failedCommits++;
      this.#breaker.slow(Date.now());
      this.#log.warn({ rows: batch.entries.length }, 'audit commit missed its deadline; answering safe decisions');
      this.#settle(batch, null);
    };
    let deadline = setTimeout(onDeadline, remaining);
    const startedAt = performance.now();
    try {
      const replays = await this.#queue.run(() => this.#write(batch));
      clearTimeout(deadline);
      this.#lastCommitMs = performance.now() - startedAt;
      // Slow but answering: committed in time, its round trip (measured in #write) a slow one.
      this.#slowButAnswering = !batch.settled && this.#returnMs * 2 >= SLOW_ROUND_TRIP_MS;
      if (batch.settled) {
        // Committed before its commit_by, answered after the edge had answered: the one window
        // where a safe DECLINE was recorded as the original decision. Voided (src/audit/voids.ts).
        this.#log.warn(
          { rows: batch.entries.length },
          'audit batch committed after its decisions were answered as failed; voiding them',
        );
        this.#voidLater(batch, replays);
      }
      this.commitSeconds.observe((performance.now() - startedAt) / 1000);
      this.batchSizes.observe(batch.entries.length - replays.size);
      this.stats.commits++;
      this.stats.committedRows += batch.entries.length - replays.size;
      this.#breaker.success();
      this.#settle(batch, replays);
    } catch (err) {
      clearTimeout(deadline);
      this.commitSeconds.observe((performance.now() - startedAt) / 1000);
      if (batch.settled) return;
      this.stats.failedCommits++;
      if (isRowFault(err) && batch.entries.length > 1) {
        // The database refused a row (a value it cannot store, a constraint), not the work: the
        // other rows must not pay for it. Commit each half on its own, recursively, until the
        // offending rows stand alone; only they are answered as failed.
        batch.settled = true;
        this.stats.isolations++;
        this.#log.warn(
          { code: (err as { code: string }).code, rows: batch.entries.length },
          'audit batch refused by the database; isolating the offending rows',
        );
        const half = batch.entries.length >>> 1;
        await this.#commit(newBatch(batch.entries.slice(0, half)));
        await this.#commit(newBatch(batch.entries.slice(half)));
        return;
      }
      if (isUnavailable(err)) this.#breaker.failure(Date.now());
      this.#log.error({ err, rows: batch.entries.length }, 'audit commit failed; answering safe decisions');
      this.#settle(batch, null);
    }
  }

  /**
   * Queues the decisions a batch recorded (not its replays) to be voided, and starts the voiding.
   * Not those of keyed requests: a retry with the same idempotency_key gets the recorded decision
   * (the replay), so the key's owner learns it; voiding it would contradict that answer.
   */
  #voidLater(batch: Batch, replays: Map<number, StoredReplay>): void {
    batch.entries.forEach((e, i) => {
      if (replays.has(i)) return;
      const a = e.item.evaluation.audit;
      if (a.idempotency_key !== null) return;
      this.#voids.push({
        id: a.id,
        clientId: e.item.request.clientId,
        principalId: a.principal_id,
        agentId: a.agent_id,
        decision: a.decision,
      });
    });
    if (this.#voids.length > MAX_PENDING_VOIDS) {
      const dropped = this.#voids.splice(0, this.#voids.length - MAX_PENDING_VOIDS);
      this.#log.error(
        { dropped: dropped.length, ids: dropped.slice(0, 10).map((v) => v.id) },
        'too many decisions waiting to be voided; the oldest stay recorded as decided',
      );
    }
    void this.#drainVoids();
  }

  /**
   * Voids the queued decisions, VOIDS_PER_TRANSACTION at a time, in the background (never on a
   * decision's path); a transaction that fails is tried again VOID_RETRY_MS later, while the
   * breaker allows the database. Held in memory only: a process that dies before its voids
   * commit leaves those decisions recorded as decided (docs/engine-durability.md "Voids").
   */
  async #drainVoids(): Promise<void> {
    if (this.#voiding) return;
    this.#voiding = true;
    try {
      while (this.#voids.length > 0) {
        // In (Principal, agent) order: two shards' void transactions lock rows in one order.
        const take = this.#voids
          .slice(0, VOIDS_PER_TRANSACTION)
          .sort((x, y) => cmp(x.principalId, y.principalId) || cmp(x.agentId, y.agentId) || cmp(x.id, y.id));
        try {
          if (!this.#breaker.allows(Date.now())) throw new Error('database unavailable (breaker open)');
          try {
            this.stats.voided += await this.#queue.run(() => voidAnswered(this.#sql, take));
          } catch (err) {
            if (!isRowFault(err)) throw err;
            // The database refuses one of them: each on its own, and the one refused stays
            // recorded as decided (logged) rather than hold up the others for ever.
            for (const v of take) {
              try {
                this.stats.voided += await this.#queue.run(() => voidAnswered(this.#sql, [v]));
              } catch (one) {
                if (!isRowFault(one)) throw one;
                this.#log.error({ err: one, id: v.id }, 'cannot void a decision answered as failed; left as recorded');
              }
            }
          }
          this.#dropVoids(take);
          this.onVoided?.([...new Set(take.map((v) => v.agentId))]);
        } catch (err) {
          this.#log.warn({ err, decisions: take.length }, 'cannot void decisions answered as failed yet; retrying');
          await new Promise((resolve) => setTimeout(resolve, VOID_RETRY_MS).unref());
        }
      }
    } finally {
      this.#voiding = false;
    }
  }

  /** Takes `done` off the queue (by identity: the queue may have been trimmed meanwhile). */
  #dropVoids(done: readonly AnsweredOtherwise[]): void {
    const set = new Set(done);
    this.#voids = this.#voids.filter((v) => !set.has(v));
  }

  /** Answers every decision of the batch: committed, replayed, or failed when `replays` is null. */
  #settle(batch: Batch, replays: Map<number, StoredReplay> | null): void {
    if (batch.settled) return;
    batch.settled = true;
    if (replays === null) this.#slowButAnswering = false;
    const entries = batch.entries;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as Pending;
      if (replays === null) e.resolve(FAILED);
      else {
        const stored = replays.get(i);
        e.resolve(
          stored === undefined
            ? COMMITTED
            : { kind: 'replay', response: stored.response, requestHash: stored.request_hash },
        );
      }
    }
  }

  /**
   * Writes one batch in one transaction. Returns, by index in the batch, the stored responses
   * of rows whose idempotency_key was already recorded (those rows, their events and agent
   * updates are not written).
   */
  async #write(batch: Batch): Promise<Map<number, StoredReplay>> {
    const entries = batch.entries;
    const rows: unknown[] = new Array(entries.length);
    const events: OutboxTuple[] = [];
    const updates: unknown[] = [];
    // The stored response serves only the idempotent replay: never on the audit row; with a key
    // it goes to authorization_responses (the `answers` step below, migrations/0300).
    const answers: { id: string; principal_id: string; created_at: string; response: unknown }[] = [];
    for (let i = 0; i < entries.length; i++) {
      const { request, evaluation } = (entries[i] as Pending).item;
      const audit = evaluation.audit;
      rows[i] = { ...audit, response: undefined };
      if (audit.idempotency_key !== null) {
        answers.push({
          id: audit.id,
          principal_id: audit.principal_id,
          created_at: audit.created_at,
          response: audit.response,
        });
      }
      const at = Date.parse(audit.created_at);
      const owner = { clientId: request.clientId, principalId: request.principalId, authorizationId: audit.id };
      for (const ev of evaluation.events) events.push(tupleOf(owner, makeEnvelope(ev.eventType, ev.data, at)));
      events.push(tupleOf(owner, makeEnvelope('authorization.decided', entryFromAudit(audit) as never, at)));
      const u = evaluation.agentUpdate;
      if (u !== null && (u.trust_level !== undefined || u.kya_score !== undefined)) {
        updates.push({
          id: request.agentId,
          trust_level: u.trust_level ?? null,
          kya_score: u.kya_score ?? null,
          authorization_id: audit.id,
          ord: i,
        });
      }
    }
    // One prepared statement for any batch size: the rows travel as one JSON text parameter
    // (json_populate_recordset), instead of thousands of bind parameters whose count would
    // make every batch size a different statement. json, not jsonb: parsed once, never
    // converted to the binary form.
    // The batch's events (never none: every decision has its authorization.decided) go into ONE
    // outbox row, as text the database does not parse (migrations/0080_outbox_event_tuples.sql):
    // a JSON array of tuples in order, each envelope a JSON string of the exact bytes to relay.
    // When every decision of the batch was recorded (the usual case) the text is stored as sent;
    // otherwise it is parsed, and only the events of recorded decisions are kept.
    const eventsText = JSON.stringify(events);
    // BEGIN, the statement and COMMIT go out together (postgres.js pipelines queries issued on
    // one reserved connection in the same tick): one round trip. The database itself refuses a
    // COMMIT after commit_by (the guard above); a statement that fails makes COMMIT a ROLLBACK.
    // commit_by: when the edge answers the batch anyway, less the way back from the database
    // (half the last round trip, measured).
    const commitBy = batch.answerBy === Number.POSITIVE_INFINITY ? null : new Date(batch.answerBy - this.#returnMs);
    const tx = await this.#sql.reserve();
    if (batch.abandoned) {
      // The deadline passed while the batch waited for its connection: nothing is sent.
      tx.release();
      throw new DeadlineError('commit');
    }
    const sentAt = performance.now();
    batch.committing = true;
    let commit: Promise<unknown> | null = null;
    try {
      const begin = tx`begin`;
      // Several instances (src/cluster/): the batch commits only while every shard it decided
      // for is still held under the epoch it was decided with. A lost shard's rows are refused
      // as a row fault (P0F01), so the batch is split and only they fail.
      const fences = fencesOf(entries);
      const fence =
        fences === null ? null : tx`select asas_assert_fences(${fences.shards}::int[], ${fences.epochs}::bigint[])`;
      const statement = tx<{ id: string }[]>`
        with src as (
          select ${tx.typed(eventsText, TEXT_OID)}::text as events
        ), ins as (
          insert into authorizations (id, principal_id, agent_id, mandate_id, amount, currency, mcc,
            merchant_id, merchant_name, country, decision, reason_codes, gates_fired, kya_score, trust_level,
            trust_score, risk_score, session_id, idempotency_key, processing_time_ms, created_at,
            request_hash, explanation, capture_method, hold_expires_at, step_up_id, step_up_code_hash,
            step_up_expires_at, step_up_intent, shadow, answers_slow)
          select id, principal_id, agent_id, mandate_id, amount, currency, mcc,
            merchant_id, merchant_name, country, decision, reason_codes, gates_fired, kya_score, trust_level,
            trust_score, risk_score, session_id, idempotency_key, processing_time_ms, created_at,
            request_hash, explanation, capture_method, hold_expires_at, step_up_id, step_up_code_hash,
            step_up_expires_at, step_up_intent, shadow, answers_slow
          from json_populate_recordset(null::authorizations, ${tx.typed(JSON.stringify(rows), TEXT_OID)}::json)
          on conflict (principal_id, idempotency_key) where idempotency_key is not null do nothing
          returning id
        )${
          // The answers of keyed decisions, for their replay: a batch without a key skips the step.
          answers.length > 0
            ? tx`, answers as (
          insert into authorization_responses (authorization_id, principal_id, created_at, response)
          select x.id, x.principal_id, x.created_at, x.response
          from json_to_recordset(${tx.typed(JSON.stringify(answers), TEXT_OID)}::json)
            as x(id text, principal_id text, created_at timestamptz, response json)
          where x.id in (select id from ins)
        )`
            : tx``
        }, batch as (
          insert into outbox_batches (events, event_count, commit_by)
          select src.events, ${events.length}::int, ${commitBy}::timestamptz from src
          where (select count(*) from ins) = ${entries.length}::int
          union all
          select json_agg(e.ev order by e.ord)::text, count(*)::int, ${commitBy}::timestamptz
          from src cross join lateral json_array_elements(src.events::json) with ordinality as e(ev, ord)
          where (select count(*) from ins) < ${entries.length}::int
            and e.ev->>4 in (select id from ins)
          having count(*) > 0
        )${
          // Agent updates (a KYA score or trust level that moved) are rare: a batch without any
          // skips the CTE, ~60 µs of the database's CPU per batch (measured).
          updates.length === 0
            ? tx``
            : tx`, updates as (
          update agents a
          set trust_level = coalesce(u.trust_level, a.trust_level),
              kya_score = coalesce(u.kya_score, a.kya_score),
              updated_at = now()
          from (
            select distinct on (x.id) x.id, x.trust_level, x.kya_score
            from json_to_recordset(${tx.typed(JSON.stringify(updates), TEXT_OID)}::json)
              as x(id text, trust_level text, kya_score numeric, authorization_id text, ord int)
            where x.authorization_id in (select id from ins)
            order by x.id, x.ord desc
          ) u
          where a.id = u.id
        )`
        }
        select id from ins`;
      commit = tx`commit`;
      const [, , inserted] = await Promise.all([begin, fence, statement, commit]);
      this.#returnMs = Math.min(MAX_RETURN_MS, (performance.now() - sentAt) / 2);
      const replays = new Map<number, StoredReplay>();
      // Rows whose idempotency_key was recorded before (committed: the insert waited for it).
      if (inserted.length < entries.length) await this.#collectReplays(tx, entries, inserted, replays);
      return replays;
    } catch (err) {
      // A failed statement turned the pipelined COMMIT into a ROLLBACK: wait for it before the
      // connection goes back to the pool (a connection that died has nothing left open).
      await commit?.catch(() => {});
      if ((err as { code?: unknown } | null)?.code === COMMIT_TOO_LATE) {
        batch.abandoned = true;
        this.#breaker.slow(Date.now());
        throw new DeadlineError('commit');
      }
      throw err;
    } finally {
      tx.release();
    }
  }

  async #collectReplays(
    tx: Tx,
    entries: readonly Pending[],
    inserted: readonly { id: string }[],
    out: Map<number, StoredReplay>,
  ): Promise<void> {
    const done = new Set(inserted.map((r) => r.id));
    const wanted: { principal_id: string; idempotency_key: string }[] = [];
    for (const e of entries) {
      const a = e.item.evaluation.audit;
      if (!done.has(a.id) && a.idempotency_key !== null) {
        wanted.push({ principal_id: a.principal_id, idempotency_key: a.idempotency_key });
      }
    }
    const stored = await tx<({ principal_id: string; idempotency_key: string } & StoredReplay)[]>`
      select a.principal_id, a.idempotency_key, coalesce(r.response, a.response::json) as response, a.request_hash
      from authorizations a
      join jsonb_to_recordset(${tx.json(wanted as never)}) as k(principal_id text, idempotency_key text)
        on a.principal_id = k.principal_id and a.idempotency_key = k.idempotency_key
      left join authorization_responses r on r.authorization_id = a.id`;
    const byKey = new Map(stored.map((s) => [`${s.principal_id}\u0000${s.idempotency_key}`, s]));
    for (let i = 0; i < entries.length; i++) {
      const a = (entries[i] as Pending).item.evaluation.audit;
      if (done.has(a.id)) continue;
      const response = byKey.get(`${a.principal_id}\u0000${a.idempotency_key}`);
      // A row neither inserted nor found cannot happen inside one transaction; fail safe if it does.
      if (response === undefined) throw new Error(`authorization ${a.id} was neither recorded nor a replay`);
      out.set(i, response);
    }
  }
}

/** The distinct (shard, epoch) fences of a batch's requests, or null when none carries one. */
function fencesOf(entries: readonly Pending[]): { shards: number[]; epochs: string[] } | null {
  let seen: Set<string> | null = null;
  let shards: number[] = [];
  let epochs: string[] = [];
  for (const e of entries) {
    const f = e.item.request.fence;
    if (f === undefined) continue;
    if (seen === null) {
      seen = new Set();
      shards = [];
      epochs = [];
    }
    const key = `${f.shard}:${f.epoch}`;
    if (seen.has(key)) continue;
    seen.add(key);
    shards.push(f.shard);
    epochs.push(String(f.epoch));
  }
  return seen === null ? null : { shards, epochs };
}
