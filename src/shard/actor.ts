// One agent's actor (worker side): the state the parts of the ActorSystem (src/shard/actors.ts)
// share about that agent. The system owns the actors, their queues and their LRU; loading
// (src/shard/actor-loader.ts), the idempotency-key memory (src/shard/key-memory.ts) and the
// Principal budget escrow (src/shard/escrow.ts) each read and move their own fields of it. Also
// what those parts are built from: the shard's databases and the system's options.
import type { AuthorizeRequest } from '../decision/model/contract.js';
import { safeDecision } from '../decision/model/safe-decision.js';
import type { Environment } from '../domain/environment.js';
import type { Breaker } from '../storage/breaker.js';
import type { Sql } from '../storage/db.js';
import type { GroupCommitter } from './committer.js';
import type { DbQueue } from './db-queue.js';
import type { AuthorizeResult } from './protocol.js';

/** One database as seen from a shard: its pool, the serialising queue, breaker and committer. */
export interface ShardDatabase {
  readonly sql: Sql;
  readonly queue: DbQueue;
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

export interface Job {
  readonly request: AuthorizeRequest;
  readonly resolve: (result: AuthorizeResult) => void;
}

/** A remembered idempotency key of the actor (src/shard/key-memory.ts). */
export interface KeyEntry {
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

export class Actor {
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

/** The actor's state no longer holds: reload it before the next decision. */
export function markStale(actor: Actor): void {
  actor.stale = true;
  actor.generation++;
}

export function actorKey(env: Environment, agentId: string): string {
  return env === 'live' ? agentId : `sandbox:${agentId}`;
}

export function safeResult(request: AuthorizeRequest): AuthorizeResult {
  return { kind: 'safe', response: safeDecision(request) };
}
