// The authorize scenario: three systems in one run, driven by the same load generator with
// the same request mix and connection count: the bare uWebSockets.js echo (the ceiling of the
// stack), the conventional peer (Fastify + postgres.js, one transaction per decision, on its
// own database of the same PostgreSQL server) and this service. Prints each one's throughput
// and latency, the ratios, CPU per request of every process and thread, and where the
// service's latency goes; writes the JSON result and the SVG chart.
import type { LoadMode, LoadResult } from '../load/run-load.js';
import { createPeerDatabase } from '../peer/database.js';
import { renderChart } from '../report/chart.js';
import type { CpuBreakdown, CpuTargets } from '../report/cpu.js';
import { shardThreads } from '../report/cpu.js';
import { type Machine, table, writeResult } from '../report/results.js';
import { type Samples, scrape, sumOf } from '../report/scrape.js';
import { sampleServerTiming } from '../report/server-timing.js';
import { formatStages } from '../report/stages.js';
import { formatCpu, formatSystems, ratiosOf, type SystemFigures } from '../report/systems.js';
import type { BenchConfiguration } from '../servers/locate.js';
import { startEcho, startFloor, startPeer } from '../servers/processes.js';
import { classifyDecision, MIX, mixGenerator, peerSeedOf, provisionMix } from './authorize-mix.js';
import { type MeasuredRun, runMeasured } from './measured.js';
import { hostPort, type Target } from './target.js';

export interface AuthorizeOptions {
  readonly mode: LoadMode;
  readonly rate: number;
  readonly connections: number;
  readonly pipelining: number;
  readonly duration: number;
  readonly warmup: number;
  /** Answers the warm-up waits for besides its `warmup` seconds, at most `maxWarmupSeconds`. */
  readonly warmupRequests: number;
  readonly maxWarmupSeconds: number;
  readonly agents: number;
  readonly echo: boolean;
  readonly peer: boolean;
  /** Also the floors at this load: the bare echo and the durable floor (floor-server.ts). */
  readonly floor: boolean;
  readonly outDir: string;
  readonly config: BenchConfiguration;
  readonly meta: { readonly machine: Machine; readonly commit: string; readonly started_at: string };
  readonly log: (s: string) => void;
  readonly progress: (
    name: string,
  ) => (s: Parameters<NonNullable<Parameters<typeof runMeasured>[0]['onInterval']>>[0]) => void;
  readonly serverRss: (t: Target) => Promise<number | null>;
}

/** Seconds the echo ceiling is measured for at most (it settles within a few seconds). */
export const ECHO_SECONDS = 5;

/** Server-side counters moved during the run, next to the bench's own counts. */
function consistency(before: Samples | null, after: Samples | null, bench: Record<string, number>, path: string) {
  if (before === null || after === null) return { available: false };
  const delta = (name: string, match: string[] = []) => sumOf(after, name, match) - sumOf(before, name, match);
  const decisions: Record<string, { server: number; bench: number }> = {};
  for (const d of ['APPROVE', 'DECLINE', 'STEP_UP']) {
    decisions[d] = { server: delta('asas_decisions_total', [`decision="${d}"`]), bench: bench[d] ?? 0 };
  }
  const benchTotal = Object.values(bench).reduce((a, b) => a + b, 0);
  return {
    available: true,
    http_requests: { server: delta('asas_http_requests_total', [`route="${path}"`]), bench: benchTotal },
    decisions,
  };
}

function kindTable(r: LoadResult, expected: Record<string, string>): string {
  const labels = [...new Set(Object.values(r.byKind).flatMap((k) => Object.keys(k)))].sort();
  const rows = Object.entries(r.byKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, counts]) => {
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      const exp = expected[kind] ?? '';
      const hit = exp === '' ? '' : `${(((counts[exp] ?? 0) * 100) / Math.max(1, total)).toFixed(1)}%`;
      return [kind, exp, hit, total, ...labels.map((l) => counts[l] ?? 0)];
    });
  return table(['kind', 'expected', 'as expected', 'count', ...labels], rows);
}

/** Best effort: a checkpoint before each database-backed run, so none inherits the last one's dirty pages. */
async function checkpoint(databaseUrl: string | null): Promise<void> {
  if (databaseUrl === null) return;
  const { default: postgres } = await import('postgres');
  const { socketTarget } = await import('../../src/storage/db.js');
  const t = socketTarget(databaseUrl);
  const sql = postgres(t.url, { ...t.options, max: 1, onnotice: () => {} });
  try {
    await sql`checkpoint`;
  } catch {
    // not a superuser: the runs share whatever the server does
  } finally {
    await sql.end({ timeout: 2 });
  }
}

const figures = (name: string, m: MeasuredRun): SystemFigures => ({
  name,
  throughput: m.result.throughputPerSecond,
  latencyMs: m.result.latencyMs,
  cpuUsPerRequest: m.cpu?.totalUsPerRequest ?? null,
});

export async function scenarioAuthorize(t: Target, o: AuthorizeOptions): Promise<void> {
  const { log, connections } = o;
  // Idle: started, nothing provisioned or decided yet.
  const rssIdle = await o.serverRss(t);
  log(`provisioning a Client, 3 Principals and ${o.agents + 26} agents through the API ...`);
  const setup = await provisionMix(t, o.agents, log);
  const wait = setup.expiredAfterMs - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const load = {
    mode: o.mode,
    rate: o.rate,
    connections,
    pipelining: o.pipelining,
    durationSeconds: o.duration,
    warmupSeconds: o.warmup,
    warmupRequests: o.warmupRequests,
    maxWarmupSeconds: o.maxWarmupSeconds,
  };
  const notes: string[] = [];

  let echo: MeasuredRun | null = null;
  if (o.echo) {
    log(
      `echo ceiling: bare uWebSockets.js JSON echo, saturation at ${connections} connections, ${Math.min(o.duration, ECHO_SECONDS)} s ...`,
    );
    const e = await startEcho();
    try {
      const ep = hostPort(e.url);
      echo = await runMeasured(
        {
          ...load,
          // The ceiling of the stack settles within seconds: measured for at most ECHO_SECONDS.
          durationSeconds: Math.min(o.duration, ECHO_SECONDS),
          warmupSeconds: Math.min(o.warmup, 1),
          mode: 'saturation',
          host: ep.host,
          port: ep.port,
          next: mixGenerator(ep.hostHeader, setup),
          keepBodies: false,
          onInterval: o.progress('echo'),
        },
        { cpu: { pid: e.pid }, metrics: null },
      );
    } finally {
      await e.stop();
    }
  }

  let peer: MeasuredRun | null = null;
  const base = o.config.databaseUrl;
  if (o.peer && base === null) notes.push('conventional peer not run: it needs PostgreSQL (DATABASE_URL)');
  if (o.peer && base !== null) {
    log('conventional peer: Fastify + postgres.js, one transaction per decision, on its own database ...');
    const db = await createPeerDatabase(base, peerSeedOf(setup));
    try {
      const p = await startPeer(db.url);
      try {
        await checkpoint(base);
        const pp = hostPort(p.url);
        log(
          `conventional peer: ${o.mode} at ${connections} connections x ${o.pipelining}, ${o.duration} s after a warm-up of at least ${o.warmup} s and ${o.warmupRequests} answers ...`,
        );
        peer = await runMeasured(
          {
            ...load,
            host: pp.host,
            port: pp.port,
            next: mixGenerator(pp.hostHeader, setup),
            keepBodies: true,
            classify: classifyDecision,
            onInterval: o.progress('peer'),
          },
          {
            cpu: {
              pid: p.pid,
              children: true,
              databases: [new URL(db.url).pathname.slice(1)],
              postgresUrl: base,
            },
            metrics: null,
            rss: () => p.rssBytes(),
          },
        );
      } finally {
        await p.stop();
      }
    } finally {
      await db.drop();
    }
  }

  // The floors at the run's own load: what the bare echo spends per request (HTTP in and out,
  // a JSON parse), and what a bare server spends that commits a row per request before it
  // answers (floor-server.ts), its PostgreSQL backend included.
  let echoAtLoad: MeasuredRun | null = null;
  let durable: MeasuredRun | null = null;
  if (o.floor) {
    log(`floor: bare uWebSockets.js echo at the run's load ...`);
    const e = await startEcho();
    try {
      const ep = hostPort(e.url);
      echoAtLoad = await runMeasured(
        {
          ...load,
          host: ep.host,
          port: ep.port,
          next: mixGenerator(ep.hostHeader, setup),
          keepBodies: false,
          onInterval: o.progress('echo at load'),
        },
        { cpu: { pid: e.pid }, metrics: null },
      );
    } finally {
      await e.stop();
    }
    if (base === null) notes.push('durable floor not run: it needs PostgreSQL (DATABASE_URL)');
    else {
      log(`floor: a committed row per request (group commit) at the run's load ...`);
      const db = await createPeerDatabase(base, peerSeedOf(setup));
      try {
        const f = await startFloor(db.url);
        try {
          await checkpoint(base);
          const fp = hostPort(f.url);
          durable = await runMeasured(
            {
              ...load,
              host: fp.host,
              port: fp.port,
              next: mixGenerator(fp.hostHeader, setup),
              keepBodies: false,
              onInterval: o.progress('durable floor'),
            },
            {
              cpu: { pid: f.pid, databases: [new URL(db.url).pathname.slice(1)], postgresUrl: base },
              metrics: null,
            },
          );
        } finally {
          await f.stop();
        }
      } finally {
        await db.drop();
      }
    }
  }

  const { host, port, hostHeader } = hostPort(t.url);
  await checkpoint(base);
  const serviceDb = t.started?.databaseUrl ? new URL(t.started.databaseUrl).pathname.slice(1) : null;
  const threadsOfService = async () => shardThreads(await scrape(t.url, t.adminKey));
  const cpu: CpuTargets | null =
    t.started === null
      ? null
      : {
          pid: t.started.pid,
          threads: threadsOfService,
          ...(serviceDb === null ? {} : { databases: [serviceDb], postgresUrl: base }),
          nats: o.config.natsUrl !== null,
        };
  log(
    `authorize: ${o.mode === 'rate' ? `${o.rate} req/s open loop` : 'saturation'} at ${connections} connections x ${o.pipelining}, ${o.duration} s after a warm-up of at least ${o.warmup} s and ${o.warmupRequests} answers ...`,
  );
  const rssStart = await o.serverRss(t);
  const pre = await scrape(t.url, t.adminKey);
  // The per-stage breakdown as the service reports it: the Server-Timing header of a sample of
  // answers, one request every 100 ms on a connection of its own (bench/report/server-timing.ts).
  const timing = sampleServerTiming(host, port, mixGenerator(hostHeader, setup), classifyDecision);
  const service = await runMeasured(
    {
      ...load,
      host,
      port,
      next: mixGenerator(hostHeader, setup),
      keepBodies: true,
      classify: classifyDecision,
      onInterval: o.progress('authorize'),
    },
    { cpu, metrics: { url: t.url, adminKey: t.adminKey }, rss: () => t.started?.rssBytes() ?? null },
  ).catch(async (e: unknown) => {
    await timing.stop();
    throw e;
  });
  const serverTiming = await timing.stop();
  const result = service.result;
  const post = await scrape(t.url, t.adminKey);
  const backlogEnd = sumOf(post ?? new Map(), 'asas_outbox_backlog');
  const rssEnd = await o.serverRss(t);
  await new Promise((r) => setTimeout(r, 1000));
  const backlogDrained = sumOf((await scrape(t.url, t.adminKey)) ?? new Map(), 'asas_outbox_backlog');

  const expected = Object.fromEntries(MIX.map((m) => [m.kind, m.expected]));
  const decisions: Record<string, number> = {};
  for (const k of Object.values(result.byKind))
    for (const [d, n] of Object.entries(k)) decisions[d] = (decisions[d] ?? 0) + n;
  const systems = {
    service: figures('this service', service),
    peer: peer === null ? null : figures('conventional peer (Fastify + postgres.js)', peer),
    echo: echo === null ? null : figures('echo ceiling (bare uWebSockets.js)', echo),
  };
  const ratios = ratiosOf(systems);
  const saturation = o.mode === 'saturation';

  process.stdout.write(`\nconfiguration: ${t.database}; events: ${o.config.source.nats}\n`);
  for (const n of notes) process.stdout.write(`${n}\n`);
  process.stdout.write(`\n${formatSystems(saturation ? systems : { ...systems, echo: null })}\n`);
  const warm = (name: string, m: MeasuredRun | null) =>
    m === null ? [] : [`${name} ${m.result.warmup.seconds} s (${m.result.warmup.requests} answers)`];
  process.stdout.write(
    `warm-up before measuring: ${[...warm('echo', echo), ...warm('peer', peer), ...warm('service', service)].join(', ')}\n\n`,
  );
  process.stdout.write(`this service, decisions by kind of request:\n${kindTable(result, expected)}\n\n`);
  if (peer !== null) {
    process.stdout.write(
      `conventional peer, decisions by kind (mandate gates only: no risk engine, so no rapid-fire decline or step-up):\n${kindTable(peer.result, expected)}\n\n`,
    );
  }
  const cpuBlocks: [string, CpuBreakdown | null][] = [
    ['this service', service.cpu],
    ['conventional peer', peer?.cpu ?? null],
    ['echo ceiling', echo?.cpu ?? null],
  ];
  for (const [name, b] of cpuBlocks) if (b !== null) process.stdout.write(`${formatCpu(name, b)}\n\n`);
  for (const [name, m] of [
    ['floor: bare echo at this load', echoAtLoad],
    ['floor: a committed row per request', durable],
  ] as const) {
    if (m === null) continue;
    const l = m.result.latencyMs;
    process.stdout.write(
      `${name}: ${m.result.throughputPerSecond} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, p99.9 ${l.p999} ms, CPU ${m.cpu?.totalUsPerRequest ?? '?'} µs/req; answers by status ${JSON.stringify(m.result.allByLabel)}\n`,
    );
    if (m.cpu !== null) process.stdout.write(`${formatCpu(name, m.cpu)}\n\n`);
  }
  if (service.stages !== null) {
    process.stdout.write(
      `where the service's latency goes:\n${formatStages(result.latencyMs, service.stages, o.duration)}\n\n`,
    );
  }
  if (serverTiming.text !== '') process.stdout.write(serverTiming.text);
  const mib = (b: number | null) => (b === null ? '?' : `${Math.round(b / 1048576)} MiB`);
  process.stdout.write(
    `service resident memory: ${mib(rssIdle)} idle (started, nothing provisioned), ${mib(rssStart)} before the load, at most ${mib(service.rssMaxBytes)} during it (sampled once a second), ${mib(rssEnd)} at its end${peer === null ? '' : `; the peer's at most ${mib(peer.rssMaxBytes)}`}\n`,
  );
  process.stdout.write(
    `outbox backlog (events recorded, not yet published): max ${service.backlog.max} over ${service.backlog.samples.length} samples during the run, ${backlogEnd} at its end, ${backlogDrained} one second later\n`,
  );
  // The bench's counts include the warm-up and the drain: compared with /metrics around the whole run.
  // The sampler's requests are in the server's counters too.
  const counted = { ...result.allByLabel };
  for (const [k, n] of Object.entries(serverTiming.counts)) counted[k] = (counted[k] ?? 0) + n;
  const check = consistency(pre, post, counted, '/api/v1/authorize');
  const record = {
    scenario: 'authorize',
    ...o.meta,
    configuration: { database: t.database, source: o.config.source, notes },
    target: { url: t.url, database: t.database, started_by_bench: t.started !== null },
    options: { ...load, agents: o.agents, mix: MIX },
    authorize: { ...result, decisions },
    echo: echo?.result ?? null,
    peer: peer === null ? null : { ...peer.result, cpu: peer.cpu },
    ratios,
    ratio_to_echo: saturation ? ratios.serviceToEcho : null,
    cpu: { service: service.cpu, peer: peer?.cpu ?? null, echo: echo?.cpu ?? null },
    floor: {
      echo_at_load: echoAtLoad === null ? null : { ...echoAtLoad.result, cpu: echoAtLoad.cpu },
      durable: durable === null ? null : { ...durable.result, cpu: durable.cpu },
    },
    stages: service.stages,
    server_timing: serverTiming.stages,
    outbox_backlog: { ...service.backlog, end: backlogEnd, drained: backlogDrained },
    server: {
      rss_bytes_idle: rssIdle,
      rss_bytes_start: rssStart,
      rss_bytes_max: service.rssMaxBytes,
      rss_bytes_end: rssEnd,
      peer_rss_bytes_max: peer?.rssMaxBytes ?? null,
      metrics_vs_bench: check,
    },
  };
  const series = [{ name: 'this service', timeline: result.timeline }];
  if (peer !== null) series.push({ name: 'conventional peer', timeline: peer.result.timeline });
  if (echo !== null) series.push({ name: 'echo ceiling', timeline: echo.result.timeline });
  const cpuNote = [
    service.cpu === null ? null : `service ${service.cpu.totalUsPerRequest}`,
    peer?.cpu ? `peer ${peer.cpu.totalUsPerRequest}` : null,
  ].filter((x) => x !== null);
  const svg = renderChart(
    `POST /api/v1/authorize: ${result.throughputPerSecond} decisions/s, p99 ${result.latencyMs.p99} ms${ratios.serviceToPeer === null ? '' : `, ${ratios.serviceToPeer.toFixed(2)}x the peer`}`,
    `${o.meta.machine.cores} cores, Node ${o.meta.machine.node}, commit ${o.meta.commit}, ${t.database}${o.config.natsUrl === null ? '' : ' + NATS'}, ${connections} connections${cpuNote.length > 0 ? `; CPU µs/req: ${cpuNote.join(', ')}` : ''}`,
    series,
  );
  const files = writeResult(o.outDir, 'authorize', record, svg);
  process.stdout.write(`server metrics vs bench: ${JSON.stringify(check)}\nwrote ${files.json}\nwrote ${files.svg}\n`);
}
