// One load run with what the bench reads around it: CPU per request of every process and thread
// of the system under test over the measured window (report/cpu.ts) and, for this service, its
// own /metrics at the window's ends and once a second in between (outbox backlog, event-loop
// delay), from which report/stages.ts says where the latency goes.
import { type LoadOptions, type LoadResult, runLoad } from '../load/run-load.js';
import { type CpuBreakdown, CpuProbe, type CpuTargets } from '../report/cpu.js';
import { type Samples, scrape, sumOf } from '../report/scrape.js';
import { type StageFigures, stagesOf } from '../report/stages.js';

function maxOf(s: Samples, name: string): number {
  let m = 0;
  for (const [k, v] of s) if (k.startsWith(`${name}{`) && v > m) m = v;
  return m;
}

export interface MeasuredRun {
  readonly result: LoadResult;
  readonly cpu: CpuBreakdown | null;
  readonly stages: StageFigures | null;
  /** Outbox backlog (events recorded, not yet published), sampled once a second. */
  readonly backlog: { samples: number[]; max: number };
  /** /metrics at the start and the end of the measured window (null without metrics). */
  readonly metrics: { before: Samples | null; after: Samples | null };
  /** Resident memory of the server process sampled once a second over the run, bytes (null: not read). */
  readonly rssMaxBytes: number | null;
}

export interface MeasureOptions {
  readonly cpu: CpuTargets | null;
  /** The service's /metrics (null for the echo and the peer). */
  readonly metrics: { readonly url: string; readonly adminKey: string } | null;
  /** Reads the server's resident memory (from /proc), sampled once a second. */
  readonly rss?: () => number | null;
}

export async function runMeasured(load: LoadOptions, m: MeasureOptions): Promise<MeasuredRun> {
  const probe = m.cpu === null ? null : new CpuProbe(m.cpu);
  const backlog = { samples: [] as number[], max: 0 };
  const loop: { p99: number; max: number }[] = [];
  const shardLoop: { p99: number; max: number }[] = [];
  let measuring = false;
  const read = async (): Promise<Samples | null> => {
    if (m.metrics === null) return null;
    const s = await scrape(m.metrics.url, m.metrics.adminKey);
    if (s !== null) {
      const b = sumOf(s, 'asas_outbox_backlog');
      backlog.samples.push(b);
      backlog.max = Math.max(backlog.max, b);
      // prom-client's event-loop sampler restarts at each scrape: each reading covers the time
      // since the previous one (the window's first reading also covers the warm-up's end).
      if (measuring) {
        loop.push({
          p99: sumOf(s, 'asas_nodejs_eventloop_lag_p99_seconds'),
          max: sumOf(s, 'asas_nodejs_eventloop_lag_max_seconds'),
        });
        // The shards' own samplers restart at each scrape too; the worst shard counts.
        shardLoop.push({
          p99: maxOf(s, 'asas_shard_eventloop_lag_p99_seconds'),
          max: maxOf(s, 'asas_shard_eventloop_lag_max_seconds'),
        });
      }
    }
    return s;
  };
  let started: Promise<Samples | null> = Promise.resolve(null);
  let ended: Promise<Samples | null> = Promise.resolve(null);
  let rssMax: number | null = null;
  const sampleRss = () => {
    const v = m.rss?.() ?? null;
    if (v !== null) rssMax = Math.max(rssMax ?? 0, v);
  };
  const sampler = setInterval(() => {
    sampleRss();
    if (m.metrics !== null) void read();
  }, 1000);
  let result: LoadResult;
  try {
    result = await runLoad({
      ...load,
      onMeasureStart: () => {
        load.onMeasureStart?.();
        started = (async () => {
          const s = await read();
          measuring = true;
          await probe?.start();
          return s;
        })();
      },
      onMeasureEnd: () => {
        load.onMeasureEnd?.();
        ended = (async () => {
          await started;
          await probe?.stop();
          const s = await read();
          measuring = false;
          return s;
        })();
      },
    });
  } finally {
    clearInterval(sampler);
  }
  sampleRss();
  const before = await started;
  const after = await ended;
  return {
    result,
    cpu: probe === null ? null : probe.breakdown(result.completed),
    stages: before !== null && after !== null ? stagesOf(before, after, loop, shardLoop) : null,
    backlog,
    metrics: { before, after },
    rssMaxBytes: rssMax,
  };
}
