// Agent actors (worker side). One actor per agent on the shard thread that owns it: the actor
// holds the agent's in-memory decision state (built by DecisionCore.load) and decides its
// authorizations strictly one after another, so the state needs no locks. Actors live in an
// LRU bounded by count (maxActors) and by estimated bytes (maxActorBytes: DecisionCore.sizeOf
// of the state plus the remembered idempotency keys); an evicted or cold actor is rebuilt from
// PostgreSQL, which stays the truth. An actor evicted while it still has work in flight stays
// in memory (#busy) until that work is done, so memory beyond the bounds is only in-flight work.
//
// Each request is decided at the time the edge received it, not when the actor gets to it
// (src/decision/model/decision-time.ts): a queue behind another tenant's flood makes no burst.
// A decision updates the state at once (the next decision sees it) and is handed to the group
// committer; the actor moves on without waiting for the commit, and the answer goes out only
// once the commit is done. An actor is reloaded (after its in-flight commits have landed, so
// the database holds everything it counted) when the API invalidates it, when a commit fails,
// or when an idempotency_key turned out to be recorded already.
// The Principal budget (docs/principal-budget.md): before a request its slice cannot cover, the
// actor grows the slice (a fenced grant transaction, tried again after a recall of the other
// actors' slack); after an approval that leaves it low, it tops it up in the background; on a
// recall it gives its slack back. Grants and returns count as in-flight work, so a reload waits
// for them, and no slack is taken from an actor while it reloads.
// Length (~820 lines): one ActorSystem whose LRU, per-agent queues, idempotency-key memory,
// upkeep and budget escrow share the same actors and counters (inflight, staleness, reloads);
// split, each part would mutate the others' state.
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { AuthorizeRequest, BudgetEscrow, DecisionCore, Evaluation } from '../decision/model/contract.js';
import { decisionTime } from '../decision/model/decision-time.js';
import { safeDecision } from '../decision/model/safe-decision.js';
import { shardOf } from '../decision/model/shard-of.js';
import { STAGE_COMMITTED, STAGE_SIGNED } from '../decision/model/timing.js';
import type { Environment } from '../domain/environment.js';
import type { Sql } from '../storage/db.js';
import { type Breaker, isUnavailable } from './breaker.js';
import type { CommitOutcome, GroupCommitter } from './committer.js';
import type { DbGate } from './db-queue.js';
import { beforeDeadline, deadlineAt, isDeadline } from './deadline.js';
import { requestFingerprint } from './idempotency.js';
import type { AuthorizeResult } from './protocol.js';
import { attachReceipt } from './receipt.js';

/** One database as seen from a shard: its pool, the serialising gate, breaker and committer. */
export interface ShardDatabase {
  readonly sql: Sql;
  readonly gate: DbGate;
  readonly breaker: Breaker;
  readonly committer: GroupCommitter;
}

export interface ActorSystemOptions {
  /** Actors kept in memory per shard; the least recently used beyond this are dropped. */
  readonly maxActors: number;
  /**
   * Estimated bytes of the actors kept per shard; the least recently used beyond this are
   * dropped, and an actor estimated above it alone is not kept once its work is done.
   */
  readonly maxActorBytes: number;
  /** Time from a request being received at the edge until its actor must be built, in milliseconds. */
  readonly loadDeadlineMs: number;
  /** The load deadline while the database has behaved recently, in milliseconds (see Breaker). */
  readonly relaxedLoadDeadlineMs: number;
  /** Idempotency keys remembered per actor (older ones are found in the database). */
  readonly keysPerActor: number;
  /**
   * The engine's clock for decisions and state loads (ms since the epoch). Absent (the service),
   * a request is decided at its receive time (src/decision/model/decision-time.ts) and Date.now() only
   * bounds it; given (tests, replays), every decision and load is made at this clock's time and
   * receivedAtMs is not read for it. The decision core reads no clock of its own.
   */
  readonly clock?: () => number;
}

interface Job {
  readonly request: AuthorizeRequest;
  readonly resolve: (result: AuthorizeResult) => void;
}

interface KeyEntry {
  /** The recorded response; null while the original decision is being committed. */
  response: Record<string, unknown> | null;
  /** Fingerprint of the request that first used the key; null when unknown (recorded before it was kept). */
  fingerprint: string | null;
  /** The recorded answer is gone (swept after 24 hours or beyond the store cap): key_expired. */
  expired: boolean;
  /** Date.now() when the key was first used here or found in the database. */
  sinceMs: number;
  /** Repeats that arrived while the original was being committed. */
  waiters: Job[];
}

/**
 * Bytes of an actor beyond its state and keys: the Actor object, its queue, key map and arrays,
 * and its LRU slot with the key string (measured, see src/decision/memory.ts).
 */
export const ACTOR_BYTES = 520;
/** One remembered idempotency key beyond its characters: map entry, KeyEntry, the response body. */
export const KEY_ENTRY_BYTES = 1750;
/** An actor's size in the LRU is updated when its estimate moved by at least this much. */
const RESIZE_STEP_BYTES = 1024;

class Actor {
  state: unknown = null;
  /** Estimated bytes, as last given to the LRU. */
  size = ACTOR_BYTES;
  /** Characters of the remembered idempotency keys. */
  keyChars = 0;
  principalId: string | null = null;
  /** Reload from the database before the next decision. */
  stale = false;
  /**
   * Bumped by every event that makes a state read before it out of date (an invalidation, a
   * failed or replayed commit) and by every load started: a load in flight is shared only while
   * the generation it started in is current.
   */
  generation = 0;
  /** The state load in flight (DecisionCore.load), if any, and the generation it started in. */
  loading: Promise<unknown> | null = null;
  loadingGeneration = -1;
  running = false;
  evicted = false;
  /** Commits and escrow transactions (grants, slack given back) not finished yet: a reload waits for them. */
  inflight = 0;
  /** A background top-up of the Principal budget slice in flight (a grant waits for it). */
  refilling: Promise<void> | null = null;
  /**
   * Set from the start of a reload to its adoption: the budget slack of the old state is not
   * given back meanwhile (the new state may have read the slice before the return committed).
   */
  reloading = false;
  /** The shard fence of the actor's last request: escrow transactions outside a request carry it. */
  fence: AuthorizeRequest['fence'] = undefined;
  readonly queue: Job[] = [];
  readonly keys = new Map<string, KeyEntry>();
  drainWaiters: (() => void)[] = [];

  constructor(
    readonly key: string,
    readonly env: Environment,
    readonly agentId: string,
  ) {}

  get busy(): boolean {
    return this.running || this.inflight > 0 || this.queue.length > 0;
  }
}

/**
 * Pauses before asking the pool again after a grant found it short and recalled the slack of
 * the Principal's other actors. Their transactions give it back within a few milliseconds on a
 * quiet machine; the longer waits (up to 360 ms in all, never past the request's deadline) keep a
 * loaded machine from declining while the slack is on its way back (a CI run declined after the
 * earlier 60 ms).
 */
const RECALL_WAITS_MS: readonly number[] = [5, 15, 40, 100, 200];

/** Agents queued for load upkeep per shard at most (see #scheduleUpkeep). */
const MAX_UPKEEP_QUEUE = 1_000;

const NOT_FOUND: AuthorizeResult = Object.freeze({ kind: 'not_found' });
const KEY_REUSED: AuthorizeResult = Object.freeze({ kind: 'key_reused' });
const KEY_EXPIRED: AuthorizeResult = Object.freeze({ kind: 'key_expired' });
/** A remembered key's answer is replayed from memory this long at most (the database sweep's retention). */
const KEY_MEMORY_MS = 24 * 60 * 60 * 1000;

export class ActorSystem {
  readonly #core: DecisionCore<unknown>;
  readonly #dbs: Readonly<Record<Environment, ShardDatabase>>;
  readonly #options: ActorSystemOptions;
  readonly #log: Logger;
  readonly #lru: LRUCache<string, Actor>;
  /** Evicted actors that still had work in flight; they leave once idle. */
  readonly #busy = new Map<string, Actor>();
  #running = 0;
  #idleWaiters: (() => void)[] = [];
  /** Agents whose load upkeep (DecisionCore.maintain) is due, by actor key; run one at a time. */
  readonly #upkeep = new Map<string, { env: Environment; agentId: string }>();
  #upkeepRunning: Promise<void> | null = null;
  /** True on embedded PGlite (no NOTIFY listeners: budget recalls stay in this shard). */
  readonly #embedded: boolean;

  constructor(
    core: DecisionCore<unknown>,
    dbs: Readonly<Record<Environment, ShardDatabase>>,
    options: ActorSystemOptions,
    log: Logger,
    embedded = false,
  ) {
    this.#embedded = embedded;
    this.#core = core;
    this.#dbs = dbs;
    this.#options = options;
    this.#log = log;
    this.#lru = new LRUCache<string, Actor>({
      max: options.maxActors,
      maxSize: options.maxActorBytes,
      dispose: (actor, key, reason) => {
        // 'evict': pushed out by the count or byte bound; 'set': alone larger than the byte bound.
        if ((reason === 'evict' || reason === 'set') && actor.busy) {
          actor.evicted = true;
          this.#busy.set(key, actor);
        }
      },
    });
  }

  get size(): number {
    return this.#lru.size;
  }

  /** Estimated bytes of the actors in the LRU. */
  get bytes(): number {
    return this.#lru.calculatedSize;
  }

  get busySize(): number {
    return this.#busy.size;
  }

  authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    return new Promise((resolve) => {
      const actor = this.#actor(request.environment, request.agentId);
      actor.queue.push({ request, resolve });
      if (!actor.running) void this.#run(actor);
    });
  }

  invalidateAgent(env: Environment, agentId: string): void {
    const key = actorKey(env, agentId);
    const actor = this.#lru.peek(key) ?? this.#busy.get(key);
    if (actor !== undefined) markStale(actor);
  }

  invalidatePrincipal(env: Environment, principalId: string): void {
    const mark = (actor: Actor) => {
      // An actor still loading has no principal yet; reload it too rather than guess.
      if (actor.env === env && (actor.principalId === principalId || actor.principalId === null)) markStale(actor);
    };
    for (const actor of this.#lru.values()) mark(actor);
    for (const actor of this.#busy.values()) mark(actor);
    // A Principal-wide change (its budget, time zone, thresholds): slack of the budget slices
    // goes back to the pool, so a lowered budget binds what was handed out before it.
    this.recallBudget(env, principalId);
  }

  /** Marks stale every actor whose agent is in one of `shards` (virtual shards of `of`). */
  invalidateShards(shards: readonly number[], of: number): void {
    const set = new Set(shards);
    const mark = (actor: Actor) => {
      if (set.has(shardOf(actor.agentId, of))) markStale(actor);
    };
    for (const actor of this.#lru.values()) mark(actor);
    for (const actor of this.#busy.values()) mark(actor);
  }

  /** Resolves once no actor has queued work (commits are awaited by the committers). */
  idle(): Promise<void> {
    if (this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #actor(env: Environment, agentId: string): Actor {
    const key = actorKey(env, agentId);
    let actor = this.#lru.get(key);
    if (actor !== undefined) return actor;
    actor = this.#busy.get(key);
    if (actor !== undefined) {
      this.#busy.delete(key);
      actor.evicted = false;
    } else {
      actor = new Actor(key, env, agentId);
    }
    this.#put(actor);
    return actor;
  }

  /**
   * Puts the actor in the LRU (evicting others while over a bound). An actor larger than the
   * byte bound on its own is not taken: it is kept with the evicted busy actors until its work
   * is done, so one agent never has two actors.
   */
  #put(actor: Actor): void {
    this.#lru.set(actor.key, actor, { size: actor.size });
    if (this.#lru.peek(actor.key) !== actor) {
      actor.evicted = true;
      this.#busy.set(actor.key, actor);
    }
  }

  /** Re-estimates the actor's bytes and tells the LRU when they moved by RESIZE_STEP_BYTES or more. */
  #resize(actor: Actor): void {
    const bytes =
      ACTOR_BYTES +
      (actor.state === null ? 0 : this.#core.sizeOf(actor.state)) +
      actor.keys.size * KEY_ENTRY_BYTES +
      actor.keyChars;
    if (Math.abs(bytes - actor.size) < RESIZE_STEP_BYTES) return;
    actor.size = bytes;
    // Evicted but still busy: the new size applies when it is put back.
    if (this.#lru.peek(actor.key) !== actor) return;
    // lru-cache re-sizes an entry only when its value changes: take it out and put it back
    // (it is the most recently used anyway). Putting it back evicts others while over the bound.
    this.#lru.delete(actor.key);
    this.#put(actor);
  }

  async #run(actor: Actor): Promise<void> {
    actor.running = true;
    this.#running++;
    try {
      while (actor.queue.length > 0) {
        const job = actor.queue[0] as Job;
        if (actor.state === null || actor.stale) {
          const loaded = await this.#load(actor, job.request);
          if (!loaded) {
            // The database is unreachable: answer everything queued now rather than make each
            // request wait for its own failed load.
            for (const j of actor.queue.splice(0)) j.resolve(safeResult(j.request));
            break;
          }
          if (actor.state === null) {
            actor.queue.shift();
            job.resolve(NOT_FOUND);
            continue;
          }
        }
        const escrow = this.#core.escrow;
        const dryRun = job.request.dryRun === true;
        // Once per request: a grant below neither moves the agent's time nor the receive time.
        const at = this.#decisionTime(actor, job.request);
        const need =
          escrow !== undefined && actor.principalId === job.request.principalId
            ? escrow.need(actor.state, job.request, at)
            : 0n;
        if (dryRun && need > 0n) {
          // A dry run grows no slice and asks no sibling for slack (docs/principal-budget.md):
          // it reads what the pool could give and answers as if the slice had grown by that.
          const lent = await this.#poolWouldGive(actor, job.request, need);
          if (actor.state === null || actor.stale) continue;
          actor.queue.shift();
          if (lent === null) job.resolve(safeResult(job.request));
          else this.#explain(actor, job, at, lent);
          continue;
        }
        if (need > 0n) {
          // The Principal budget slice cannot cover this request: grow it first (one transaction;
          // off the common path, which spends the slice in memory).
          if (!(await this.#grant(actor, job.request, at))) {
            actor.queue.shift();
            job.resolve(safeResult(job.request));
            continue;
          }
          if (actor.state === null || actor.stale) continue;
        }
        actor.queue.shift();
        this.#decide(actor, job, at);
        // A dry run changed nothing: no upkeep, no top-up of the slice on its account.
        if (dryRun) continue;
        if (actor.state !== null && this.#core.maintenanceDue?.(actor.state) === true) this.#scheduleUpkeep(actor);
        if (escrow !== undefined && actor.state !== null && escrow.low(actor.state, this.#now())) {
          this.#topUp(actor, job.request);
        }
      }
    } catch (err) {
      this.#log.error({ err, agent_id: actor.agentId }, 'actor fault; answering safe decisions');
      actor.state = null;
      for (const j of actor.queue.splice(0)) j.resolve(safeResult(j.request));
    } finally {
      actor.running = false;
      this.#running--;
      this.#release(actor);
      if (this.#running === 0 && this.#idleWaiters.length > 0) {
        const waiters = this.#idleWaiters;
        this.#idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  }

  /**
   * (Re)builds the actor's state. Waits for its in-flight commits first, so the database holds
   * every decision the old state counted. With the first request's idempotency_key it also
   * looks the key up, so a cold actor replays a decision recorded before it was built.
   * Returns false when the database could not answer in time.
   *
   * A load that misses its deadline is not abandoned: it goes on, and the next request's load
   * joins it (if nothing made it out of date meanwhile) instead of starting over. Otherwise, on
   * a slow moment such as a database just back from an outage with every connection to open,
   * each request would start a load of its own, each would miss its deadline, and approvals
   * would resume only once one load happened to fit inside one request's deadline.
   */
  async #load(actor: Actor, request: AuthorizeRequest): Promise<boolean> {
    // The state is read under this request's shard lease: slack given back from it is fenced by it.
    actor.fence = request.fence;
    actor.reloading = true;
    try {
      return await this.#loadState(actor, request);
    } finally {
      actor.reloading = false;
    }
  }

  async #loadState(actor: Actor, request: AuthorizeRequest): Promise<boolean> {
    const db = this.#dbs[actor.env];
    if (actor.inflight > 0) await new Promise<void>((resolve) => actor.drainWaiters.push(resolve));
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!db.breaker.allows(Date.now())) return false;
      actor.stale = false;
      const key = request.idempotencyKey;
      const lookupKey = key !== null && !actor.keys.has(key) ? key : null;
      // A request that joins a load already in flight: its missed deadline is that load's, counted once.
      const joined = actor.loading !== null && actor.loadingGeneration === actor.generation;
      try {
        const loading = this.#stateLoad(actor, db, request);
        const work =
          lookupKey === null
            ? loading.then((state) => ({ state, stored: null }))
            : Promise.all([loading, db.gate.run(() => storedResponse(db.sql, request.principalId, lookupKey))]).then(
                ([state, stored]) => ({ state, stored }),
              );
        const { state, stored } = await beforeDeadline(work, this.#loadUntil(db, request), 'load');
        if (
          stored !== null &&
          lookupKey !== null &&
          state !== null &&
          this.#core.principalOf(state) === request.principalId
        ) {
          this.#remember(actor, lookupKey, {
            response: stored.response,
            fingerprint: stored.request_hash,
            expired: stored.response === null,
            sinceMs: Date.now(),
            waiters: [],
          });
        }
        this.#adopt(actor, state);
      } catch (err) {
        actor.state = null;
        if (isUnavailable(err)) db.breaker.failure(Date.now());
        else if (isDeadline(err)) {
          if (!joined) db.breaker.slow(Date.now());
          // A load can miss its deadline because the agent's history past its rollup is long:
          // bring the rollup forward in the background so the next load is short.
          this.#scheduleUpkeep(actor);
        }
        this.#log.error({ err, agent_id: actor.agentId }, 'cannot load agent state');
        return false;
      }
      if (!actor.stale) return true;
    }
    return true;
  }

  /**
   * The actor's state load in flight if it is still current, else a new one. A load that lands
   * after every request waiting for it gave up (deadline) is adopted all the same while it is
   * current, so the next request finds the actor built.
   */
  #stateLoad(actor: Actor, db: ShardDatabase, request: AuthorizeRequest): Promise<unknown> {
    if (actor.loading !== null && actor.loadingGeneration === actor.generation) return actor.loading;
    const generation = ++actor.generation;
    const loading = db.gate.run(() => this.#core.load(db.sql, actor.agentId, this.#loadTime(request)));
    actor.loading = loading;
    actor.loadingGeneration = generation;
    loading.then(
      (state) => {
        // The database answered, however late: it is slow, not gone (see Breaker.deadline).
        db.breaker.success();
        if (actor.loading === loading) actor.loading = null;
        if (state !== null && actor.state === null && actor.generation === generation) this.#adopt(actor, state);
      },
      () => {
        if (actor.loading === loading) actor.loading = null;
      },
    );
    return loading;
  }

  #adopt(actor: Actor, state: unknown): void {
    actor.state = state;
    actor.principalId = state === null ? null : this.#core.principalOf(state);
    if (state !== null && this.#core.maintenanceDue?.(state) === true) this.#scheduleUpkeep(actor);
    this.#resize(actor);
  }

  /**
   * Queues the agent's load upkeep (DecisionCore.maintain) and runs the queue one agent at a
   * time, in the background: never on a request's path, skipped while the breaker is open,
   * and bounded (an agent already queued is not queued twice; beyond MAX_UPKEEP_QUEUE agents
   * wait for their next trigger). A failure is logged and retried at the next trigger.
   */
  #scheduleUpkeep(actor: Actor): void {
    if (this.#core.maintain === undefined) return;
    if (this.#upkeep.size >= MAX_UPKEEP_QUEUE && !this.#upkeep.has(actor.key)) return;
    this.#upkeep.set(actor.key, { env: actor.env, agentId: actor.agentId });
    this.#upkeepRunning ??= this.#runUpkeep().finally(() => {
      this.#upkeepRunning = null;
    });
  }

  async #runUpkeep(): Promise<void> {
    const maintain = this.#core.maintain;
    if (maintain === undefined) return;
    for (const [key, { env, agentId }] of this.#upkeep) {
      this.#upkeep.delete(key);
      const db = this.#dbs[env];
      if (!db.breaker.allows(Date.now())) continue;
      try {
        await db.gate.run(() => maintain(db.sql, agentId, Date.now()));
      } catch (err) {
        this.#log.warn({ err, agent_id: agentId }, 'audit rollup upkeep failed; retried at the next trigger');
      }
    }
  }

  /** Resolves once no load upkeep is queued or running (shutdown, tests). */
  async upkeepIdle(): Promise<void> {
    while (this.#upkeepRunning !== null) await this.#upkeepRunning;
  }

  /** `at`: the request's decision time (#decisionTime), taken once by #run. */
  #decide(actor: Actor, job: Job, at: number): void {
    const request = job.request;
    if (actor.principalId !== request.principalId) {
      job.resolve(NOT_FOUND);
      return;
    }
    const db = this.#dbs[actor.env];
    if (!db.breaker.allows(Date.now())) {
      job.resolve(safeResult(request));
      return;
    }
    if (request.dryRun === true) {
      this.#explain(actor, job, at);
      return;
    }
    const key = request.idempotencyKey;
    let entry: KeyEntry | undefined;
    let fingerprint: string | null = null;
    if (key !== null) {
      fingerprint = requestFingerprint(request);
      entry = actor.keys.get(key);
      if (entry !== undefined && !entry.expired && Date.now() - entry.sinceMs > KEY_MEMORY_MS) entry.expired = true;
      if (entry !== undefined) {
        if (entry.fingerprint !== null && entry.fingerprint !== fingerprint) job.resolve(KEY_REUSED);
        else if (entry.expired) job.resolve(KEY_EXPIRED);
        else if (entry.response !== null) job.resolve({ kind: 'decided', response: entry.response, replayed: true });
        else entry.waiters.push(job);
        return;
      }
    }
    actor.fence = request.fence;
    let evaluation: Evaluation;
    try {
      evaluation = this.#core.evaluate(actor.state, request, at);
    } catch (err) {
      this.#log.error({ err, agent_id: actor.agentId }, 'decision core fault; answering the safe decision');
      markStale(actor);
      job.resolve(safeResult(request));
      return;
    }
    // The signed receipt goes into the response before it is recorded (src/shard/receipt.ts).
    attachReceipt(request, evaluation.response);
    if (evaluation.marks !== undefined) evaluation.marks[STAGE_SIGNED] = performance.now();
    if (key !== null) {
      evaluation.audit.request_hash = fingerprint;
      entry = { response: null, fingerprint, expired: false, sinceMs: Date.now(), waiters: [] };
      this.#remember(actor, key, entry);
    }
    this.#resize(actor);
    actor.inflight++;
    void db.committer
      .enqueue({ request, evaluation })
      .then((outcome) => this.#settled(actor, job, evaluation, entry, outcome));
  }

  /**
   * POST /authorize/explain: the decision core explains the request on a copy of the state, in
   * this actor's turn (so it sees every decision queued before it). Nothing is signed, recorded
   * or remembered: the idempotency_key is not looked up or kept.
   */
  #explain(actor: Actor, job: Job, at: number, budgetLent = 0n): void {
    const explain = this.#core.explain;
    let response: Record<string, unknown>;
    try {
      if (explain === undefined) throw new Error('the decision core has no dry run');
      response = explain(actor.state, job.request, at, budgetLent);
    } catch (err) {
      this.#log.error({ err, agent_id: actor.agentId }, 'dry run fault; answering the safe decision');
      job.resolve(safeResult(job.request));
      return;
    }
    job.resolve({ kind: 'decided', response, replayed: false });
  }

  #settled(actor: Actor, job: Job, evaluation: Evaluation, entry: KeyEntry | undefined, outcome: CommitOutcome): void {
    let result: AuthorizeResult;
    if (outcome.kind === 'committed') {
      const marks = evaluation.marks;
      if (marks !== undefined) marks[STAGE_COMMITTED] = performance.now();
      result = { kind: 'decided', response: evaluation.response, replayed: false, marks };
    } else if (outcome.kind === 'replay') {
      // The key was recorded by someone else: the state counted a decision that does not exist.
      markStale(actor);
      if (entry !== undefined) {
        entry.fingerprint = outcome.requestHash;
        entry.expired = outcome.response === null;
      }
      result =
        outcome.requestHash !== null && outcome.requestHash !== evaluation.audit.request_hash
          ? KEY_REUSED
          : outcome.response === null
            ? KEY_EXPIRED
            : { kind: 'decided', response: outcome.response, replayed: true };
    } else {
      markStale(actor);
      result = safeResult(job.request);
    }
    job.resolve(result);
    if (entry !== undefined) {
      const key = job.request.idempotencyKey as string;
      if (outcome.kind === 'replay') {
        // The key's first use was elsewhere: each waiter is compared with that one.
        if (outcome.response !== null) entry.response = outcome.response;
      } else if (result.kind === 'decided') entry.response = result.response;
      else if (actor.keys.get(key) === entry) this.#forget(actor, key);
      const repeat: AuthorizeResult =
        outcome.kind === 'replay'
          ? outcome.response === null
            ? KEY_EXPIRED
            : { kind: 'decided', response: outcome.response, replayed: true }
          : result.kind === 'decided'
            ? { kind: 'decided', response: result.response, replayed: true }
            : result;
      for (const w of entry.waiters) {
        if (entry.fingerprint !== null && requestFingerprint(w.request) !== entry.fingerprint) w.resolve(KEY_REUSED);
        else w.resolve(repeat.kind === 'safe' ? safeResult(w.request) : repeat);
      }
      entry.waiters = [];
    }
    this.#done(actor);
  }

  /** One commit or escrow transaction of the actor finished. */
  #done(actor: Actor): void {
    actor.inflight--;
    if (actor.inflight === 0) {
      const waiters = actor.drainWaiters;
      actor.drainWaiters = [];
      for (const w of waiters) w();
      this.#release(actor);
    }
  }

  #now(): number {
    return (this.#options.clock ?? Date.now)();
  }

  /**
   * The time `request` is decided at (src/decision/model/decision-time.ts): its receive time at the
   * edge, clamped to the shard's clock and to the time the actor's state is current to, so a
   * request that waited in the queue is judged when the agent sent it. An injected clock
   * (options.clock) decides alone: the receive time is not read.
   */
  #decisionTime(actor: Actor, request: AuthorizeRequest): number {
    const clock = this.#options.clock;
    if (clock !== undefined) return clock();
    const core = this.#core;
    const state = actor.state;
    const upTo = state === null || core.decidedUpTo === undefined ? Number.NEGATIVE_INFINITY : core.decidedUpTo(state);
    return decisionTime(request.receivedAtMs, upTo, Date.now());
  }

  /**
   * The time a state load started for `request` is built as of: the request's decision time
   * with nothing folded yet, so the calendar windows the state starts in are not ahead of the
   * requests queued behind the load (they would be clamped to it, judged as one burst).
   */
  #loadTime(request: AuthorizeRequest): number {
    const clock = this.#options.clock;
    return clock !== undefined ? clock() : decisionTime(request.receivedAtMs, Number.NEGATIVE_INFINITY, Date.now());
  }

  /**
   * Runs an escrow transaction (src/decision/principal-budget.ts) as in-flight work of
   * the actor, so a reload waits until PostgreSQL holds its outcome. A failure makes the actor
   * reload: the slice is read again from the database, which stays the truth.
   */
  #escrowWork<T>(actor: Actor, work: () => Promise<T>): Promise<T> {
    actor.inflight++;
    const p = this.#dbs[actor.env].gate.run(work);
    p.then(
      () => this.#done(actor),
      () => {
        markStale(actor);
        this.#done(actor);
      },
    );
    return p;
  }

  /**
   * For a dry run whose agent's slice cannot cover it: `need` when the Principal's pool has it
   * to give (read only), else 0n (the dry run then answers principal_budget_exhausted, as the
   * decision would unless siblings' slack comes back); null when the database could not answer
   * within the request's deadline (the safe decision).
   */
  async #poolWouldGive(actor: Actor, request: AuthorizeRequest, need: bigint): Promise<bigint | null> {
    const escrow = this.#core.escrow as BudgetEscrow<unknown>;
    const db = this.#dbs[actor.env];
    const state = actor.state;
    if (state === null || !db.breaker.allows(Date.now())) return null;
    try {
      const available = await beforeDeadline(
        db.gate.run(() => escrow.available(db.sql, state)),
        this.#loadUntil(db, request),
        'dry-run budget read',
      );
      return available >= need ? need : 0n;
    } catch (err) {
      if (isUnavailable(err)) db.breaker.failure(Date.now());
      this.#log.warn({ err, agent_id: actor.agentId }, 'dry run: cannot read the Principal budget pool');
      return null;
    }
  }

  /**
   * When the database work a request waits for (its actor's load, a budget grant or read) must
   * be done: its receive time plus the load deadline, relaxed while the database has behaved.
   */
  #loadUntil(db: ShardDatabase, request: AuthorizeRequest): number {
    const { loadDeadlineMs, relaxedLoadDeadlineMs } = this.#options;
    return deadlineAt(db.breaker, request.receivedAtMs, loadDeadlineMs, relaxedLoadDeadlineMs, Date.now());
  }

  /**
   * Grows the actor's budget slice for `request` before it is decided (after any top-up in
   * flight), within the request's load deadline. False when the database could not answer:
   * the request gets the safe decision. A pool found short leaves the slice as it is (the
   * decision then declines principal_budget_exhausted) and asks the other actors of the
   * Principal for their slack: over PostgreSQL NOTIFY on PostgreSQL, here on embedded PGlite.
   */
  async #grant(actor: Actor, request: AuthorizeRequest, at: number): Promise<boolean> {
    const escrow = this.#core.escrow as BudgetEscrow<unknown>;
    while (actor.refilling !== null) await actor.refilling;
    const db = this.#dbs[actor.env];
    const until = this.#loadUntil(db, request);
    let recalling = false;
    for (let attempt = 0; ; attempt++) {
      const state = actor.state;
      if (state === null || actor.stale) return true;
      const need = escrow.need(state, request, at);
      if (need === 0n) return true;
      if (!db.breaker.allows(Date.now())) return false;
      let status: Awaited<ReturnType<BudgetEscrow<unknown>['grant']>>;
      try {
        status = await beforeDeadline(
          this.#escrowWork(actor, () => escrow.grant(db.sql, state, need, request, at)),
          until,
          'budget grant',
        );
      } catch (err) {
        markStale(actor);
        if (isUnavailable(err)) db.breaker.failure(Date.now());
        else if (isDeadline(err)) db.breaker.slow(Date.now());
        this.#log.error({ err, agent_id: actor.agentId }, 'cannot grow the Principal budget slice');
        return false;
      }
      if (status === 'stale') markStale(actor);
      if (status === 'recalled') {
        // The pool is short and this grant asked the other actors of the Principal for their
        // slack (NOTIFY on PostgreSQL; here, on embedded PGlite).
        recalling = true;
        if (this.#embedded) this.recallBudget(actor.env, actor.principalId as string);
      }
      // After this request's recall, a pool still short is asked again once the slack had time
      // to come back (the pool recalls at most once a second, so the later grants answer
      // 'short'), within the request's deadline; the last answer stands.
      if (!recalling || status === 'granted' || status === 'stale') return true;
      const wait = RECALL_WAITS_MS[attempt];
      if (wait === undefined || Date.now() + wait >= until) return true;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** Tops the actor's budget slice up in the background (a prefetch: no request waits for it). */
  #topUp(actor: Actor, request: AuthorizeRequest): void {
    const escrow = this.#core.escrow;
    const state = actor.state;
    if (escrow === undefined || state === null || actor.refilling !== null) return;
    const db = this.#dbs[actor.env];
    if (!db.breaker.allows(Date.now())) return;
    actor.refilling = this.#escrowWork(actor, () => escrow.grant(db.sql, state, 0n, request, this.#now())).then(
      (status) => {
        if (status === 'stale') markStale(actor);
      },
      (err: unknown) => this.#log.warn({ err, agent_id: actor.agentId }, 'Principal budget top-up failed'),
    );
    void actor.refilling.finally(() => {
      actor.refilling = null;
    });
  }

  /**
   * Every actor of the Principal here gives the unspent part of its budget slice back to the
   * pool (another actor found the pool short, or the budget changed). The slack leaves the
   * state at once, so no decision spends it; the transaction gives it back, fenced like the
   * actor's commits.
   */
  recallBudget(env: Environment, principalId: string): void {
    const escrow = this.#core.escrow;
    if (escrow === undefined) return;
    const recall = (actor: Actor) => {
      // A reloading actor keeps its slack: the state being read would count it again.
      if (actor.env !== env || actor.principalId !== principalId || actor.state === null || actor.reloading) return;
      const state = actor.state;
      const slack = escrow.takeSlack(state);
      if (slack === null) return;
      const db = this.#dbs[env];
      const fence = actor.fence;
      this.#escrowWork(actor, () => escrow.giveBack(db.sql, state, slack, fence)).then(
        (ok) => {
          if (!ok) markStale(actor);
        },
        (err: unknown) => this.#log.warn({ err, agent_id: actor.agentId }, 'Principal budget slack not given back'),
      );
    };
    for (const actor of this.#lru.values()) recall(actor);
    for (const actor of this.#busy.values()) recall(actor);
  }

  #remember(actor: Actor, key: string, entry: KeyEntry): void {
    this.#forget(actor, key);
    actor.keys.set(key, entry);
    actor.keyChars += key.length;
    if (actor.keys.size <= this.#options.keysPerActor) return;
    for (const [k, e] of actor.keys) {
      if (e.response !== null) {
        this.#forget(actor, k);
        return;
      }
    }
  }

  #forget(actor: Actor, key: string): void {
    if (actor.keys.delete(key)) actor.keyChars -= key.length;
  }

  #release(actor: Actor): void {
    if (actor.evicted && !actor.busy) {
      actor.evicted = false;
      if (this.#busy.get(actor.key) === actor) this.#busy.delete(actor.key);
    }
  }
}

/** The actor's state no longer holds: reload it before the next decision. */
function markStale(actor: Actor): void {
  actor.stale = true;
  actor.generation++;
}

function actorKey(env: Environment, agentId: string): string {
  return env === 'live' ? agentId : `sandbox:${agentId}`;
}

function safeResult(request: AuthorizeRequest): AuthorizeResult {
  return { kind: 'safe', response: safeDecision(request) };
}

interface StoredKey {
  /** Null once swept (past 24 hours or beyond the per-Principal cap). */
  response: Record<string, unknown> | null;
  request_hash: string | null;
}

async function storedResponse(sql: Sql, principalId: string, key: string): Promise<StoredKey | null> {
  const rows = await sql<StoredKey[]>`
    select response, request_hash from authorizations where principal_id = ${principalId} and idempotency_key = ${key}`;
  return rows[0] ?? null;
}
