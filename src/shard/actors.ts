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
//
// This file owns the actors, their queues and their LRU, and runs each request through the
// parts: loading (src/shard/actor-loader.ts), the idempotency-key memory
// (src/shard/key-memory.ts) and the Principal budget escrow (src/shard/escrow.ts).
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { AuthorizeRequest, BudgetCredit, DecisionCore, Evaluation } from '../decision/model/contract.js';
import { shardOf } from '../decision/model/shard-of.js';
import { STAGE_COMMITTED, STAGE_SIGNED } from '../decision/model/timing.js';
import type { Environment } from '../domain/environment.js';
import {
  ACTOR_BYTES,
  Actor,
  type ActorSystemOptions,
  actorKey,
  type Job,
  type KeyEntry,
  markStale,
  type ShardDatabase,
  safeResult,
} from './actor.js';
import { ActorLoader } from './actor-loader.js';
import type { CommitOutcome } from './committer.js';
import { ActorEscrow, type EscrowHost } from './escrow.js';
import { requestFingerprint } from './idempotency.js';
import { answerRepeat, keyBytes, recordedElsewhere, rememberOriginal, settleRepeats } from './key-memory.js';
import type { AuthorizeResult } from './protocol.js';
import { attachReceipt } from './receipt.js';

export type { ActorSystemOptions, ShardDatabase } from './actor.js';

/** An actor's size in the LRU is updated when its estimate moved by at least this much. */
const RESIZE_STEP_BYTES = 1024;

const NOT_FOUND: AuthorizeResult = Object.freeze({ kind: 'not_found' });

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
  readonly #loader: ActorLoader;
  readonly #escrow: ActorEscrow;

  /** @param embedded true on embedded PGlite (no NOTIFY listeners: budget recalls stay in this shard) */
  constructor(
    core: DecisionCore<unknown>,
    dbs: Readonly<Record<Environment, ShardDatabase>>,
    options: ActorSystemOptions,
    log: Logger,
    embedded = false,
  ) {
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
    this.#loader = new ActorLoader(core, dbs, options, log, (actor) => this.#resize(actor));
    const host: EscrowHost = { forEach: (visit) => this.#forEach(visit), done: (actor) => this.#done(actor) };
    this.#escrow = new ActorEscrow(core, dbs, options, log, host, embedded);
  }

  get size(): number {
    return this.#lru.size;
  }

  /** Estimated bytes of the actors in the LRU. */
  get bytes(): number {
    return this.#lru.calculatedSize;
  }

  /** Budget credits told to an actor here: counted in memory, or reloaded (creditAgent). */
  readonly credits = { counted: 0, reloaded: 0 };

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

  /**
   * A budget credit committed for the agent: a loaded actor counts it in memory
   * (DecisionCore.credit knows from the credit's sequence whether its state already holds it);
   * an actor loading, stale, or whose state cannot apply it reloads before its next decision.
   * No actor here: the next load reads it.
   */
  creditAgent(env: Environment, agentId: string, credit: BudgetCredit): void {
    const key = actorKey(env, agentId);
    const actor = this.#lru.peek(key) ?? this.#busy.get(key);
    if (actor === undefined) return;
    const apply = this.#core.credit;
    let applied = false;
    if (!(actor.state === null || actor.stale || actor.reloading || actor.loading !== null || apply === undefined)) {
      try {
        applied = apply(actor.state, credit);
      } catch (err) {
        this.#log.error({ err, agent_id: agentId }, 'budget credit fault; reloading the agent');
      }
    }
    if (applied) this.credits.counted++;
    else {
      this.credits.reloaded++;
      markStale(actor);
    }
  }

  invalidatePrincipal(env: Environment, principalId: string): void {
    this.#forEach((actor) => {
      // An actor still loading has no principal yet; reload it too rather than guess.
      if (actor.env === env && (actor.principalId === principalId || actor.principalId === null)) markStale(actor);
    });
    // A Principal-wide change (its budget, time zone, thresholds): slack of the budget slices
    // goes back to the pool, so a lowered budget binds what was handed out before it.
    this.recallBudget(env, principalId);
  }

  /** Marks stale every actor whose agent is in one of `shards` (virtual shards of `of`). */
  invalidateShards(shards: readonly number[], of: number): void {
    const set = new Set(shards);
    this.#forEach((actor) => {
      if (set.has(shardOf(actor.agentId, of))) markStale(actor);
    });
  }

  /**
   * Every actor of the Principal here gives the unspent part of its budget slice back to the
   * pool (src/shard/escrow.ts).
   */
  recallBudget(env: Environment, principalId: string): void {
    this.#escrow.recall(env, principalId);
  }

  /** Resolves once no actor has queued work (commits are awaited by the committers). */
  idle(): Promise<void> {
    if (this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Resolves once no load upkeep is queued or running (shutdown, tests). */
  upkeepIdle(): Promise<void> {
    return this.#loader.upkeepIdle();
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

  /** Visits every actor in memory: those in the LRU, then the evicted ones still busy. */
  #forEach(visit: (actor: Actor) => void): void {
    for (const actor of this.#lru.values()) visit(actor);
    for (const actor of this.#busy.values()) visit(actor);
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
    const bytes = ACTOR_BYTES + (actor.state === null ? 0 : this.#core.sizeOf(actor.state)) + keyBytes(actor);
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
          const loaded = await this.#loader.load(actor, job.request);
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
        const dryRun = job.request.dryRun === true;
        // Once per request: a grant below neither moves the agent's time nor the receive time.
        const at = this.#loader.decisionTime(actor.state, job.request);
        const need = this.#escrow.need(actor, job.request, at);
        if (dryRun && need > 0n) {
          // A dry run grows no slice and asks no sibling for slack (docs/principal-budget.md):
          // it reads what the pool could give and answers as if the slice had grown by that.
          const lent = await this.#escrow.poolWouldGive(actor, job.request, need);
          if (actor.state === null || actor.stale) continue;
          actor.queue.shift();
          if (lent === null) job.resolve(safeResult(job.request));
          else this.#explain(actor, job, at, lent);
          continue;
        }
        if (need > 0n) {
          // The Principal budget slice cannot cover this request: grow it first (one transaction;
          // off the common path, which spends the slice in memory).
          if (!(await this.#escrow.grant(actor, job.request, at))) {
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
        if (actor.state !== null && this.#core.maintenanceDue?.(actor.state) === true) {
          this.#loader.scheduleUpkeep(actor);
        }
        this.#escrow.topUpIfLow(actor, job.request);
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

  /** `at`: the request's decision time (ActorLoader.decisionTime), taken once by #run. */
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
    let fingerprint: string | null = null;
    if (key !== null) {
      fingerprint = requestFingerprint(request);
      const seen = actor.keys.get(key);
      if (seen !== undefined) {
        answerRepeat(seen, job, fingerprint);
        return;
      }
    }
    actor.fence = request.fence;
    let evaluation: Evaluation;
    try {
      evaluation = this.#core.evaluate(actor.state, request, at, db.committer.answersSlow);
    } catch (err) {
      this.#log.error({ err, agent_id: actor.agentId }, 'decision core fault; answering the safe decision');
      markStale(actor);
      job.resolve(safeResult(request));
      return;
    }
    // The signed receipt goes into the response before it is recorded (src/shard/receipt.ts).
    attachReceipt(request, evaluation.response);
    if (evaluation.marks !== undefined) evaluation.marks[STAGE_SIGNED] = performance.now();
    let entry: KeyEntry | undefined;
    if (key !== null) {
      evaluation.audit.request_hash = fingerprint;
      entry = rememberOriginal(actor, key, fingerprint, this.#options.keysPerActor);
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
      result = recordedElsewhere(entry, outcome, evaluation.audit.request_hash);
    } else {
      markStale(actor);
      result = safeResult(job.request);
    }
    job.resolve(result);
    if (entry !== undefined) settleRepeats(actor, job.request.idempotencyKey as string, entry, outcome, result);
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

  #release(actor: Actor): void {
    if (actor.evicted && !actor.busy) {
      actor.evicted = false;
      if (this.#busy.get(actor.key) === actor) this.#busy.delete(actor.key);
    }
  }
}
