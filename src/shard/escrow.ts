// The Principal budget escrow of the actors (worker side; docs/principal-budget.md): each actor
// spends a slice of its Principal's budget in memory. Before a request its slice cannot cover,
// the actor grows the slice (a fenced grant transaction, tried again after a recall of the other
// actors' slack); after an approval that leaves it low, it tops it up in the background; on a
// recall it gives its slack back; a dry run only reads what the pool could give. Grants and
// returns count as in-flight work of the actor (done() once finished), so a reload waits for
// them, and no slack is taken from an actor while it reloads. The transactions
// (src/decision/principal-budget.ts) are the decision core's BudgetEscrow.
import type { Logger } from 'pino';
import type { AuthorizeRequest, BudgetEscrow, DecisionCore } from '../decision/model/contract.js';
import type { Environment } from '../domain/environment.js';
import { isDeadline } from '../errors/deadline.js';
import { type Actor, type ActorSystemOptions, markStale, type ShardDatabase } from './actor.js';
import { loadUntil } from './actor-loader.js';
import { beforeDeadline } from './deadline.js';
import { isUnavailable } from './faults.js';

/**
 * Pauses before asking the pool again after a grant found it short and recalled the slack of
 * the Principal's other actors. Their transactions give it back within a few milliseconds on a
 * quiet machine; the longer waits (up to 360 ms in all, never past the request's deadline) keep a
 * loaded machine from declining while the slack is on its way back (a CI run declined after the
 * earlier 60 ms).
 */
const RECALL_WAITS_MS: readonly number[] = [5, 15, 40, 100, 200];

/** What the escrow asks of the ActorSystem that owns the actors. */
export interface EscrowHost {
  /** Visits every actor in memory (in the LRU, then evicted but busy). */
  forEach(visit: (actor: Actor) => void): void;
  /** One in-flight transaction of the actor finished. */
  done(actor: Actor): void;
}

export class ActorEscrow {
  readonly #core: DecisionCore<unknown>;
  readonly #dbs: Readonly<Record<Environment, ShardDatabase>>;
  readonly #options: ActorSystemOptions;
  readonly #log: Logger;
  readonly #host: EscrowHost;
  /** True on embedded PGlite (no NOTIFY listeners: budget recalls stay in this shard). */
  readonly #embedded: boolean;

  constructor(
    core: DecisionCore<unknown>,
    dbs: Readonly<Record<Environment, ShardDatabase>>,
    options: ActorSystemOptions,
    log: Logger,
    host: EscrowHost,
    embedded: boolean,
  ) {
    this.#core = core;
    this.#dbs = dbs;
    this.#options = options;
    this.#log = log;
    this.#host = host;
    this.#embedded = embedded;
  }

  /** What the actor's slice lacks for `request` at `at` (0n: it covers it, or no escrow applies). */
  need(actor: Actor, request: AuthorizeRequest, at: number): bigint {
    const escrow = this.#core.escrow;
    return escrow !== undefined && actor.principalId === request.principalId
      ? escrow.need(actor.state, request, at)
      : 0n;
  }

  /**
   * For a dry run whose agent's slice cannot cover it: `need` when the Principal's pool has it
   * to give (read only), else 0n (the dry run then answers principal_budget_exhausted, as the
   * decision would unless siblings' slack comes back); null when the database could not answer
   * within the request's deadline (the safe decision).
   */
  async poolWouldGive(actor: Actor, request: AuthorizeRequest, need: bigint): Promise<bigint | null> {
    const escrow = this.#core.escrow as BudgetEscrow<unknown>;
    const db = this.#dbs[actor.env];
    const state = actor.state;
    if (state === null || !db.breaker.allows(Date.now())) return null;
    try {
      const available = await beforeDeadline(
        db.queue.run(() => escrow.available(db.sql, state)),
        loadUntil(db, this.#options, request),
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
   * Grows the actor's budget slice for `request` before it is decided (after any top-up in
   * flight), within the request's load deadline. False when the database could not answer:
   * the request gets the safe decision. A pool found short leaves the slice as it is (the
   * decision then declines principal_budget_exhausted) and asks the other actors of the
   * Principal for their slack: over PostgreSQL NOTIFY on PostgreSQL, here on embedded PGlite.
   */
  async grant(actor: Actor, request: AuthorizeRequest, at: number): Promise<boolean> {
    const escrow = this.#core.escrow as BudgetEscrow<unknown>;
    while (actor.refilling !== null) await actor.refilling;
    const db = this.#dbs[actor.env];
    const until = loadUntil(db, this.#options, request);
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
          this.#work(actor, () => escrow.grant(db.sql, state, need, request, at)),
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
        if (this.#embedded) this.recall(actor.env, actor.principalId as string);
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

  /**
   * After an approval: when the actor's slice runs low, tops it up in the background (a
   * prefetch: no request waits for it).
   */
  topUpIfLow(actor: Actor, request: AuthorizeRequest): void {
    const escrow = this.#core.escrow;
    const state = actor.state;
    if (escrow === undefined || state === null || !escrow.low(state, this.#now()) || actor.refilling !== null) return;
    const db = this.#dbs[actor.env];
    if (!db.breaker.allows(Date.now())) return;
    actor.refilling = this.#work(actor, () => escrow.grant(db.sql, state, 0n, request, this.#now())).then(
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
  recall(env: Environment, principalId: string): void {
    const escrow = this.#core.escrow;
    if (escrow === undefined) return;
    this.#host.forEach((actor) => {
      // A reloading actor keeps its slack: the state being read would count it again.
      if (actor.env !== env || actor.principalId !== principalId || actor.state === null || actor.reloading) return;
      const state = actor.state;
      const slack = escrow.takeSlack(state);
      if (slack === null) return;
      const db = this.#dbs[env];
      const fence = actor.fence;
      this.#work(actor, () => escrow.giveBack(db.sql, state, slack, fence)).then(
        (ok) => {
          if (!ok) markStale(actor);
        },
        (err: unknown) => this.#log.warn({ err, agent_id: actor.agentId }, 'Principal budget slack not given back'),
      );
    });
  }

  /**
   * Runs an escrow transaction (src/decision/principal-budget.ts) as in-flight work of
   * the actor, so a reload waits until PostgreSQL holds its outcome. A failure makes the actor
   * reload: the slice is read again from the database, which stays the truth.
   */
  #work<T>(actor: Actor, work: () => Promise<T>): Promise<T> {
    actor.inflight++;
    const p = this.#dbs[actor.env].queue.run(work);
    p.then(
      () => this.#host.done(actor),
      () => {
        markStale(actor);
        this.#host.done(actor);
      },
    );
    return p;
  }

  #now(): number {
    return (this.#options.clock ?? Date.now)();
  }
}
