// Where the service's latency goes, from its own /metrics histograms read at the start and the
// end of the measured window: the client's latency against the edge's (edge to answer), the
// wait for the shard (thread hop and queue), the time in the shard, the audit group commit
// (BEGIN to COMMIT) and its batch size, the main thread's GC pauses and
// event-loop delay. Percentiles of a histogram are interpolated inside its bucket, as
// Prometheus's histogram_quantile does, so they are as coarse as the buckets.
import type { LatencySummary } from '../load/run-load.js';
import { table } from './results.js';
import type { Samples } from './scrape.js';

/** Cumulative buckets (upper bound, count) of `name` moved between two scrapes, all label sets summed. */
export function bucketDelta(before: Samples, after: Samples, name: string): [number, number][] {
  const byLe = new Map<number, number>();
  const prefix = `${name}_bucket{`;
  for (const [k, v] of after) {
    if (!k.startsWith(prefix)) continue;
    const m = /le="([^"]+)"/.exec(k);
    if (m === null) continue;
    const le = m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1]);
    byLe.set(le, (byLe.get(le) ?? 0) + v - (before.get(k) ?? 0));
  }
  return [...byLe.entries()].sort((a, b) => a[0] - b[0]);
}

/** The q-quantile (0..1) of cumulative buckets, interpolated linearly inside its bucket; null when empty. */
export function histogramQuantile(buckets: readonly [number, number][], q: number): number | null {
  const total = buckets[buckets.length - 1]?.[1] ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (!Number.isFinite(le)) return prevLe;
      const inBucket = count - prevCount;
      return inBucket <= 0 ? le : prevLe + ((le - prevLe) * (rank - prevCount)) / inBucket;
    }
    prevLe = le;
    prevCount = count;
  }
  return prevLe;
}

function delta(before: Samples, after: Samples, prefix: string): number {
  let n = 0;
  for (const [k, v] of after) if (k === prefix || k.startsWith(`${prefix}{`)) n += v - (before.get(k) ?? 0);
  return n;
}

export interface StageFigures {
  /** Edge receiving the request to the answer written (asas_decision_duration_seconds), ms. */
  readonly edgeP50Ms: number | null;
  readonly edgeP99Ms: number | null;
  readonly edgeP999Ms: number | null;
  /** Edge to shard (thread hop and queue; ms resolution) and shard to answer, ms. */
  readonly waitP50Ms: number | null;
  readonly waitP99Ms: number | null;
  readonly shardP50Ms: number | null;
  readonly shardP99Ms: number | null;
  /** Audit group commit, BEGIN to COMMIT acknowledged, ms. */
  readonly commitP50Ms: number | null;
  readonly commitP99Ms: number | null;
  readonly commits: number;
  readonly meanBatchSize: number | null;
  /** Main thread GC pauses in the window. */
  readonly gcPauses: number;
  readonly gcPauseMs: number;
  readonly gcPauseP99Ms: number | null;
  /** Worst p99 and max of the main thread's event-loop delay over the window's scrapes, ms. */
  readonly eventLoopDelayP99Ms: number | null;
  readonly eventLoopDelayMaxMs: number | null;
  /** The same for the shard workers' threads (all shards together; the worst shard's delay). */
  readonly shardGcPauses: number;
  readonly shardGcPauseMs: number;
  readonly shardGcPauseP99Ms: number | null;
  readonly shardLoopDelayP99Ms: number | null;
  readonly shardLoopDelayMaxMs: number | null;
}

const ms = (s: number | null) => (s === null ? null : Math.round(s * 1e5) / 100);

/**
 * @param loop the main thread's event-loop delay gauges (seconds) of every scrape in the
 *   window: prom-client resets its sampler at each scrape, so the worst one bounds the window
 */
export function stagesOf(
  before: Samples,
  after: Samples,
  loop: readonly { p99: number; max: number }[] = [],
  shardLoop: readonly { p99: number; max: number }[] = [],
): StageFigures {
  const shardGc = bucketDelta(before, after, 'asas_shard_gc_duration_seconds');
  const edge = bucketDelta(before, after, 'asas_decision_duration_seconds');
  const commit = bucketDelta(before, after, 'asas_audit_commit_duration_seconds');
  const wait = bucketDelta(before, after, 'asas_shard_wait_seconds');
  const shard = bucketDelta(before, after, 'asas_shard_authorize_seconds');
  const gc = bucketDelta(before, after, 'asas_nodejs_gc_duration_seconds');
  const batches = delta(before, after, 'asas_audit_batch_size_count');
  const rows = delta(before, after, 'asas_audit_batch_size_sum');
  return {
    edgeP50Ms: ms(histogramQuantile(edge, 0.5)),
    edgeP99Ms: ms(histogramQuantile(edge, 0.99)),
    edgeP999Ms: ms(histogramQuantile(edge, 0.999)),
    waitP50Ms: ms(histogramQuantile(wait, 0.5)),
    waitP99Ms: ms(histogramQuantile(wait, 0.99)),
    shardP50Ms: ms(histogramQuantile(shard, 0.5)),
    shardP99Ms: ms(histogramQuantile(shard, 0.99)),
    commitP50Ms: ms(histogramQuantile(commit, 0.5)),
    commitP99Ms: ms(histogramQuantile(commit, 0.99)),
    commits: delta(before, after, 'asas_audit_commits_total'),
    meanBatchSize: batches > 0 ? Math.round((rows / batches) * 10) / 10 : null,
    gcPauses: delta(before, after, 'asas_nodejs_gc_duration_seconds_count'),
    gcPauseMs: Math.round(delta(before, after, 'asas_nodejs_gc_duration_seconds_sum') * 1e4) / 10,
    gcPauseP99Ms: ms(histogramQuantile(gc, 0.99)),
    eventLoopDelayP99Ms: loop.length > 0 ? ms(Math.max(...loop.map((l) => l.p99))) : null,
    eventLoopDelayMaxMs: loop.length > 0 ? ms(Math.max(...loop.map((l) => l.max))) : null,
    shardGcPauses: delta(before, after, 'asas_shard_gc_duration_seconds_count'),
    shardGcPauseMs: Math.round(delta(before, after, 'asas_shard_gc_duration_seconds_sum') * 1e4) / 10,
    shardGcPauseP99Ms: ms(histogramQuantile(shardGc, 0.99)),
    shardLoopDelayP99Ms: shardLoop.length > 0 ? ms(Math.max(...shardLoop.map((l) => l.p99))) : null,
    shardLoopDelayMaxMs: shardLoop.length > 0 ? ms(Math.max(...shardLoop.map((l) => l.max))) : null,
  };
}

const show = (v: number | null) => (v === null ? '' : v);

/** The client's latency next to the stages the service measures itself. */
export function formatStages(client: LatencySummary, s: StageFigures, windowSeconds: number): string {
  const rows: (string | number)[][] = [
    ['client: sent to answer read (the bench)', client.p50, client.p99, client.p999],
    [
      'edge: request read to answer written (asas_decision_duration_seconds)',
      show(s.edgeP50Ms),
      show(s.edgeP99Ms),
      show(s.edgeP999Ms),
    ],
    ['  edge to shard: thread hop and queue (asas_shard_wait_seconds)', show(s.waitP50Ms), show(s.waitP99Ms), ''],
    [
      '  in the shard: decision, batch wait, commit (asas_shard_authorize_seconds)',
      show(s.shardP50Ms),
      show(s.shardP99Ms),
      '',
    ],
    ['    of which audit group commit, BEGIN to COMMIT', show(s.commitP50Ms), show(s.commitP99Ms), ''],
  ];
  const lines = [table(['stage', 'p50 ms', 'p99 ms', 'p99.9 ms'], rows)];
  if (s.edgeP99Ms !== null) {
    const before = Math.round((client.p99 - s.edgeP99Ms) * 100) / 100;
    lines.push(
      before >= 0
        ? `before the edge (client, kernel, requests waiting for the main thread): p99 ${before} ms of the client's ${client.p99} ms`
        : `before the edge: below the resolution of the edge histogram's buckets at this p99 (client ${client.p99} ms, edge ${s.edgeP99Ms} ms)`,
    );
  }
  lines.push(
    `group commits: ${s.commits} (${Math.round(s.commits / Math.max(1, windowSeconds))}/s), mean batch ${show(s.meanBatchSize)} decisions; the way back (shard to the answer written) is the edge time less the two above`,
  );
  lines.push(
    `main thread: ${s.gcPauses} GC pauses, ${s.gcPauseMs} ms in all (${Math.round((s.gcPauseMs / Math.max(1, windowSeconds)) * 10) / 10} ms/s, p99 pause ${show(s.gcPauseP99Ms)} ms); event-loop delay worst p99 ${show(s.eventLoopDelayP99Ms)} ms, max ${show(s.eventLoopDelayMaxMs)} ms`,
  );
  lines.push(
    `shard workers: ${s.shardGcPauses} GC pauses, ${s.shardGcPauseMs} ms in all (p99 pause ${show(s.shardGcPauseP99Ms)} ms); event-loop delay worst p99 ${show(s.shardLoopDelayP99Ms)} ms, max ${show(s.shardLoopDelayMaxMs)} ms`,
  );
  return lines.join('\n');
}
