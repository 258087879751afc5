// One shard's runtime: the actors of the agents hashed to it, its database handles and one
// group committer per database, and the handler of the tasks the main thread sends. It runs in
// a piscina worker thread (src/shard/worker.ts, own connection pools) or, on embedded PGlite,
// in the main thread on the service's own single-connection pools: PGlite serves every
// connection from ONE database session, so messages of several connections interleave and
// clash ("portal does not exist"); there the engine must not open connections of its own.
import { readlinkSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import type { Logger } from 'pino';
import type { AuthorizeRequest, DecisionCore } from '../decision/model/contract.js';
import type { Environment } from '../domain/environment.js';
import { shutdownStep, shutdownStepAtMost } from '../observability/logger.js';
import { LATENCY_BUCKETS_SECONDS, LocalHistogram } from '../observability/metrics.js';
import { ThreadMonitor } from '../observability/thread-monitor.js';
import { useReceiptKey } from '../receipts/signer.js';
import { Breaker } from '../storage/breaker.js';
import { connect, type Sql } from '../storage/db.js';
import { ActorSystem, type ShardDatabase } from './actors.js';
import { GroupCommitter } from './committer.js';
import { DbQueue } from './db-queue.js';
import { KEYS_PER_ACTOR } from './key-memory.js';
import {
  type AuthorizeResult,
  type AuthorizeWireResult,
  type ShardStats,
  type ShardTask,
  type ShardWorkerData,
  toWire,
} from './protocol.js';

/**
 * How long a shard's stop waits for its actors and its committers to be idle, per step, before it
 * ends its pools anyway (a commit takes milliseconds on a database that answers; its decisions
 * are answered by their deadline, about a second, whatever happens to it).
 */
export const SHARD_STEP_BOUND_MS = 5_000;

/** This thread's OS thread id ("<pid>/task/<tid>" on Linux), for per-thread CPU figures; null elsewhere. */
function osThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) ? tid : null;
  } catch {
    return null;
  }
}

/** Pause between two probes of a database the breaker saw fail, in milliseconds. */
const PROBE_INTERVAL_MS = 100;

export interface ShardRuntime {
  handle(task: ShardTask): Promise<readonly AuthorizeWireResult[] | ShardStats | null> | null;
}

/**
 * @param shared the service's own pools (embedded mode): used as they are and not closed here
 */
export async function createShard(
  data: ShardWorkerData,
  core: DecisionCore<unknown>,
  log: Logger,
  shared?: Readonly<Record<Environment, Sql>>,
): Promise<ShardRuntime> {
  let closing = false;
  const threadId = osThreadId();
  // Where an authorization's time goes around this shard (asas_shard_wait_seconds,
  // asas_shard_authorize_seconds): the edge stamps receivedAtMs with Date.now(), so the wait
  // has millisecond resolution; enough for the tail, which is what it is read for.
  const waitSeconds = new LocalHistogram(LATENCY_BUCKETS_SECONDS);
  const authorizeSeconds = new LocalHistogram(LATENCY_BUCKETS_SECONDS);
  const runtime = new ThreadMonitor();
  useReceiptKey(data.receiptKey ?? null);

  /**
   * While the breaker reports failures, one background `select 1` at a time (every
   * PROBE_INTERVAL_MS) finds out when the database is back: the first success closes the
   * breaker and leaves a connection open, so approvals resume as soon as the database answers
   * rather than when a request's load or commit, each bound by a strict deadline, first manages
   * to open connections from scratch.
   */
  function probeWhileFailing(sql: Sql, queue: DbQueue, breaker: Breaker): () => void {
    let probing = false;
    return () => {
      if (probing || closing) return;
      probing = true;
      void (async () => {
        try {
          while (!closing && breaker.failures > 0) {
            await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
            if (closing || breaker.failures === 0) return;
            try {
              await queue.run(() => sql`select 1`);
              breaker.success();
            } catch {
              // still away: try again
            }
          }
        } finally {
          probing = false;
        }
      })();
    };
  }

  function openDatabase(env: Environment): ShardDatabase {
    const sql =
      shared?.[env] ??
      connect(data.urls[env], {
        max: data.embedded ? 1 : data.poolSize,
        embedded: data.embedded,
        connectTimeoutMs: data.connectTimeoutMs,
      });
    const queue = new DbQueue(data.embedded);
    const breaker = new Breaker(data.breakerOpenMs);
    const committer = new GroupCommitter(
      sql,
      queue,
      breaker,
      {
        batchRows: data.batchRows,
        batchDelayMs: data.batchDelayMs,
        deadlineMs: data.commitDeadlineMs,
        relaxedDeadlineMs: data.relaxedCommitDeadlineMs,
        // One transaction at a time on embedded PGlite; on PostgreSQL a second batch may commit
        // while the first waits for its WAL flush.
        maxInFlight: data.embedded ? 1 : 2,
        // On a slow round trip, up to 3: with the default pool of 4, every connection but one
        // (left to actor loads and the probe); not more with a larger pool, since a slow round
        // trip may also be a busy server.
        maxInFlightSlow: data.embedded ? 1 : Math.max(2, Math.min(3, data.poolSize - 1)),
        answerDeadlineMs: data.answerDeadlineMs,
      },
      log.child({ env }),
    );
    breaker.onFailure = probeWhileFailing(sql, queue, breaker);
    // A decision voided after its late commit gave budget back: its actor reloads.
    committer.onVoided = (agentIds) => {
      for (const id of agentIds) actors.invalidateAgent(env, id);
    };
    return { sql, queue, breaker, committer };
  }

  const dbs: Record<Environment, ShardDatabase> = { live: openDatabase('live'), sandbox: openDatabase('sandbox') };
  if (shared === undefined) {
    // Open the pools' connections (and their auth round trips) before the first decisions need
    // them; a database that is down now is retried by the first decision instead.
    await Promise.all(
      (['live', 'sandbox'] as const).map((env) =>
        Promise.all(Array.from({ length: data.embedded ? 1 : data.poolSize }, () => dbs[env].sql`select 1`)).catch(
          (err: unknown) => log.warn({ err, env }, 'database not reachable at start'),
        ),
      ),
    );
  }

  const actors = new ActorSystem(
    core,
    dbs,
    {
      maxActors: data.maxActors,
      maxActorBytes: data.maxActorBytes,
      loadDeadlineMs: data.loadDeadlineMs,
      relaxedLoadDeadlineMs: data.relaxedLoadDeadlineMs,
      keysPerActor: KEYS_PER_ACTOR,
    },
    log,
    data.embedded,
  );

  async function close(): Promise<void> {
    closing = true;
    runtime.stop();
    // Each wait is bounded: a load or a commit sent on a connection that went dark (a partition
    // whose connections are lost) waits on the kernel's keepalive for minutes, and only ending
    // the pools below fails it. Its decisions were answered at their deadline already.
    await shutdownStepAtMost(log, 'shard actors', () => actors.idle(), SHARD_STEP_BOUND_MS);
    await shutdownStepAtMost(log, 'shard actor upkeep', () => actors.upkeepIdle(), SHARD_STEP_BOUND_MS);
    await Promise.all([
      shutdownStepAtMost(log, 'shard live committer', () => dbs.live.committer.idle(), SHARD_STEP_BOUND_MS),
      shutdownStepAtMost(log, 'shard sandbox committer', () => dbs.sandbox.committer.idle(), SHARD_STEP_BOUND_MS),
    ]);
    if (shared === undefined)
      await shutdownStep(log, 'shard pools', () =>
        Promise.all([dbs.live.sql.end({ timeout: 5 }), dbs.sandbox.sql.end({ timeout: 5 })]),
      );
  }

  function stats(): ShardStats {
    const s = [dbs.live.committer.stats, dbs.sandbox.committer.stats];
    return {
      shard: data.shard,
      actors: actors.size,
      actorBytes: actors.bytes,
      busyActors: actors.busySize,
      heapUsedBytes: getHeapStatistics().used_heap_size,
      osThreadId: threadId,
      commits: s.reduce((n, x) => n + x.commits, 0),
      committedRows: s.reduce((n, x) => n + x.committedRows, 0),
      failedCommits: s.reduce((n, x) => n + x.failedCommits, 0),
      voided: s.reduce((n, x) => n + x.voided, 0),
      creditsCounted: actors.credits.counted,
      creditsReloaded: actors.credits.reloaded,
      batchSize: [dbs.live.committer.batchSizes, dbs.sandbox.committer.batchSizes],
      commitSeconds: [dbs.live.committer.commitSeconds, dbs.sandbox.committer.commitSeconds],
      waitSeconds,
      authorizeSeconds,
      runtime: runtime.snapshot(),
    };
  }

  return {
    handle(task) {
      switch (task.kind) {
        case 'authorize': {
          const requests = task.requests;
          const out: Promise<AuthorizeWireResult>[] = new Array(requests.length);
          const takenMs = Date.now();
          const started = performance.now();
          const answered = (r: AuthorizeResult): AuthorizeWireResult => {
            authorizeSeconds.observe((performance.now() - started) / 1000);
            return toWire(r);
          };
          for (let i = 0; i < requests.length; i++) {
            const request = requests[i] as AuthorizeRequest;
            waitSeconds.observe(Math.max(0, takenMs - request.receivedAtMs) / 1000);
            out[i] = actors.authorize(request).then(answered);
          }
          return Promise.all(out);
        }
        case 'invalidateAgent':
          actors.invalidateAgent(task.env, task.agentId);
          return null;
        case 'creditAgent':
          actors.creditAgent(task.env, task.agentId, task.credit);
          return null;
        case 'invalidatePrincipal':
          actors.invalidatePrincipal(task.env, task.principalId);
          return null;
        case 'budgetRecall':
          actors.recallBudget(task.env, task.principalId);
          return null;
        case 'invalidateShards':
          actors.invalidateShards(task.shards, task.of);
          return null;
        case 'receiptKey':
          useReceiptKey(task.key);
          return null;
        case 'stats':
          return Promise.resolve(stats());
        case 'close':
          return close().then(() => null);
      }
    },
  };
}
