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
const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

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
    'Webhook delivery attempts, by outcome (success, failure, timeout, disabled, ...).',
    ['outcome'],
  );
  readonly actorCacheSize = this.registry.gauge('asas_actor_cache_size', 'Agent actors held in memory, by shard.', [
    'shard',
  ]);
  readonly shardQueueDepth = this.registry.gauge(
    'asas_shard_queue_depth',
    'Authorizations sent to a shard and not yet answered, by shard.',
    ['shard'],
  );
  readonly processResidentBytes = this.registry.gauge(
    'asas_process_resident_memory_bytes',
    'Resident set size of the process.',
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
    if (!stats.ok) this.auditCommitFailures.labels(s).inc();
  }

  webhookDelivery(outcome: string): void {
    this.webhookDeliveries.labels(outcome).inc();
  }

  render(): string {
    return this.registry.render();
  }
}
