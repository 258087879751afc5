// Every metric the service exposes at GET /metrics (ServiceMetrics), its buckets, and what the
// shard workers report for it. The families and the registry are in ./prometheus.ts (prom-client
// underneath, read at scrape time); the process and runtime metrics in ./node-metrics.ts.

import { GC_PAUSE_BUCKETS_SECONDS, nodeMetrics } from './node-metrics.js';
import { type LocalHistogramData, Registry } from './prometheus.js';
import type { ThreadSnapshot } from './thread-monitor.js';

export {
  Counter,
  CounterChild,
  Gauge,
  type GaugeSample,
  Histogram,
  HistogramChild,
  type LabelValues,
  LocalHistogram,
  type LocalHistogramData,
  type MetricFamily,
  PROMETHEUS_CONTENT_TYPE,
  Registry,
} from './prometheus.js';

/** Latency buckets in seconds: 100 µs to 2.5 s, dense below 10 ms where decisions live. */
export const LATENCY_BUCKETS_SECONDS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5,
];
export const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/** What a shard worker reports on request (the engine's stats task), read at scrape time. */
export interface ShardMetricsSnapshot {
  readonly shard: number;
  /** Actors held in the shard's LRU. */
  readonly actors: number;
  /** Their estimated bytes (the LRU's byte bound counts these). */
  readonly actorBytes?: number;
  /** V8 heap used by the shard's thread. */
  readonly heapUsedBytes?: number;
  /** The shard thread's OS thread id (Linux), null elsewhere. */
  readonly osThreadId?: number | null;
  /** Group commits that succeeded, rows they committed, commits that failed (cumulative). */
  readonly commits: number;
  readonly committedRows: number;
  readonly failedCommits: number;
  /** Decisions recorded after their answer was the safe DECLINE, then voided (cumulative). */
  readonly voided?: number;
  /** Budget credits counted by a loaded actor in memory, and those that made it reload (cumulative). */
  readonly creditsCounted?: number;
  readonly creditsReloaded?: number;
  /** Per-batch figures kept with LocalHistogram(BATCH_SIZE_BUCKETS / LATENCY_BUCKETS_SECONDS). */
  readonly batchSize?: readonly LocalHistogramData[];
  readonly commitSeconds?: readonly LocalHistogramData[];
  /** Edge to shard (thread hop and queue) and shard to answer, per authorization. */
  readonly waitSeconds?: LocalHistogramData;
  readonly authorizeSeconds?: LocalHistogramData;
  /** GC pauses and event-loop delay of the shard's thread. */
  readonly runtime?: ThreadSnapshot;
}

/** Audit group-commit figures a shard worker returns with each batch (or on request). */
export interface AuditBatchStats {
  /** Rows committed in the batch. */
  readonly size: number;
  /** Time from BEGIN to COMMIT acknowledged, in seconds. */
  readonly commitSeconds: number;
  /** Whether the commit succeeded. */
  readonly ok: boolean;
}

/**
 * Every metric the service exposes, with typed helpers for the areas that record them.
 * The engine and events areas call the helpers (decision, auditBatch, webhookDelivery) or
 * register collectors read at scrape time (outboxBacklog, actorCacheSize, shardQueueDepth).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly httpRequests = this.registry.counter(
    'asas_http_requests_total',
    'HTTP requests answered, by route template (unmatched for a request no route matched), method and status (499: the client went away before the answer).',
    ['route', 'method', 'status'],
  );
  readonly httpDuration = this.registry.histogram(
    'asas_http_request_duration_seconds',
    'Time from the request reaching the edge to the answer being written, by route template.',
    LATENCY_BUCKETS_SECONDS,
    ['route'],
  );
  readonly httpInFlight = this.registry.gauge(
    'asas_http_requests_in_flight',
    'Requests accepted and not yet answered.',
  );
  readonly decisions = this.registry.counter(
    'asas_decisions_total',
    'Authorization decisions answered, by decision and by the first gate fired (none when no gate fired).',
    ['decision', 'gate'],
  );
  readonly dryRuns = this.registry.counter(
    'asas_dry_runs_total',
    "Dry runs of POST /authorize/explain answered, by what they disclosed (full: the Principal's full credential; verdict: a narrower one; refused: over the narrower credentials' dry-run limit).",
    ['disclosure'],
  );
  readonly fairShareRefused = this.registry.counter(
    'asas_fair_share_refused_total',
    'Decisions refused 429 because the instance was busy and the tenant already held its share of the decisions in flight, by level (client or principal).',
    ['level'],
  );
  readonly fairSharePaceLimit = this.registry.gauge(
    'asas_fair_share_pace_limit',
    'The in-flight limit of the tenant with most demand while the machine has no CPU to spare and others are active (the fair-share capacity: not paced), by level (client or principal).',
    ['level'],
  );
  readonly decisionsInFlight = this.registry.gauge(
    'asas_decisions_in_flight',
    'Decisions handed to the engine on this instance and not yet answered (fair share counts them).',
  );
  readonly rangeReports = this.registry.counter(
    'asas_range_reports_total',
    'Backtests and shadow reports run, by the thread that ran them (worker: the range worker, off the thread that answers /authorize; main: embedded PGlite, whose database runs on the main thread anyway).',
    ['thread'],
  );
  readonly gatesFired = this.registry.counter(
    'asas_gates_fired_total',
    'Gates fired in answered decisions (a decision can fire several), by gate and decision.',
    ['gate', 'decision'],
  );
  readonly decisionDuration = this.registry.histogram(
    'asas_decision_duration_seconds',
    'POST /authorize latency from the edge receiving the request to the decision being answered (audit committed).',
    LATENCY_BUCKETS_SECONDS,
  );
  readonly auditBatchSize = this.registry.histogram(
    'asas_audit_batch_size',
    'Audit rows per group commit, by shard.',
    BATCH_SIZE_BUCKETS,
    ['shard'],
  );
  readonly auditCommitDuration = this.registry.histogram(
    'asas_audit_commit_duration_seconds',
    'Audit group-commit latency (BEGIN to COMMIT), by shard.',
    LATENCY_BUCKETS_SECONDS,
    ['shard'],
  );
  readonly auditCommits = this.registry.counter(
    'asas_audit_commits_total',
    'Audit group commits that succeeded, by shard.',
    ['shard'],
  );
  readonly auditRowsCommitted = this.registry.counter(
    'asas_audit_rows_committed_total',
    'Audit rows committed (answered decisions made durable), by shard.',
    ['shard'],
  );
  readonly auditCommitFailures = this.registry.counter(
    'asas_audit_commit_failures_total',
    'Audit group commits that failed (their decisions were answered as safe declines), by shard.',
    ['shard'],
  );
  readonly auditVoids = this.registry.counter(
    'asas_audit_voids_total',
    'Decisions a group commit recorded after the edge had answered them with the safe DECLINE (the in-doubt window), voided since: an APPROVE gave its amount and count back (authorization.voided), by shard.',
    ['shard'],
  );
  readonly budgetCredits = this.registry.counter(
    'asas_budget_credits_total',
    'Budget credits (holds released, expired or partly captured, refunds) told to an agent actor held here, by shard and outcome: counted (in memory, or already in its state) or reload (the actor reloads before its next decision).',
    ['shard', 'outcome'],
  );
  readonly outboxBacklog = this.registry.gauge(
    'asas_outbox_backlog',
    'Events recorded in the outbox and not yet published, by environment.',
    ['env'],
  );
  readonly webhookDeliveries = this.registry.counter(
    'asas_webhook_deliveries_total',
    'Webhook delivery attempts, by outcome: success, http_error (a non-2xx answer) or no_response (timeout, refused connection, blocked address).',
    ['outcome'],
  );
  readonly actorCacheSize = this.registry.gauge('asas_actor_cache_size', 'Agent actors held in memory, by shard.', [
    'shard',
  ]);
  readonly actorCacheBytes = this.registry.gauge(
    'asas_actor_cache_bytes',
    'Estimated bytes of the agent actors held in memory (what the byte bound counts), by shard.',
    ['shard'],
  );
  readonly shardHeapBytes = this.registry.gauge(
    'asas_shard_heap_used_bytes',
    "V8 heap used by a shard worker's thread, by shard.",
    ['shard'],
  );
  readonly shardWait = this.registry.histogram(
    'asas_shard_wait_seconds',
    'Time from the edge receiving an authorization to its shard taking it (the thread hop and the wait for the shard), by shard; millisecond resolution.',
    LATENCY_BUCKETS_SECONDS,
    ['shard'],
  );
  readonly shardAuthorize = this.registry.histogram(
    'asas_shard_authorize_seconds',
    'Time from a shard taking an authorization to its answer leaving the shard (the decision, the wait for its group commit and the commit), by shard.',
    LATENCY_BUCKETS_SECONDS,
    ['shard'],
  );
  readonly shardGc = this.registry.histogram(
    'asas_shard_gc_duration_seconds',
    "Garbage collection pauses of a shard's thread in seconds, by shard and kind (major, minor, incremental, weakcb).",
    GC_PAUSE_BUCKETS_SECONDS,
    ['shard', 'kind'],
  );
  readonly shardLoopP99 = this.registry.gauge(
    'asas_shard_eventloop_lag_p99_seconds',
    "99th percentile of a shard thread's event-loop delay (sampled every 10 ms) since the previous scrape, by shard.",
    ['shard'],
  );
  readonly shardLoopMax = this.registry.gauge(
    'asas_shard_eventloop_lag_max_seconds',
    "Largest event-loop delay of a shard's thread since the previous scrape, by shard.",
    ['shard'],
  );
  readonly shardThreadId = this.registry.gauge(
    'asas_shard_os_thread_id',
    "OS thread id of a shard's thread (Linux; the process id when the shard runs on the main thread), by shard: names the thread in top -H or /proc/<pid>/task.",
    ['shard'],
  );
  readonly shardQueueDepth = this.registry.gauge(
    'asas_shard_queue_depth',
    'Authorizations sent to a shard and not yet answered, by shard.',
    ['shard'],
  );
  readonly clusterShardsOwned = this.registry.gauge(
    'asas_cluster_shards_owned',
    'Virtual shards (of 1024) this instance decides for; several instances on one database only.',
  );
  readonly clusterRoutes = this.registry.counter(
    'asas_cluster_authorizations_total',
    'Authorizations (dry runs of /authorize/explain included) by route: decided here as the owner (local), sent to the owner (forwarded), or answered safe for want of an owner (unowned).',
    ['route'],
  );
  readonly processHeapBytes = this.registry.gauge('asas_process_heap_used_bytes', 'V8 heap used on the main thread.');
  readonly processUptime = this.registry.gauge('asas_process_uptime_seconds', 'Seconds since the process started.');

  constructor() {
    // prom-client's process and runtime metrics (asas_process_*, asas_nodejs_*), among them
    // asas_process_resident_memory_bytes, which this class exposed itself before.
    this.registry.include(nodeMetrics());
    this.processHeapBytes.collect(() => [[[], process.memoryUsage().heapUsed]]);
    this.processUptime.collect(() => [[[], process.uptime()]]);
  }

  /** Records one answered decision (call once per answered POST /authorize, replays included). */
  decision(decision: string, gatesFired: readonly string[] | undefined, seconds: number): void {
    const first = gatesFired !== undefined && gatesFired.length > 0 ? (gatesFired[0] as string) : 'none';
    this.decisions.labels(decision, first).inc();
    if (gatesFired !== undefined) for (const g of gatesFired) this.gatesFired.labels(g, decision).inc();
    this.decisionDuration.observe(seconds);
  }

  /** Records one audit group commit of a shard (figures returned by the worker). */
  auditBatch(shard: number | string, stats: AuditBatchStats): void {
    const s = String(shard);
    this.auditBatchSize.labels(s).observe(stats.size);
    this.auditCommitDuration.labels(s).observe(stats.commitSeconds);
    if (stats.ok) {
      this.auditCommits.labels(s).inc();
      this.auditRowsCommitted.labels(s).inc(stats.size);
    } else this.auditCommitFailures.labels(s).inc();
  }

  /**
   * Loads the cumulative figures of every shard worker (collected at scrape time). Use this
   * or auditBatch() for the audit figures, not both.
   */
  shardStats(stats: readonly ShardMetricsSnapshot[]): void {
    for (const s of stats) {
      const shard = String(s.shard);
      this.actorCacheSize.set(s.actors, shard);
      if (s.actorBytes !== undefined) this.actorCacheBytes.set(s.actorBytes, shard);
      if (s.heapUsedBytes !== undefined) this.shardHeapBytes.set(s.heapUsedBytes, shard);
      if (s.osThreadId !== undefined && s.osThreadId !== null) this.shardThreadId.set(s.osThreadId, shard);
      this.auditCommits.labels(shard).value = s.commits;
      this.auditRowsCommitted.labels(shard).value = s.committedRows;
      this.auditCommitFailures.labels(shard).value = s.failedCommits;
      if (s.voided !== undefined) this.auditVoids.labels(shard).value = s.voided;
      if (s.creditsCounted !== undefined) this.budgetCredits.labels(shard, 'counted').value = s.creditsCounted;
      if (s.creditsReloaded !== undefined) this.budgetCredits.labels(shard, 'reload').value = s.creditsReloaded;
      if (s.batchSize !== undefined) this.auditBatchSize.labels(shard).load(s.batchSize);
      if (s.commitSeconds !== undefined) this.auditCommitDuration.labels(shard).load(s.commitSeconds);
      if (s.waitSeconds !== undefined) this.shardWait.labels(shard).load([s.waitSeconds]);
      if (s.authorizeSeconds !== undefined) this.shardAuthorize.labels(shard).load([s.authorizeSeconds]);
      if (s.runtime !== undefined) {
        for (const [kind, h] of Object.entries(s.runtime.gcSeconds)) this.shardGc.labels(shard, kind).load([h]);
        if (s.runtime.loopDelayP99Seconds !== null) this.shardLoopP99.set(s.runtime.loopDelayP99Seconds, shard);
        if (s.runtime.loopDelayMaxSeconds !== null) this.shardLoopMax.set(s.runtime.loopDelayMaxSeconds, shard);
      }
    }
  }

  webhookDelivery(outcome: string): void {
    this.webhookDeliveries.labels(outcome).inc();
  }

  /** The exposition as it stands, without the scrape-time refresh. */
  render(): Promise<string> {
    return this.registry.render();
  }

  /** Refreshes the scrape-time figures (worker stats, backlog queries), then renders. */
  collect(): Promise<string> {
    return this.registry.collect();
  }
}
