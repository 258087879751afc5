// The bench's report of the three systems (bench/report/systems.ts), its CPU figures
// (bench/report/cpu.ts) and latency stages (bench/report/stages.ts): pure functions, held to
// hand-computed figures.
import { describe, expect, it } from 'vitest';
import { statTicks } from '../../dist/bench/report/cpu.js';
import { bucketDelta, histogramQuantile, stagesOf } from '../../dist/bench/report/stages.js';
import { formatCpu, formatSystems, ratiosOf } from '../../dist/bench/report/systems.js';

const lat = (count: number, p50: number, p90: number, p99: number, p999: number, max: number) => ({
  count,
  mean: p50,
  p50,
  p90,
  p99,
  p999,
  max,
});

const THREE = {
  echo: {
    name: 'echo ceiling',
    throughput: 84_000,
    latencyMs: lat(840_000, 0.4, 0.8, 0.82, 1.23, 1.64),
    cpuUsPerRequest: 12,
  },
  peer: {
    name: 'conventional peer',
    throughput: 3_200,
    latencyMs: lat(32_000, 9.5, 19, 20, 30, 40),
    cpuUsPerRequest: 600,
  },
  service: {
    name: 'this service',
    throughput: 5_800,
    latencyMs: lat(58_000, 4.06, 8.12, 21.1, 31.65, 42.2),
    cpuUsPerRequest: 290,
  },
};

describe('bench report: the three systems', () => {
  it('prints each system with its figures, then the ratios', () => {
    const text = formatSystems(THREE);
    const lines = text.split('\n');
    // Header, rule, then echo, peer, service in that order.
    expect(lines[0]).toMatch(/^system\s+req\/s\s+count\s+p50 ms\s+p90 ms\s+p99 ms\s+p99\.9 ms\s+max ms\s+CPU µs\/req$/);
    expect(lines[2]).toMatch(/^echo ceiling\s+84000\s+840000\s+0\.4\s+0\.8\s+0\.82\s+1\.23\s+1\.64\s+12$/);
    expect(lines[3]).toMatch(/^conventional peer\s+3200\s+32000\s+9\.5\s+19\s+20\s+30\s+40\s+600$/);
    expect(lines[4]).toMatch(/^this service\s+5800\s+58000\s+4\.06\s+8\.12\s+21\.1\s+31\.65\s+42\.2\s+290$/);
    expect(text).toContain('throughput: service / peer 1.81x, service / echo 6.9%, peer / echo 3.8%');
    expect(text).toContain('p99: service 21.1 ms, peer 20 ms (service / peer 1.05x)');
    expect(text).toContain('service 290 µs, peer 600 µs (service / peer 0.48x)');
  });

  it('computes the ratios, and leaves out those of a system not run', () => {
    expect(ratiosOf(THREE)).toEqual({
      serviceToPeer: 1.813,
      serviceToEcho: 0.069,
      peerToEcho: 0.038,
      p99ServiceToPeer: 1.055,
      cpuServiceToPeer: 0.483,
    });
    const alone = formatSystems({ service: THREE.service, peer: null, echo: THREE.echo });
    expect(alone).toContain('throughput: service / echo 6.9%');
    expect(alone).not.toMatch(/peer/);
    expect(formatSystems({ service: THREE.service, peer: null, echo: null })).not.toMatch(/throughput:/);
  });

  it('prints the CPU of each component per request, largest first', () => {
    const text = formatCpu('this service', {
      windowSeconds: 10,
      requests: 50_000,
      rows: [
        { component: 'main thread', seconds: 4.5, usPerRequest: 90, corePercent: 45 },
        { component: 'PostgreSQL backends', seconds: 4, usPerRequest: 80, corePercent: 40 },
        { component: 'shard worker 0', seconds: 2.75, usPerRequest: 55, corePercent: 28 },
      ],
      totalUsPerRequest: 225,
      otherThreads: [],
      notes: [],
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      'this service: CPU per request over 10.0 s and 50000 requests (system total 225 µs, the load generator apart)',
    );
    expect(lines[3]).toMatch(/^main thread\s+90\s+45\s+4\.5$/);
    expect(lines[4]).toMatch(/^PostgreSQL backends\s+80\s+40\s+4$/);
    expect(lines[5]).toMatch(/^shard worker 0\s+55\s+28\s+2\.75$/);
  });
});

describe('bench report: CPU and stages from /proc and /metrics', () => {
  it('reads utime + stime from a /proc stat line, whatever the command name holds', () => {
    const line = '4242 (node (vitest) x) S 1 4242 4242 0 -1 4194304 100 0 0 0 1234 567 0 0 20 0 12 0 9 0';
    expect(statTicks(line)).toBe(1234 + 567);
  });

  it('interpolates a percentile inside its bucket, as histogram_quantile does', () => {
    const b: [number, number][] = [
      [0.001, 0],
      [0.005, 50],
      [0.01, 90],
      [0.025, 100],
      [Number.POSITIVE_INFINITY, 100],
    ];
    expect(histogramQuantile(b, 0.5)).toBeCloseTo(0.005, 9);
    expect(histogramQuantile(b, 0.25)).toBeCloseTo(0.003, 9);
    expect(histogramQuantile(b, 0.99)).toBeCloseTo(0.0235, 9);
    expect(histogramQuantile([[Number.POSITIVE_INFINITY, 0]], 0.5)).toBeNull();
  });

  it('takes the window between two scrapes, summing the shards', () => {
    const before = new Map([
      ['asas_audit_commit_duration_seconds_bucket{shard="0",le="0.005"}', 10],
      ['asas_audit_commit_duration_seconds_bucket{shard="0",le="+Inf"}', 10],
      ['asas_audit_batch_size_sum{shard="0"}', 100],
      ['asas_audit_batch_size_count{shard="0"}', 10],
    ]);
    const after = new Map([
      ['asas_audit_commit_duration_seconds_bucket{shard="0",le="0.005"}', 30],
      ['asas_audit_commit_duration_seconds_bucket{shard="0",le="+Inf"}', 40],
      ['asas_audit_commit_duration_seconds_bucket{shard="1",le="0.005"}', 20],
      ['asas_audit_commit_duration_seconds_bucket{shard="1",le="+Inf"}', 20],
      ['asas_audit_batch_size_sum{shard="0"}', 400],
      ['asas_audit_batch_size_count{shard="0"}', 30],
    ]);
    expect(bucketDelta(before, after, 'asas_audit_commit_duration_seconds')).toEqual([
      [0.005, 40],
      [Number.POSITIVE_INFINITY, 50],
    ]);
    const s = stagesOf(before, after, [
      { p99: 0.002, max: 0.004 },
      { p99: 0.012, max: 0.03 },
    ]);
    expect(s.meanBatchSize).toBe(15);
    expect(s.commitP50Ms).toBe(3.13); // 3.125 ms, shown to a hundredth
    expect(s.eventLoopDelayP99Ms).toBe(12);
    expect(s.eventLoopDelayMaxMs).toBe(30);
  });
});

describe('the bench measures the service as production runs it', () => {
  it('starts it with the Node flags and the malloc setting of npm start and of the container image', async () => {
    const { readFileSync } = await import('node:fs');
    const { EMBEDDED_MALLOC_ARENA_MAX, SERVICE_NODE_FLAGS } = await import('../../dist/bench/servers/processes.js');
    const root = new URL('../../', import.meta.url);
    const start = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).scripts.start as string;
    expect(start).toBe('sh scripts/start.sh');
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(new URL('Dockerfile', root), 'utf8'))?.[1];
    expect(JSON.parse(cmd as string)).toEqual(['sh', 'scripts/start.sh']);
    const script = readFileSync(new URL('scripts/start.sh', root), 'utf8');
    expect(script).toContain(`exec node ${SERVICE_NODE_FLAGS.join(' ')} "$(dirname "$0")/../dist/src/main.js"`);
    expect(script).toContain(`export MALLOC_ARENA_MAX="\${MALLOC_ARENA_MAX:-${EMBEDDED_MALLOC_ARENA_MAX}}"`);
  });

  it('sets MALLOC_ARENA_MAX in scripts/start.sh on the embedded defaults only, and keeps one given', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, mkdirSync, writeFileSync, copyFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    // The script run as it is, with a dist/src/main.js beside it that prints what it was given.
    const dir = mkdtempSync(join(tmpdir(), 'asas-start-'));
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'dist', 'src'), { recursive: true });
    copyFileSync(new URL('../../scripts/start.sh', import.meta.url), join(dir, 'scripts', 'start.sh'));
    writeFileSync(
      join(dir, 'dist', 'src', 'main.js'),
      'console.log(JSON.stringify({ arenas: process.env.MALLOC_ARENA_MAX ?? null, pid: process.pid, flags: process.execArgv }))',
    );
    const run = (env: Record<string, string>) =>
      JSON.parse(
        execFileSync('sh', [join(dir, 'scripts', 'start.sh')], {
          env: { PATH: process.env.PATH ?? '', ...env },
        }).toString(),
      ) as { arenas: string | null; flags: string[] };
    expect(run({})).toMatchObject({ arenas: '1', flags: ['--single-threaded-gc'] });
    expect(run({ DATABASE_URL: 'postgres://db/asas' })).toMatchObject({ arenas: null });
    expect(run({ MALLOC_ARENA_MAX: '4' })).toMatchObject({ arenas: '4' });
  });
});

describe('bench report: the latency stages as printed', () => {
  const stages = {
    edgeP50Ms: 4,
    edgeP99Ms: 20,
    edgeP999Ms: 30,
    waitP50Ms: 0.5,
    waitP99Ms: 3,
    shardP50Ms: 3,
    shardP99Ms: 15,
    commitP50Ms: 1.5,
    commitP99Ms: 9,
    commits: 1000,
    meanBatchSize: 12.5,
    gcPauses: 40,
    gcPauseMs: 80,
    gcPauseP99Ms: 4,
    eventLoopDelayP99Ms: 6,
    eventLoopDelayMaxMs: 12,
    shardGcPauses: 25,
    shardGcPauseMs: 30,
    shardGcPauseP99Ms: 2.5,
    shardLoopDelayP99Ms: 3,
    shardLoopDelayMaxMs: 7,
  };
  const client = { count: 12_500, mean: 5, p50: 4.5, p90: 9, p99: 21.5, p999: 31, max: 40 };

  it('shows each stage and what waited before the edge', async () => {
    const { formatStages } = await import('../../dist/bench/report/stages.js');
    const text = formatStages(client, stages, 10);
    expect(text).toMatch(/edge to shard: thread hop and queue \(asas_shard_wait_seconds\)\s+0\.5\s+3\s/);
    expect(text).toMatch(/in the shard: decision, batch wait, commit \(asas_shard_authorize_seconds\)\s+3\s+15\s/);
    expect(text).toContain("p99 1.5 ms of the client's 21.5 ms");
    expect(text).toContain('group commits: 1000 (100/s), mean batch 12.5 decisions');
    expect(text).toContain('40 GC pauses, 80 ms in all (8 ms/s, p99 pause 4 ms)');
    expect(text).toContain(
      'shard workers: 25 GC pauses, 30 ms in all (p99 pause 2.5 ms); event-loop delay worst p99 3 ms, max 7 ms',
    );
  });

  it('says so when the edge histogram is too coarse to tell', async () => {
    const { formatStages } = await import('../../dist/bench/report/stages.js');
    const text = formatStages({ ...client, p99: 18 }, stages, 10);
    expect(text).toContain('below the resolution of the edge histogram');
    expect(text).not.toMatch(/p99 -/);
  });
});
