// Building an actor's state (worker side): the cold load and the reload of a stale actor from
// PostgreSQL (DecisionCore.load, with the first request's idempotency_key looked up alongside),
// bounded by the load deadline (src/shard/deadline.ts); the time a state is loaded as of and a
// request is decided at (src/decision/model/decision-time.ts); and the load upkeep
// (DecisionCore.maintain) that keeps loads short, run in the background one agent at a time.
import type { Logger } from 'pino';
import type { AuthorizeRequest, DecisionCore } from '../decision/model/contract.js';
import { decisionTime } from '../decision/model/decision-time.js';
import type { Environment } from '../domain/environment.js';
import { isDeadline } from '../errors/deadline.js';
import type { Actor, ActorSystemOptions, ShardDatabase } from './actor.js';
import { beforeDeadline, deadlineAt } from './deadline.js';
import { isUnavailable } from './faults.js';
import { rememberStored, storedKey } from './key-memory.js';

/** Agents queued for load upkeep per shard at most (see scheduleUpkeep). */
const MAX_UPKEEP_QUEUE = 1_000;

/**
 * When the database work a request waits for (its actor's load, a budget grant or read) must
 * be done: its receive time plus the load deadline, relaxed while the database has behaved.
 */
export function loadUntil(db: ShardDatabase, options: ActorSystemOptions, request: AuthorizeRequest): number {
  return deadlineAt(
    db.breaker,
    request.receivedAtMs,
    options.loadDeadlineMs,
    options.relaxedLoadDeadlineMs,
    Date.now(),
  );
}

export class ActorLoader {
  readonly #core: DecisionCore<unknown>;
  readonly #dbs: Readonly<Record<Environment, ShardDatabase>>;
  readonly #options: ActorSystemOptions;
  readonly #log: Logger;
  /** Tells the actor's LRU its new size (ActorSystem). */
  readonly #resize: (actor: Actor) => void;
  /** Agents whose load upkeep (DecisionCore.maintain) is due, by actor key; run one at a time. */
  readonly #upkeep = new Map<string, { env: Environment; agentId: string }>();
  #upkeepRunning: Promise<void> | null = null;

  constructor(
    core: DecisionCore<unknown>,
    dbs: Readonly<Record<Environment, ShardDatabase>>,
    options: ActorSystemOptions,
    log: Logger,
    resize: (actor: Actor) => void,
  ) {
    this.#core = core;
    this.#dbs = dbs;
    this.#options = options;
    this.#log = log;
    this.#resize = resize;
  }

  /**
   * The time `request` is decided at (src/decision/model/decision-time.ts): its receive time at the
   * edge, clamped to the shard's clock and to the time the actor's state is current to, so a
   * request that waited in the queue is judged when the agent sent it. An injected clock
   * (options.clock) decides alone: the receive time is not read.
   *
   * With no state (a load started for `request`), the time the state is built as of: the
   * request's decision time with nothing folded yet, so the calendar windows the state starts
   * in are not ahead of the requests queued behind the load (they would be clamped to it,
   * judged as one burst).
   */
  decisionTime(state: unknown, request: AuthorizeRequest): number {
    const clock = this.#options.clock;
    if (clock !== undefined) return clock();
    const core = this.#core;
    const upTo = state === null || core.decidedUpTo === undefined ? Number.NEGATIVE_INFINITY : core.decidedUpTo(state);
    return decisionTime(request.receivedAtMs, upTo, Date.now());
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
  async load(actor: Actor, request: AuthorizeRequest): Promise<boolean> {
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
            : Promise.all([loading, db.queue.run(() => storedKey(db.sql, request.principalId, lookupKey))]).then(
                ([state, stored]) => ({ state, stored }),
              );
        const { state, stored } = await beforeDeadline(work, loadUntil(db, this.#options, request), 'load');
        if (
          stored !== null &&
          lookupKey !== null &&
          state !== null &&
          this.#core.principalOf(state) === request.principalId
        ) {
          rememberStored(actor, lookupKey, stored, this.#options.keysPerActor);
        }
        this.#adopt(actor, state);
      } catch (err) {
        actor.state = null;
        if (isUnavailable(err)) db.breaker.failure(Date.now());
        else if (isDeadline(err)) {
          if (!joined) db.breaker.slow(Date.now());
          // A load can miss its deadline because the agent's history past its rollup is long:
          // bring the rollup forward in the background so the next load is short.
          this.scheduleUpkeep(actor);
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
    const loading = db.queue.run(() =>
      this.#core.load(db.sql, actor.agentId, this.decisionTime(null, request), request.principalId),
    );
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
    if (state !== null && this.#core.maintenanceDue?.(state) === true) this.scheduleUpkeep(actor);
    this.#resize(actor);
  }

  /**
   * Queues the agent's load upkeep (DecisionCore.maintain) and runs the queue one agent at a
   * time, in the background: never on a request's path, skipped while the breaker is open,
   * and bounded (an agent already queued is not queued twice; beyond MAX_UPKEEP_QUEUE agents
   * wait for their next trigger). A failure is logged and retried at the next trigger.
   */
  scheduleUpkeep(actor: Actor): void {
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
        await db.queue.run(() => maintain(db.sql, agentId, Date.now()));
      } catch (err) {
        this.#log.warn({ err, agent_id: agentId }, 'audit rollup upkeep failed; retried at the next trigger');
      }
    }
  }

  /** Resolves once no load upkeep is queued or running (shutdown, tests). */
  async upkeepIdle(): Promise<void> {
    while (this.#upkeepRunning !== null) await this.#upkeepRunning;
  }
}
