// Process and runtime metrics of the thread that serves /metrics (the main thread): prom-client's
// default collectors (CPU, memory, file descriptors, active handles and resources, heap spaces,
// event-loop delay, GC pauses, Node version) under the `asas_` prefix, and the event loop's
// busy time, which prom-client does not collect.
import { constants, type PerformanceEntry, PerformanceObserver, performance } from 'node:perf_hooks';
import type { Counter, Histogram, Registry } from 'prom-client';
import { promClient } from './prometheus.js';

export const NODE_METRICS_PREFIX = 'asas_';

/** GC pause buckets in seconds: minor collections take tens of µs to a few ms. */
export const GC_PAUSE_BUCKETS_SECONDS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
];

let shared: Registry | undefined;

/**
 * The runtime metrics, created on first use and shared by every ServiceMetrics of the thread:
 * each set of default collectors starts a GC observer and an event-loop delay monitor that
 * live as long as the thread, so there is one set, however many services a test process builds.
 */
export function nodeMetrics(): Registry {
  if (shared !== undefined) return shared;
  const prom = promClient();
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({
    register: registry,
    prefix: NODE_METRICS_PREFIX,
    // Resolution of the event-loop delay sampler, in milliseconds.
    eventLoopMonitoringPrecision: 10,
  });
  gcPauses(prom, registry);
  // The standard, unprefixed name as well (prom-client's own gauge, the Node release a
  // dashboard tells upgrades by): nodejs_version_info{version,major,minor,patch} 1.
  const [major, minor, patch] = process.versions.node.split('.');
  new prom.Gauge({
    name: 'nodejs_version_info',
    help: 'Node.js version info.',
    labelNames: ['version', 'major', 'minor', 'patch'],
    registers: [registry],
  }).set({ version: process.version, major, minor, patch }, 1);
  const busy: Counter = new prom.Counter({
    name: `${NODE_METRICS_PREFIX}nodejs_eventloop_active_seconds_total`,
    help: 'Time the event loop spent running callbacks (not waiting for I/O); its rate is the event-loop utilisation (0 to 1).',
    registers: [registry],
    collect() {
      busy.reset();
      busy.inc(performance.eventLoopUtilization().active / 1000);
    },
  });
  shared = registry;
  return registry;
}

export const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/**
 * Replaces the default collectors' GC histogram (same name, labels and meaning) with one that
 * counts every pause. prom-client 15.1.3's observer reads only the first entry of each batch
 * the PerformanceObserver delivers (`list.getEntries()[0]`), so pauses that come close together
 * are dropped: in a run of allocation bursts it counted 50 of 56. Its observer cannot be turned
 * off; it keeps feeding its own histogram, now unregistered, at one observe() per batch.
 */
function gcPauses(prom: ReturnType<typeof promClient>, registry: Registry): void {
  const name = `${NODE_METRICS_PREFIX}nodejs_gc_duration_seconds`;
  registry.removeSingleMetric(name);
  const pauses: Histogram<'kind'> = new prom.Histogram({
    name,
    help: 'Garbage collection pauses of the main thread in seconds, by kind: major, minor, incremental or weakcb.',
    labelNames: ['kind'],
    buckets: GC_PAUSE_BUCKETS_SECONDS,
    registers: [registry],
  });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
      const kind = GC_KINDS[detail?.kind ?? -1] ?? 'unknown';
      pauses.observe({ kind }, entry.duration / 1000);
    }
  }).observe({ entryTypes: ['gc'] });
}
