// The decision engine as the main thread sees it: routes each authorization to the shard
// worker that owns its agent (FNV hash of the agent id over WORKERS threads, one single-thread
// piscina pool per shard so one thread owns each agent) and answers once the worker reports
// the decision durably recorded.
//
// Batching across the thread boundary: requests for one shard that arrive in the same
// event-loop turn travel as ONE task, and their results come back as one array; the flush
// runs in the check phase (setImmediate) right after the turn's I/O callbacks.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { Piscina } from 'piscina';
import type { AuthorizeRequest, BudgetCredit, DecisionCore, DecisionEngine } from '../decision/model/contract.js';
import { type DecisionReply, toReply } from '../decision/model/reply.js';
import { safeDecision } from '../decision/model/safe-decision.js';
import { shardOf } from '../decision/model/shard-of.js';
import type { Environment } from '../domain/environment.js';
import { ApiError } from '../errors/registry.js';
import type { ReceiptKeyMaterial } from '../receipts/signer.js';
import type { AuthorizeWireResult, ShardStats, ShardTask, ShardWorkerData } from '../shard/protocol.js';
import { CONNECT_TIMEOUT_MS, type Sql } from '../storage/db.js';

export interface EngineOptions {
  /** Number of shard worker threads. */
  readonly workers: number;
  readonly urls: Readonly<Record<Environment, string>>;
  readonly embedded: boolean;
  /**
   * Embedded PGlite only: the service's own single-connection pools. The engine then runs one
   * shard in this thread on them instead of worker threads with connections of their own,
   * which PGlite's single session cannot serve side by side (see src/shard/shard.ts).
   */
  readonly shared?: Readonly<Record<Environment, Sql>> | undefined;
  readonly log: Logger;
  readonly logLevel?: string;
  /** URL of the module exporting `decisionCore`; defaults to the real pipeline. */
  readonly coreModule?: string;
  /** Actors kept in memory per shard (least recently used beyond this are rebuilt on demand). */
  readonly maxActorsPerShard?: number;
  /** Estimated bytes of the actors kept per shard (DecisionCore.sizeOf; see src/shard/actors.ts). */
  readonly maxActorBytesPerShard?: number;
  /** Connections per database per shard on PostgreSQL (embedded PGlite always uses 1). */
  readonly poolSize?: number;
  /** Rows per audit transaction at most. */
  readonly batchRows?: number;
  /** How long rows wait for company while a commit is in flight, in milliseconds. */
  readonly batchDelayMs?: number;
  /** From the edge receiving a request to its batch reaching COMMIT, in milliseconds; else safe decision. */
  readonly commitDeadlineMs?: number;
  /** From the edge receiving a request to its cold actor being built, in milliseconds; else safe decision. */
  readonly loadDeadlineMs?: number;
  /** The commit deadline while the database has behaved for 30 s, in milliseconds. */
  readonly relaxedCommitDeadlineMs?: number;
  /** The load deadline while the database has behaved for 30 s, in milliseconds. */
  readonly relaxedLoadDeadlineMs?: number;
  /** How long a shard answers safe decisions at once after a database failure, in milliseconds. */
  readonly breakerOpenMs?: number;
  /**
   * The edge answers POST /authorize by this time after receipt, in milliseconds, whatever the
   * engine does (AUTHORIZE_DEADLINE_MS). The engine's own deadlines are kept inside it (a share
   * of it, see DEADLINE_SHARES), so a decision is recorded and answered, or abandoned and rolled
   * back, before the edge gives up on it; the edge's answer stays a backstop.
   */
  readonly answerDeadlineMs?: number;
  /** Time to open a database connection, in milliseconds (DATABASE_CONNECT_TIMEOUT_MS). */
  readonly connectTimeoutMs?: number;
  /** The key that signs decision receipts (src/receipts/keys.ts); none: receipt null. */
  readonly receiptKey?: ReceiptKeyMaterial | null;
  /** Called after decisions of `env` were committed (their outbox rows are ready to relay). */
  readonly onCommitted?: (env: Environment) => void;
}

/**
 * Defaults. Deadlines count from the moment the edge received the request. Strict (after the
 * database failed or missed a deadline, until it answers again, at most 30 s without an
 * answer): a cold actor must be built by 150 ms and the decision's batch must reach COMMIT by
 * 175 ms, else the safe decision, so decisions stay inside SPEC.md's 200 ms even when the
 * database hangs. Relaxed (the database has behaved, or answers however slowly):
 * 800 ms and 1 s, so a busy machine's slow moment is answered late rather than wrongly; a
 * database that hangs costs that one wave, then the strict bounds apply. Three missed
 * deadlines in a row, or one connection failure, open the breaker for 250 ms: decisions are
 * then answered at once (safe) until the database answers again. A healthy database commits a
 * batch in about a millisecond.
 */
export const ENGINE_DEFAULTS = Object.freeze({
  maxActorsPerShard: 100_000,
  maxActorBytesPerShard: 1024 * 1024 * 1024,
  poolSize: 4,
  batchRows: 256,
  batchDelayMs: 1,
  commitDeadlineMs: 175,
  loadDeadlineMs: 150,
  relaxedCommitDeadlineMs: 1000,
  relaxedLoadDeadlineMs: 800,
  breakerOpenMs: 250,
});

/**
 * Shares of the edge's answer deadline (EngineOptions.answerDeadlineMs) the engine's deadlines
 * may use at most: a cold actor built by 60 % of it, COMMIT sent by 80 %, leaving the rest for
 * the COMMIT round trip and the way back to the edge. With the default 1 s: 600 / 800 ms
 * relaxed, 150 / 175 ms strict.
 */
export const DEADLINE_SHARES = Object.freeze({ load: 0.6, commit: 0.8 });

interface Waiter {
  readonly request: AuthorizeRequest;
  resolve(reply: DecisionReply): void;
  reject(err: unknown): void;
}

interface Shard {
  readonly index: number;
  run(task: ShardTask): Promise<unknown>;
  destroy(): Promise<void>;
  queue: Waiter[];
  /** Authorizations sent to this shard and not yet answered (queued or in its worker). */
  pending: number;
}

export class ShardedEngine implements DecisionEngine {
  readonly #shards: Shard[];
  readonly #log: Logger;
  readonly #onCommitted: ((env: Environment) => void) | null;
  #flushScheduled = false;
  #closing: Promise<void> | null = null;

  private constructor(options: EngineOptions, shards: Shard[]) {
    this.#log = options.log;
    this.#onCommitted = options.onCommitted ?? null;
    this.#shards = shards;
  }

  /** Starts the shards and waits until every one is up with its connections open. */
  static async start(options: EngineOptions): Promise<ShardedEngine> {
    const coreModule = options.coreModule ?? new URL('../decision/core.js', import.meta.url).href;
    const shards: Shard[] = [];
    if (options.shared !== undefined) {
      // Embedded only: the shard's code is loaded into this thread on demand, so a service with
      // worker threads never loads it here (the thread boundary: .dependency-cruiser.cjs).
      const { decisionCore } = (await import(coreModule)) as { decisionCore: DecisionCore<unknown> };
      const { createShard } = await import('../shard/shard.js');
      const runtime = await createShard(workerData(options, 0, coreModule), decisionCore, options.log, options.shared);
      shards.push({
        index: 0,
        run: async (task) => runtime.handle(task),
        destroy: async () => {},
        queue: [],
        pending: 0,
      });
    } else {
      const filename = new URL('../shard/worker.js', import.meta.url).href;
      for (let i = 0; i < options.workers; i++) {
        const pool = new Piscina<ShardTask, unknown>({
          filename,
          minThreads: 1,
          maxThreads: 1,
          // Idle workers must keep running their event loop (audit commits, deadlines, breaker
          // timers); the default Atomics.wait between tasks would stall them.
          atomics: 'disabled',
          // A batch waiting for its commit must not hold back the next batch.
          concurrentTasksPerWorker: 64,
          idleTimeout: Number.POSITIVE_INFINITY,
          workerData: workerData(options, i, coreModule),
        });
        pool.on('error', (err: unknown) => options.log.error({ err, shard: i }, 'shard worker error'));
        shards.push({
          index: i,
          run: (task) => pool.run(task),
          destroy: () => pool.destroy(),
          queue: [],
          pending: 0,
        });
      }
    }
    const engine = new ShardedEngine(options, shards);
    await engine.stats();
    return engine;
  }

  get shards(): number {
    return this.#shards.length;
  }

  authorize(request: AuthorizeRequest): Promise<DecisionReply> {
    if (this.#closing !== null) return Promise.resolve(toReply(safeDecision(request)));
    return new Promise((resolve, reject) => {
      const shard = this.#shards[shardOf(request.agentId, this.#shards.length)] as Shard;
      shard.queue.push({ request, resolve, reject });
      shard.pending++;
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#flushScheduled = false;
    for (const shard of this.#shards) {
      if (shard.queue.length === 0) continue;
      const waiters = shard.queue;
      shard.queue = [];
      this.#send(shard, waiters);
    }
  }

  /** Sends `waiters` to `shard` as one task and answers each from its result. */
  #send(shard: Shard, waiters: Waiter[]): void {
    const requests = new Array<AuthorizeRequest>(waiters.length);
    for (let i = 0; i < waiters.length; i++) requests[i] = (waiters[i] as Waiter).request;
    shard.run({ kind: 'authorize', requests }).then(
      (results) => {
        shard.pending -= waiters.length;
        const committed = deliver(waiters, results as readonly AuthorizeWireResult[]);
        if (this.#onCommitted !== null) {
          if (committed.live) this.#onCommitted('live');
          if (committed.sandbox) this.#onCommitted('sandbox');
        }
      },
      (err: unknown) => {
        shard.pending -= waiters.length;
        if (waiters.length > 1) {
          // One request must not cost its batch-mates (other tenants) their decisions: a task
          // that failed as a whole (e.g. a request the thread boundary cannot carry) is sent
          // again one request per task, so only the request at fault gets the safe decision.
          this.#log.warn(
            { err, shard: shard.index, requests: waiters.length },
            'shard task failed; retrying one by one',
          );
          for (const w of waiters) {
            shard.pending++;
            this.#send(shard, [w]);
          }
          return;
        }
        this.#log.error({ err, shard: shard.index, requests: 1 }, 'shard task failed; safe decision');
        for (const w of waiters) w.resolve(toReply(safeDecision(w.request)));
      },
    );
  }

  async invalidateAgent(env: Environment, agentId: string): Promise<void> {
    const shard = this.#shards[shardOf(agentId, this.#shards.length)] as Shard;
    await shard.run({ kind: 'invalidateAgent', env, agentId });
  }

  async creditAgent(env: Environment, agentId: string, credit: BudgetCredit): Promise<void> {
    const shard = this.#shards[shardOf(agentId, this.#shards.length)] as Shard;
    await shard.run({ kind: 'creditAgent', env, agentId, credit });
  }

  async invalidatePrincipal(env: Environment, principalId: string): Promise<void> {
    await Promise.all(this.#shards.map((s) => s.run({ kind: 'invalidatePrincipal', env, principalId })));
  }

  /** The actors of the Principal in every shard here give their budget slack back to the pool. */
  async recallBudget(env: Environment, principalId: string): Promise<void> {
    await Promise.all(this.#shards.map((s) => s.run({ kind: 'budgetRecall', env, principalId })));
  }

  /** Every actor of an agent in one of these virtual shards (of `of`) reloads before its next decision. */
  async invalidateShards(shards: readonly number[], of: number): Promise<void> {
    await Promise.all(this.#shards.map((s) => s.run({ kind: 'invalidateShards', shards, of })));
  }

  /** Every shard signs decision receipts with `key` from now on (a receipt key rotation). */
  async setReceiptKey(key: ReceiptKeyMaterial): Promise<void> {
    await Promise.all(this.#shards.map((s) => s.run({ kind: 'receiptKey', key })));
  }

  /** Authorizations sent to each shard and not yet answered, by shard index (for /metrics). */
  queueDepths(): number[] {
    return this.#shards.map((s) => s.pending);
  }

  /** Per-shard counters (actors in memory, commits, rows), for diagnostics and benchmarks. */
  async stats(): Promise<ShardStats[]> {
    return (await Promise.all(this.#shards.map((s) => s.run({ kind: 'stats' })))) as ShardStats[];
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#flushScheduled) this.#flush();
      const started = performance.now();
      await Promise.all(
        this.#shards.map(async (s) => {
          try {
            await s.run({ kind: 'close' });
          } catch (err) {
            this.#log.error({ err, shard: s.index }, 'shard did not close cleanly');
          }
          await s.destroy();
        }),
      );
      this.#log.debug({ ms: performance.now() - started }, 'decision engine stopped');
    })();
    return this.#closing;
  }
}

const REUSE_MESSAGE =
  'This idempotency_key was first used for a different transaction (agent, amount, currency, merchant, mcc, country, rail, crypto, session_id or step_up_confirmed differ).';

/** Answers each waiter; reports which databases received new rows. */
function deliver(waiters: readonly Waiter[], results: readonly AuthorizeWireResult[]): Record<Environment, boolean> {
  const committed = { live: false, sandbox: false };
  for (let i = 0; i < waiters.length; i++) {
    const w = waiters[i] as Waiter;
    const r = results[i];
    if (r === undefined) w.resolve(toReply(safeDecision(w.request)));
    else if (r.kind === 'not_found') w.reject(new ApiError('agent_not_found'));
    else if (r.kind === 'key_reused') w.reject(new ApiError('idempotency_key_reuse', REUSE_MESSAGE));
    else if (r.kind === 'key_expired') w.reject(new ApiError('idempotency_key_expired'));
    else {
      if (r.kind === 'decided' && !r.replayed && w.request.dryRun !== true) committed[w.request.environment] = true;
      w.resolve(r.reply);
    }
  }
  return committed;
}

function workerData(options: EngineOptions, shard: number, coreModule: string): ShardWorkerData {
  const answer = options.answerDeadlineMs;
  const within = (ms: number, share: number): number =>
    answer === undefined ? ms : Math.min(ms, Math.max(1, Math.floor(answer * share)));
  return {
    shard,
    urls: options.urls,
    embedded: options.embedded,
    coreModule,
    maxActors: options.maxActorsPerShard ?? ENGINE_DEFAULTS.maxActorsPerShard,
    maxActorBytes: options.maxActorBytesPerShard ?? ENGINE_DEFAULTS.maxActorBytesPerShard,
    poolSize: options.poolSize ?? ENGINE_DEFAULTS.poolSize,
    batchRows: options.batchRows ?? ENGINE_DEFAULTS.batchRows,
    batchDelayMs: options.batchDelayMs ?? ENGINE_DEFAULTS.batchDelayMs,
    commitDeadlineMs: within(options.commitDeadlineMs ?? ENGINE_DEFAULTS.commitDeadlineMs, DEADLINE_SHARES.commit),
    loadDeadlineMs: within(options.loadDeadlineMs ?? ENGINE_DEFAULTS.loadDeadlineMs, DEADLINE_SHARES.load),
    relaxedCommitDeadlineMs: within(
      options.relaxedCommitDeadlineMs ?? ENGINE_DEFAULTS.relaxedCommitDeadlineMs,
      DEADLINE_SHARES.commit,
    ),
    relaxedLoadDeadlineMs: within(
      options.relaxedLoadDeadlineMs ?? ENGINE_DEFAULTS.relaxedLoadDeadlineMs,
      DEADLINE_SHARES.load,
    ),
    breakerOpenMs: options.breakerOpenMs ?? ENGINE_DEFAULTS.breakerOpenMs,
    answerDeadlineMs: answer,
    connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    logLevel: options.logLevel ?? options.log.level,
    receiptKey: options.receiptKey ?? null,
  };
}
