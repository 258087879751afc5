// A small Prometheus registry: counters, gauges and histograms with fixed buckets and labels,
// rendered in the text exposition format 0.0.4 at GET /metrics. Cheap on the hot path: a
// labelled child is looked up once (Map by joined label values) and callers on hot paths may
// keep the child; observe() is a short linear scan over a Float64Array of buckets.
// Gauges can also be collectors, read only at scrape time (queue depths, cache sizes of other
// threads), so nothing is sampled between scrapes.

export type LabelValues = readonly string[];

interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  render(out: string[]): void;
}

const SEP = '\u0001';

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(names: readonly string[], values: LabelValues, extra?: string): string {
  if (names.length === 0 && extra === undefined) return '';
  const parts: string[] = [];
  for (let i = 0; i < names.length; i++) parts.push(`${names[i]}="${escapeLabel(values[i] ?? '')}"`);
  if (extra !== undefined) parts.push(extra);
  return `{${parts.join(',')}}`;
}

function num(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(v);
}

function checkLabels(name: string, names: readonly string[], values: LabelValues): void {
  if (values.length !== names.length) {
    throw new Error(`metric ${name}: expected ${names.length} label values, got ${values.length}`);
  }
}

export class CounterChild {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
}

export class Counter implements Family {
  readonly type = 'counter' as const;
  readonly #children = new Map<string, { values: LabelValues; child: CounterChild }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[] = [],
  ) {}

  labels(...values: string[]): CounterChild {
    const key = values.join(SEP);
    let e = this.#children.get(key);
    if (e === undefined) {
      checkLabels(this.name, this.labelNames, values);
      e = { values, child: new CounterChild() };
      this.#children.set(key, e);
    }
    return e.child;
  }

  inc(n = 1): void {
    this.labels().inc(n);
  }

  /** Current value of one series (0 when never incremented). */
  get(...values: string[]): number {
    return this.#children.get(values.join(SEP))?.child.value ?? 0;
  }

  render(out: string[]): void {
    for (const { values, child } of this.#children.values()) {
      out.push(`${this.name}${labelText(this.labelNames, values)} ${num(child.value)}`);
    }
  }
}

export type GaugeSample = readonly [LabelValues, number];

export class Gauge implements Family {
  readonly type = 'gauge' as const;
  readonly #values = new Map<string, { values: LabelValues; value: number }>();
  readonly #collectors: (() => Iterable<GaugeSample>)[] = [];
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[] = [],
  ) {}

  set(value: number, ...values: string[]): void {
    const key = values.join(SEP);
    const e = this.#values.get(key);
    if (e !== undefined) e.value = value;
    else {
      checkLabels(this.name, this.labelNames, values);
      this.#values.set(key, { values, value });
    }
  }

  inc(n = 1, ...values: string[]): void {
    const e = this.#values.get(values.join(SEP));
    this.set((e?.value ?? 0) + n, ...values);
  }

  /** Registers a function read at scrape time; it returns [label values, value] samples. */
  collect(fn: () => Iterable<GaugeSample>): void {
    this.#collectors.push(fn);
  }

  render(out: string[]): void {
    const seen = new Map<string, { values: LabelValues; value: number }>(this.#values);
    for (const fn of this.#collectors) {
      let samples: Iterable<GaugeSample>;
      try {
        samples = fn();
      } catch {
        continue; // a failing collector must never break the scrape
      }
      for (const [values, value] of samples) {
        checkLabels(this.name, this.labelNames, values);
        seen.set(values.join(SEP), { values, value });
      }
    }
    for (const { values, value } of seen.values()) {
      out.push(`${this.name}${labelText(this.labelNames, values)} ${num(value)}`);
    }
  }
}

/**
 * A histogram kept on another thread (a shard worker): plain data that survives structured
 * cloning, returned with the worker's stats and loaded into a HistogramChild at scrape time.
 */
export class LocalHistogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length).fill(0);
  }

  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > (b[i] as number)) i++;
    if (i < b.length) this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += v;
    this.count++;
  }
}

export interface LocalHistogramData {
  readonly bounds: readonly number[];
  readonly counts: readonly number[];
  readonly sum: number;
  readonly count: number;
}

export class HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly bounds: Float64Array) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(v: number): void {
    const b = this.bounds;
    // Non-cumulative per-bucket counts; made cumulative at render time.
    let i = 0;
    while (i < b.length && v > (b[i] as number)) i++;
    if (i < b.length) (this.counts as Float64Array)[i] = (this.counts[i] as number) + 1;
    this.sum += v;
    this.count++;
  }

  /** Replaces the content with the sum of snapshots taken elsewhere (same bounds). */
  load(snapshots: readonly LocalHistogramData[]): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
    for (const s of snapshots) {
      for (let i = 0; i < this.counts.length; i++) this.counts[i] = (this.counts[i] as number) + (s.counts[i] ?? 0);
      this.sum += s.sum;
      this.count += s.count;
    }
  }
}

export class Histogram implements Family {
  readonly type = 'histogram' as const;
  readonly bounds: Float64Array;
  readonly #children = new Map<string, { values: LabelValues; child: HistogramChild }>();
  constructor(
    readonly name: string,
    readonly help: string,
    buckets: readonly number[],
    readonly labelNames: readonly string[] = [],
  ) {
    const sorted = [...buckets].sort((a, b) => a - b);
    this.bounds = Float64Array.from(sorted);
  }

  labels(...values: string[]): HistogramChild {
    const key = values.join(SEP);
    let e = this.#children.get(key);
    if (e === undefined) {
      checkLabels(this.name, this.labelNames, values);
      e = { values, child: new HistogramChild(this.bounds) };
      this.#children.set(key, e);
    }
    return e.child;
  }

  observe(v: number): void {
    this.labels().observe(v);
  }

  render(out: string[]): void {
    for (const { values, child } of this.#children.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += child.counts[i] as number;
        const le = `le="${num(this.bounds[i] as number)}"`;
        out.push(`${this.name}_bucket${labelText(this.labelNames, values, le)} ${cumulative}`);
      }
      out.push(`${this.name}_bucket${labelText(this.labelNames, values, 'le="+Inf"')} ${child.count}`);
      out.push(`${this.name}_sum${labelText(this.labelNames, values)} ${num(child.sum)}`);
      out.push(`${this.name}_count${labelText(this.labelNames, values)} ${child.count}`);
    }
  }
}

export class Registry {
  readonly #families = new Map<string, Family>();
  readonly #refreshers: (() => Promise<void>)[] = [];

  /** Registers an asynchronous refresh run before each scrape (worker stats, database counts). */
  beforeScrape(fn: () => Promise<void>): void {
    this.#refreshers.push(fn);
  }

  /** Runs the refreshers (each bounded by `timeoutMs`; a failing one is skipped), then renders. */
  async collect(timeoutMs = 5000): Promise<string> {
    await Promise.all(
      this.#refreshers.map((fn) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        });
        return Promise.race([fn().catch(() => {}), timeout]).finally(() => clearTimeout(timer));
      }),
    );
    return this.render();
  }

  #add<F extends Family>(f: F): F {
    if (this.#families.has(f.name)) throw new Error(`metric ${f.name} registered twice`);
    this.#families.set(f.name, f);
    return f;
  }

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.#add(new Counter(name, help, labelNames));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.#add(new Gauge(name, help, labelNames));
  }

  histogram(name: string, help: string, buckets: readonly number[], labelNames: readonly string[] = []): Histogram {
    return this.#add(new Histogram(name, help, buckets, labelNames));
  }

  /** The Prometheus text exposition format (version 0.0.4). */
  render(): string {
    const out: string[] = [];
    for (const f of this.#families.values()) {
      out.push(`# HELP ${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
      out.push(`# TYPE ${f.name} ${f.type}`);
      f.render(out);
    }
    return `${out.join('\n')}\n`;
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

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
  /** Group commits that succeeded, rows they committed, commits that failed (cumulative). */
  readonly commits: number;
  readonly committedRows: number;
  readonly failedCommits: number;
  /** Per-batch figures kept with LocalHistogram(BATCH_SIZE_BUCKETS / LATENCY_BUCKETS_SECONDS). */
  readonly batchSize?: readonly LocalHistogramData[];
  readonly commitSeconds?: readonly LocalHistogramData[];
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
    'HTTP requests answered, by route template, method and status.',
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
  readonly outboxBacklog = this.registry.gauge(
    'asas_outbox_backlog',
    'Events recorded in the outbox and not yet published, by environment.',
    ['env'],
  );
  readonly webhookDeliveries = this.registry.counter(
    'asas_webhook_deliveries_total',
    'Webhook delivery attempts, by outcome (success, http_error, no_response).',
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
  readonly shardQueueDepth = this.registry.gauge(
    'asas_shard_queue_depth',
    'Authorizations sent to a shard and not yet answered, by shard.',
    ['shard'],
  );
  readonly processResidentBytes = this.registry.gauge(
    'asas_process_resident_memory_bytes',
    'Resident set size of the process.',
  );
  readonly clusterShardsOwned = this.registry.gauge(
    'asas_cluster_shards_owned',
    'Virtual shards (of 1024) this instance decides for; several instances on one database only.',
  );
  readonly clusterRoutes = this.registry.counter(
    'asas_cluster_authorizations_total',
    'Authorizations by route: decided here as the owner (local), sent to the owner (forwarded), or answered safe for want of an owner (unowned).',
    ['route'],
  );
  readonly processHeapBytes = this.registry.gauge('asas_process_heap_used_bytes', 'V8 heap used on the main thread.');
  readonly processUptime = this.registry.gauge('asas_process_uptime_seconds', 'Seconds since the process started.');

  constructor() {
    this.processResidentBytes.collect(() => [[[], process.memoryUsage.rss()]]);
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
      this.auditCommits.labels(shard).value = s.commits;
      this.auditRowsCommitted.labels(shard).value = s.committedRows;
      this.auditCommitFailures.labels(shard).value = s.failedCommits;
      if (s.batchSize !== undefined) this.auditBatchSize.labels(shard).load(s.batchSize);
      if (s.commitSeconds !== undefined) this.auditCommitDuration.labels(shard).load(s.commitSeconds);
    }
  }

  webhookDelivery(outcome: string): void {
    this.webhookDeliveries.labels(outcome).inc();
  }

  render(): string {
    return this.registry.render();
  }

  /** Refreshes the scrape-time figures (worker stats, backlog queries), then renders. */
  collect(): Promise<string> {
    return this.registry.collect();
  }
}
