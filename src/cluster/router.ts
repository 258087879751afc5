// The decision engine of an instance among several on one database (docs/scale-out.md): each
// authorization is decided by the one live instance that owns its agent's virtual shard
// (src/cluster/leases.ts). A request for a shard owned here goes to the local shard workers,
// stamped with the lease epoch (the fence its audit batch commits under); any other is
// forwarded over NATS request/reply to the owner, which answers with the serialised decision.
// While a shard has no owner (a takeover after a crash, a hand-over in progress) the request
// waits for the next beat, within a share of the answer deadline, and then gets the safe
// decision: never a decision from an instance that does not hold the shard.
//
// Changes made through any instance (mandates, agent status, thresholds) reach the owner: the
// instance that committed the change asks the owner to reload the agent before answering, and
// every live instance when the owner cannot be reached.
import type { Logger } from 'pino';
import type { AuthorizeRequest, BudgetCredit, DecisionEngine } from '../decision/model/contract.js';
import type { DecisionReply } from '../decision/model/reply.js';
import { toReply } from '../decision/model/reply.js';
import { safeDecision } from '../decision/model/safe-decision.js';
import { shardOf } from '../decision/model/shard-of.js';
import type { Environment } from '../domain/environment.js';
import type { ShardedEngine } from '../engine/engine.js';
import { ApiError, type ErrorCode } from '../errors/registry.js';
import { SHARD_COUNT, type ShardLeases } from './leases.js';
import type { ClusterTransport } from './transport.js';

/** Share of the answer deadline a request may spend finding and reaching its shard's owner. */
const ROUTE_SHARE = 0.6;

/** What an owner answers a forwarded request with. */
export type ForwardAnswer =
  | { readonly kind: 'reply'; readonly reply: DecisionReply }
  | { readonly kind: 'error'; readonly code: string; readonly message: string }
  /** This instance does not serve the shard (any more): ask again after the next beat. */
  | { readonly kind: 'not_owner' };

/** Requests for one owner from one event-loop turn, as they travel. */
export interface ForwardBatch {
  readonly requests: readonly ForwardedRequest[];
}

interface Outgoing {
  readonly message: ForwardedRequest;
  readonly until: number;
  resolve(answer: ForwardAnswer | null): void;
}

/** A request as it travels to the owner: its age instead of the sender's clock. */
export interface ForwardedRequest {
  readonly request: Omit<AuthorizeRequest, 'receivedAtMs' | 'fence'>;
  readonly ageMs: number;
}

export interface ClusterEngineOptions {
  readonly local: ShardedEngine;
  readonly leases: ShardLeases;
  readonly transport: ClusterTransport;
  /** The edge answers by this time after receipt (AUTHORIZE_DEADLINE_MS). */
  readonly answerDeadlineMs: number;
  readonly log: Logger;
  /** Counts each authorization by how it was routed (metrics). */
  readonly onRoute?: (route: 'local' | 'forwarded' | 'unowned') => void;
}

export class ClusterEngine implements DecisionEngine {
  readonly #local: ShardedEngine;
  readonly #leases: ShardLeases;
  readonly #transport: ClusterTransport;
  readonly #routeMs: number;
  readonly #log: Logger;
  /** Decisions in flight here per virtual shard (a hand-over waits for its shards to drain). */
  readonly #inFlight = new Int32Array(SHARD_COUNT);
  #drainWaiters: (() => void)[] = [];
  /** Forwards waiting for this turn's flush, by owner. */
  readonly #outgoing = new Map<string, Outgoing[]>();
  #flushScheduled = false;
  readonly #onRoute: (route: 'local' | 'forwarded' | 'unowned') => void;

  constructor(options: ClusterEngineOptions) {
    this.#local = options.local;
    this.#leases = options.leases;
    this.#transport = options.transport;
    this.#routeMs = Math.floor(options.answerDeadlineMs * ROUTE_SHARE);
    this.#log = options.log;
    this.#onRoute = options.onRoute ?? (() => {});
  }

  /** The local shard workers (for their statistics). */
  get local(): ShardedEngine {
    return this.#local;
  }

  async authorize(request: AuthorizeRequest): Promise<DecisionReply> {
    const shard = shardOf(request.agentId, SHARD_COUNT);
    const until = request.receivedAtMs + this.#routeMs;
    for (;;) {
      const epoch = this.#leases.epochOf(shard);
      if (epoch !== null) return this.#decideHere(request, shard, epoch);
      const owner = this.#leases.ownerOf(shard);
      if (owner !== null) {
        const answer = await this.#forward(owner, request, until);
        if (answer !== null && answer.kind !== 'not_owner') {
          if (answer.kind === 'error') throw new ApiError(answer.code as ErrorCode, answer.message);
          this.#onRoute('forwarded');
          return answer.reply;
        }
      }
      const left = until - Date.now();
      if (left <= 0) {
        this.#onRoute('unowned');
        return toReply(safeDecision(request));
      }
      await this.#leases.changed(Math.min(left, 250));
    }
  }

  /** Serves requests forwarded by another instance (NATS request handler), answers in order. */
  serveForwarded(batch: ForwardBatch): Promise<ForwardAnswer[]> {
    const requests = Array.isArray(batch?.requests) ? batch.requests : [];
    return Promise.all(requests.map((m) => this.#serveOne(m)));
  }

  async #serveOne(message: ForwardedRequest): Promise<ForwardAnswer> {
    const request: AuthorizeRequest = { ...message.request, receivedAtMs: Date.now() - message.ageMs };
    const shard = shardOf(request.agentId, SHARD_COUNT);
    const epoch = this.#leases.epochOf(shard);
    if (epoch === null) return { kind: 'not_owner' };
    try {
      return { kind: 'reply', reply: await this.#decideHere(request, shard, epoch) };
    } catch (err) {
      if (err instanceof ApiError) return { kind: 'error', code: err.code, message: err.message };
      throw err;
    }
  }

  async #decideHere(request: AuthorizeRequest, shard: number, epoch: number): Promise<DecisionReply> {
    this.#inFlight[shard] = (this.#inFlight[shard] as number) + 1;
    this.#onRoute('local');
    try {
      return await this.#local.authorize({ ...request, fence: { shard, epoch } });
    } finally {
      this.#inFlight[shard] = (this.#inFlight[shard] as number) - 1;
      if (this.#inFlight[shard] === 0 && this.#drainWaiters.length > 0) {
        const waiters = this.#drainWaiters;
        this.#drainWaiters = [];
        for (const w of waiters) w();
      }
    }
  }

  /**
   * Forwards to `owner`. Requests for one owner that arrive in the same event-loop turn travel
   * as ONE NATS request (as requests for one shard worker travel as one task), so a busy edge
   * pays one message, not one per decision.
   */
  #forward(owner: string, request: AuthorizeRequest, until: number): Promise<ForwardAnswer | null> {
    if (until - Date.now() <= 0) return Promise.resolve(null);
    const { receivedAtMs, fence: _fence, ...rest } = request;
    const message: ForwardedRequest = { request: rest, ageMs: Date.now() - receivedAtMs };
    return new Promise((resolve) => {
      let queue = this.#outgoing.get(owner);
      if (queue === undefined) {
        queue = [];
        this.#outgoing.set(owner, queue);
      }
      queue.push({ message, until, resolve });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flushForwards());
      }
    });
  }

  #flushForwards(): void {
    this.#flushScheduled = false;
    for (const [owner, items] of this.#outgoing) {
      this.#outgoing.delete(owner);
      let until = 0;
      for (const it of items) if (it.until > until) until = it.until;
      const batch: ForwardBatch = { requests: items.map((it) => it.message) };
      this.#transport.request(owner, 'authorize', batch, until - Date.now()).then(
        (answers) => {
          const list = Array.isArray(answers) ? (answers as ForwardAnswer[]) : [];
          for (let i = 0; i < items.length; i++) (items[i] as Outgoing).resolve(list[i] ?? null);
        },
        (err: unknown) => {
          // No responder (the owner died), a timeout or a broken connection: wait for a new owner.
          this.#log.debug({ err, owner }, 'forward to the shard owner failed');
          for (const it of items) it.resolve(null);
        },
      );
    }
  }

  /** Resolves once no decision for these shards is in flight here. */
  async drained(shards: readonly number[]): Promise<void> {
    const busy = () => shards.some((s) => (this.#inFlight[s] as number) > 0);
    while (busy()) await new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
  }

  invalidateAgent(env: Environment, agentId: string): Promise<void> {
    return this.#toOwner('invalidateAgent', env, agentId, null);
  }

  /**
   * As invalidateAgent, with the credit: an actor counts it at most once (its credit_seq), so
   * telling an instance twice (the owner, then everyone when it did not answer) is harmless.
   */
  creditAgent(env: Environment, agentId: string, credit: BudgetCredit): Promise<void> {
    return this.#toOwner('creditAgent', env, agentId, credit);
  }

  /** Tells the actor here, then the shard's owner, or every instance when the owner is not known. */
  async #toOwner(
    kind: 'invalidateAgent' | 'creditAgent',
    env: Environment,
    agentId: string,
    credit: BudgetCredit | null,
  ): Promise<void> {
    const shard = shardOf(agentId, SHARD_COUNT);
    if (credit === null) await this.#local.invalidateAgent(env, agentId);
    else await this.#local.creditAgent(env, agentId, credit);
    if (this.#leases.holds(shard)) return;
    const body = credit === null ? { env, agentId, shard } : { env, agentId, shard, credit };
    const owner = this.#leases.ownerOf(shard);
    if (owner !== null) {
      try {
        const answer = await this.#transport.request(owner, kind, body, 2_000);
        if ((answer as { held?: boolean }).held === true) return;
      } catch (err) {
        this.#log.warn({ err, owner }, 'cannot reach the shard owner; telling every instance');
      }
    }
    await this.#everyone(kind, body);
  }

  async invalidatePrincipal(env: Environment, principalId: string): Promise<void> {
    await this.#local.invalidatePrincipal(env, principalId);
    await this.#everyone('invalidatePrincipal', { env, principalId });
  }

  /** Handles an invalidation sent by another instance; says whether this instance holds the shard. */
  async serveInvalidation(
    kind: 'invalidateAgent' | 'creditAgent' | 'invalidatePrincipal',
    body: { env: Environment; agentId?: string; principalId?: string; shard?: number; credit?: BudgetCredit },
  ): Promise<{ held: boolean }> {
    if (kind === 'invalidateAgent' || kind === 'creditAgent') {
      const agentId = body.agentId as string;
      if (kind === 'creditAgent' && body.credit !== undefined)
        await this.#local.creditAgent(body.env, agentId, body.credit);
      else await this.#local.invalidateAgent(body.env, agentId);
      return { held: this.#leases.holds(body.shard as number) };
    }
    await this.#local.invalidatePrincipal(body.env, body.principalId as string);
    return { held: true };
  }

  async #everyone(
    kind: 'invalidateAgent' | 'creditAgent' | 'invalidatePrincipal',
    body: Record<string, unknown>,
  ): Promise<void> {
    const others = this.#leases.liveInstances.filter((id) => id !== this.#leases.instanceId);
    await Promise.all(
      others.map((id) =>
        this.#transport.request(id, kind, body, 2_000).catch((err: unknown) => {
          // An instance that cannot be reached cannot decide either: its leases run out and the
          // next owner builds the agent's state from the database, change included.
          this.#log.warn({ err, instance: id }, 'invalidation not delivered to an instance');
        }),
      ),
    );
  }

  close(): Promise<void> {
    return this.#local.close();
  }
}
