// Counters, gauges and histograms for GET /metrics, exposed through prom-client: prom-client
// owns the registry (unique names), the metric families, HELP and TYPE, label escaping and
// the text exposition format; the hot path never calls it.
//
// Why not prom-client's own labelled children on the hot path: `counter.labels(...).inc()`
// builds a label object, validates it and hashes it into a string key on every call, and a
// histogram observe does the same plus a bucket lookup in an object keyed by bound; an earlier
// attempt that did so measured +0.9 µs per POST /authorize. So the request path keeps writing
// plain in-process values (a CounterChild's number, a HistogramChild's Float64Array of bucket
// counts, a shard worker's LocalHistogram shipped as data), found once per series by a Map
// lookup, and each prom-client metric reads them in its `collect()` callback at scrape time.
//
// prom-client is loaded on first use, not imported: the shard workers load this module for
// LocalHistogram (src/shard/committer.ts, through ./metrics.ts) and must not pay for it
// (loading it costs a thread ~1.7 MB of heap, ~10 MB resident and 70-140 ms, Node 20, this VM).

import { createRequire } from 'node:module';
import type { Metric, Counter as PromCounter, Gauge as PromGauge, Registry as PromRegistry } from 'prom-client';

type PromClient = typeof import('prom-client');
const requireCjs = createRequire(import.meta.url);
let loaded: PromClient | undefined;

/** prom-client, loaded on the first call. */
export function promClient(): PromClient {
  loaded ??= requireCjs('prom-client') as PromClient;
  return loaded;
}

export type LabelValues = readonly string[];
type LabelObject = Record<string, string>;

const SEP = '\u0001';

/** The text exposition format prom-client writes (its Registry.PROMETHEUS_CONTENT_TYPE). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function checkLabels(name: string, names: readonly string[], values: LabelValues): void {
  if (values.length !== names.length) {
    throw new Error(`metric ${name}: expected ${names.length} label values, got ${values.length}`);
  }
}

function labelObject(names: readonly string[], values: LabelValues): LabelObject {
  const o: LabelObject = {};
  for (let i = 0; i < names.length; i++) o[names[i] as string] = values[i] ?? '';
  return o;
}

interface Series<C> {
  readonly labels: LabelObject;
  readonly child: C;
}

export class CounterChild {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
}

export class Counter {
  readonly type = 'counter' as const;
  readonly #children = new Map<string, Series<CounterChild>>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    registry: PromRegistry,
  ) {
    const children = this.#children;
    const metric: PromCounter<string> = new (promClient().Counter)({
      name,
      help,
      labelNames,
      registers: [registry],
      // Scrape time: the counter's value is whatever our children hold now.
      collect() {
        metric.reset();
        for (const { labels, child } of children.values()) metric.inc(labels, child.value);
      },
    });
  }

  labels(...values: string[]): CounterChild {
    const key = values.join(SEP);
    let e = this.#children.get(key);
    if (e === undefined) {
      checkLabels(this.name, this.labelNames, values);
      e = { labels: labelObject(this.labelNames, values), child: new CounterChild() };
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
}

export type GaugeSample = readonly [LabelValues, number];

export class Gauge {
  readonly type = 'gauge' as const;
  readonly #values = new Map<string, { values: LabelValues; value: number }>();
  readonly #collectors: (() => Iterable<GaugeSample>)[] = [];
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    registry: PromRegistry,
  ) {
    const metric: PromGauge<string> = new (promClient().Gauge)({
      name,
      help,
      labelNames,
      registers: [registry],
      collect: () => {
        metric.reset();
        for (const { values, value } of this.#samples()) {
          // prom-client throws on a non-number, which would fail the whole scrape.
          if (typeof value === 'number') metric.set(labelObject(labelNames, values), value);
        }
      },
    });
  }

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

  /** Values set, overridden by the collectors' samples of the same labels. */
  #samples(): Iterable<{ values: LabelValues; value: number }> {
    const seen = new Map(this.#values);
    for (const fn of this.#collectors) {
      try {
        for (const [values, value] of fn()) {
          checkLabels(this.name, this.labelNames, values);
          seen.set(values.join(SEP), { values, value });
        }
      } catch {
        // a failing collector must never break the scrape
      }
    }
    return seen.values();
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
    // Non-cumulative per-bucket counts; made cumulative at scrape time.
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

/** One sample as prom-client's `get()` returns it (its MetricValueWithName). */
interface SampleValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName: string;
}

/**
 * A histogram whose bucket counts are computed by us (HistogramChild, or the sum of shard
 * workers' snapshots). prom-client's Histogram has no public way to load precomputed bucket
 * counts (only observe(), one value at a time; its per-series state is private), so this
 * family is registered with prom-client as a metric object that answers `get()` with
 * prom-client's own sample format: the shape `Registry.getMetricsAsJSON()` produces and
 * `AggregatorRegistry.aggregate()` registers back for figures gathered in other processes.
 * prom-client still writes HELP/TYPE, escapes labels and formats the numbers.
 */
export class Histogram {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  readonly bounds: Float64Array;
  readonly #children = new Map<string, Series<HistogramChild>>();
  constructor(
    readonly name: string,
    readonly help: string,
    buckets: readonly number[],
    readonly labelNames: readonly string[],
    registry: PromRegistry,
  ) {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new Error(`metric ${name}: invalid metric name`);
    if (labelNames.includes('le')) throw new Error(`metric ${name}: le is a reserved label`);
    this.bounds = Float64Array.from([...buckets].sort((a, b) => a - b));
    // Not one of prom-client's classes, hence the cast; the registry only calls get() and reset().
    registry.registerMetric(this as unknown as Metric);
  }

  labels(...values: string[]): HistogramChild {
    const key = values.join(SEP);
    let e = this.#children.get(key);
    if (e === undefined) {
      checkLabels(this.name, this.labelNames, values);
      e = { labels: labelObject(this.labelNames, values), child: new HistogramChild(this.bounds) };
      this.#children.set(key, e);
    }
    return e.child;
  }

  observe(v: number): void {
    this.labels().observe(v);
  }

  /** prom-client's metric interface: the samples at scrape time. */
  async get(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    aggregator: 'sum';
    values: SampleValue[];
  }> {
    const bucket = `${this.name}_bucket`;
    const values: SampleValue[] = [];
    for (const { labels, child } of this.#children.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += child.counts[i] as number;
        values.push({ value: cumulative, labels: { ...labels, le: this.bounds[i] as number }, metricName: bucket });
      }
      values.push({ value: child.count, labels: { ...labels, le: '+Inf' }, metricName: bucket });
      values.push({ value: child.sum, labels, metricName: `${this.name}_sum` });
      values.push({ value: child.count, labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** prom-client's metric interface (Registry.resetMetrics). */
  reset(): void {
    for (const { child } of this.#children.values()) child.load([]);
  }
}

/** One metric family as the reference page (docs/metrics.md) lists it. */
export interface MetricFamily {
  readonly name: string;
  readonly type: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** A histogram's bucket bounds (without +Inf); null for other types. */
  readonly buckets: readonly number[] | null;
  /** false: registered by this registry; true: from an included one (the runtime metrics). */
  readonly included: boolean;
}

/** Reads a family off a prom-client metric or one of ours (Histogram registers itself as one). */
function familyOf(metric: object, included: boolean): MetricFamily {
  const m = metric as {
    name: string;
    help: string;
    type: unknown;
    labelNames?: readonly string[];
    upperBounds?: readonly number[];
    bounds?: Float64Array;
  };
  const buckets = m.bounds !== undefined ? Array.from(m.bounds) : (m.upperBounds ?? null);
  return {
    name: m.name,
    type: String(m.type),
    help: m.help,
    labelNames: [...(m.labelNames ?? [])],
    buckets: m.type === 'histogram' ? buckets : null,
    included,
  };
}

export class Registry {
  /** The prom-client registry that renders the exposition; other prom-client metrics may join it. */
  readonly prom: PromRegistry = new (promClient().Registry)();
  readonly #refreshers: (() => Promise<void>)[] = [];
  readonly #included: PromRegistry[] = [];

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

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return new Counter(this.#free(name), help, labelNames, this.prom);
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return new Gauge(this.#free(name), help, labelNames, this.prom);
  }

  histogram(name: string, help: string, buckets: readonly number[], labelNames: readonly string[] = []): Histogram {
    return new Histogram(this.#free(name), help, buckets, labelNames, this.prom);
  }

  /** prom-client refuses a name registered twice in one registry; this covers the included ones. */
  #free(name: string): string {
    for (const r of this.#included) {
      if (r.getSingleMetric(name) !== undefined) throw new Error(`metric ${name} is already registered`);
    }
    return name;
  }

  /**
   * Adds the metrics of another prom-client registry (the thread's runtime metrics) to this
   * one's exposition; a name in both is refused here rather than at the first scrape.
   */
  include(other: PromRegistry): void {
    promClient().Registry.merge([this.prom, ...this.#included, other]);
    this.#included.push(other);
  }

  /** Every family the exposition holds: this registry's, then the included ones', in order of registration. */
  families(): MetricFamily[] {
    return [
      ...this.prom.getMetricsAsArray().map((m) => familyOf(m, false)),
      ...this.#included.flatMap((r) => r.getMetricsAsArray().map((m) => familyOf(m, true))),
    ];
  }

  /** The Prometheus text exposition format (version 0.0.4), written by prom-client. */
  render(): Promise<string> {
    if (this.#included.length === 0) return this.prom.metrics();
    return promClient()
      .Registry.merge([this.prom, ...this.#included])
      .metrics();
  }
}
