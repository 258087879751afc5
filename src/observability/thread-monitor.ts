// GC pauses and event-loop delay of a thread without prom-client (a shard worker): the figures
// are kept in plain numbers on the thread and shipped as data with the shard's stats, which
// the main thread loads into /metrics at scrape time (asas_shard_gc_duration_seconds,
// asas_shard_eventloop_lag_p99_seconds, asas_shard_eventloop_lag_max_seconds).
import {
  type IntervalHistogram,
  monitorEventLoopDelay,
  type PerformanceEntry,
  PerformanceObserver,
} from 'node:perf_hooks';
import { GC_KINDS, GC_PAUSE_BUCKETS_SECONDS } from './node-metrics.js';
import { LocalHistogram, type LocalHistogramData } from './prometheus.js';

export interface ThreadSnapshot {
  /** GC pauses of the thread by kind (major, minor, incremental, weakcb), cumulative. */
  readonly gcSeconds: Readonly<Record<string, LocalHistogramData>>;
  /** Event-loop delay since the previous snapshot, seconds (null before any sample). */
  readonly loopDelayP99Seconds: number | null;
  readonly loopDelayMaxSeconds: number | null;
}

export class ThreadMonitor {
  readonly #gc = new Map<string, LocalHistogram>();
  readonly #loop: IntervalHistogram;
  readonly #observer: PerformanceObserver;

  constructor() {
    this.#observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
        const kind = GC_KINDS[detail?.kind ?? -1] ?? 'unknown';
        let h = this.#gc.get(kind);
        if (h === undefined) {
          h = new LocalHistogram(GC_PAUSE_BUCKETS_SECONDS);
          this.#gc.set(kind, h);
        }
        h.observe(entry.duration / 1000);
      }
    });
    this.#observer.observe({ entryTypes: ['gc'] });
    // Sampled every 10 ms, as the main thread's (node-metrics.ts).
    this.#loop = monitorEventLoopDelay({ resolution: 10 });
    this.#loop.enable();
  }

  /** The GC histograms, and the event-loop delay since the previous call (then restarted). */
  snapshot(): ThreadSnapshot {
    const gcSeconds: Record<string, LocalHistogramData> = {};
    for (const [kind, h] of this.#gc)
      gcSeconds[kind] = { bounds: h.bounds, counts: [...h.counts], sum: h.sum, count: h.count };
    const l = this.#loop;
    const seen = l.count > 0;
    const out = {
      gcSeconds,
      loopDelayP99Seconds: seen ? l.percentile(99) / 1e9 : null,
      loopDelayMaxSeconds: seen ? l.max / 1e9 : null,
    };
    l.reset();
    return out;
  }

  stop(): void {
    this.#observer.disconnect();
    this.#loop.disable();
  }
}
