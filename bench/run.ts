// The operators' bench suite: `npm run bench -- [options]`.
//   --target <url> --admin-key <key>   bench a running deployment (default: start the built
//                                      service here in the production configuration: a fresh
//                                      database on the PostgreSQL of DATABASE_URL and NATS_URL,
//                                      else on the local ones at 127.0.0.1:5432 / :4222 when they
//                                      answer, else embedded PGlite and the in-process bus)
//   --embedded                         the embedded defaults even when PostgreSQL and NATS answer
//   --scenario authorize|onboarding|webhook-lag|soak|agents|memory|all   (default authorize: the echo
//                                      ceiling, the conventional peer and this service)
//   --no-echo  --no-peer               leave out the echo ceiling / the conventional peer
//   --floor                            also the floors at the run's own load: the bare echo, and a
//                                      bare server that commits a row per request (group commit)
//   memory: idle RSS of the started service: fresh DATA_DIR, restart, first sandbox use (own starts)
//   quality [--seed <n>] [--errors]    the labeled-corpus quality figures (same as npm run quality)
//   scale-out [--duration <s>] [--connections <n>]   one instance against two on one database
//   --mode saturation|rate  --rate <req/s>  --connections <n>  --pipelining <n>
//   --duration <s>  --warmup <s>  --warmup-requests <n>  --agents <n>  --workers <n>
//                                      (authorize: the warm-up lasts at least --warmup seconds,
//                                      default 2, and until --warmup-requests answers, default
//                                      20000, at most 30 s: the JIT settles by work, not time)
//   --micro (the micro-benchmarks of the hot functions, alone)  --out <dir>
//   agents only: --agents <n> (default 100000)  --max-actors <n> (the started service's
//   ENGINE_MAX_ACTORS)  --database-url <url> (the target's live database, for seeding)
//
// Every result records the machine, Node version and commit, prints a table, and is written
// as JSON (and an SVG latency-over-time chart) under bench/results/.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type hdr from 'hdr-histogram-js';
import { buildRequest } from './load/connection.js';
import { type LoadResult, newHistogram, runLoad, summarise } from './load/run-load.js';
import { runMicro } from './micro.js';
import { call, onboardBody } from './provision.js';
import { renderChart } from './report/chart.js';
import { commit, LATENCY_HEADERS, latencyRow, machine, table, writeResult } from './report/results.js';
import { scrape, sumOf } from './report/scrape.js';
import { driveAgents, findServiceDatabase, provisionAgentsPrincipal, seedAgents } from './scenarios/agents.js';
import { ECHO_SECONDS, scenarioAuthorize } from './scenarios/authorize.js';
import { classifyDecision, mixGenerator, provisionMix } from './scenarios/authorize-mix.js';
import { measureMemory } from './scenarios/memory.js';
import { hostPort, type Target } from './scenarios/target.js';
import { type BenchConfiguration, benchConfiguration } from './servers/locate.js';
import { startService } from './servers/processes.js';

// `npm run bench -- quality [--seed <n>] [--out <dir>] [--errors]` (or `--scenario quality`):
// the decision-quality figures, the same harness as `npm run quality` (bench/quality/main.ts).
{
  const argv = process.argv;
  let at = argv[2] === 'quality' ? 2 : -1;
  let width = 1;
  for (let i = 2; at < 0 && i < argv.length; i++) {
    if (argv[i] === '--scenario=quality') at = i;
    else if (argv[i] === '--scenario' && argv[i + 1] === 'quality') {
      at = i;
      width = 2;
    }
  }
  if (at >= 0) {
    argv.splice(at, width);
    await import('./quality/main.js');
    process.exit(process.exitCode ?? 0);
  }
  // `npm run bench -- scale-out [...]`: one instance against two on one database (bench/scale-out.ts).
  if (argv[2] === 'scale-out') {
    await import('./scale-out.js');
    process.exit(process.exitCode ?? 0);
  }
}

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        target: { type: 'string' },
        'admin-key': { type: 'string' },
        scenario: { type: 'string', default: 'authorize' },
        mode: { type: 'string' },
        rate: { type: 'string' },
        connections: { type: 'string', default: '32' },
        pipelining: { type: 'string', default: '1' },
        duration: { type: 'string' },
        warmup: { type: 'string', default: '2' },
        'warmup-requests': { type: 'string', default: '20000' },
        agents: { type: 'string' },
        workers: { type: 'string' },
        'max-actors': { type: 'string' },
        'database-url': { type: 'string' },
        'no-echo': { type: 'boolean', default: false },
        'no-peer': { type: 'boolean', default: false },
        floor: { type: 'boolean', default: false },
        embedded: { type: 'boolean', default: false },
        micro: { type: 'boolean', default: false },
        // Accepted for old scripts: the micro-benchmarks no longer run unless --micro asks.
        'no-micro': { type: 'boolean', default: false },
        out: { type: 'string', default: 'bench/results' },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n(npm run bench -- --help lists the options)\n`);
    process.exit(2);
  }
}
const { values: args } = parseCommandLine();

if (args.help === true) {
  // The usage is the comment at the top of this file; keep the two in step.
  process.stdout.write(`Usage: npm run bench -- [options]

  --target <url> --admin-key <key>   bench a running deployment (default: start the built
                                     service here in the production configuration: a fresh
                                     database on the PostgreSQL of DATABASE_URL and NATS_URL,
                                     else on the local ones at 127.0.0.1:5432 / :4222 when they
                                     answer, else embedded PGlite and the in-process bus)
  --embedded                         the embedded defaults even when PostgreSQL and NATS answer
  --scenario authorize|onboarding|webhook-lag|soak|agents|memory|all   (default authorize: the echo
                                     ceiling, the conventional peer and this service)
  --no-echo  --no-peer               leave out the echo ceiling / the conventional peer
  --floor                            also the floors at the run's own load: the bare echo, and a
                                     bare server that commits a row per request (group commit)
  quality [--seed <n>] [--errors]    the labeled-corpus quality figures (same as npm run quality)
  --mode saturation|rate  --rate <req/s>  --connections <n>  --pipelining <n>
  --duration <s>  --warmup <s>  --warmup-requests <n>  --agents <n>  --workers <n>
                                     (authorize: the warm-up lasts at least --warmup seconds,
                                     default 2, and until --warmup-requests answers, default
                                     20000, at most 30 s: the JIT settles by work, not time)
  --micro (the micro-benchmarks of the hot functions, alone)  --out <dir>  --quiet
  scale-out [--duration <s>] [--connections <n>]   one instance against two on one database
  agents only: --agents <n> (default 100000)  --max-actors <n> (the started service's
  ENGINE_MAX_ACTORS)  --database-url <url> (the target's live database, for seeding)
`);
  process.exit(0);
}

function int(name: string, v: string | undefined, def: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    process.stderr.write(`--${name} must be a non-negative number, got "${v}"\n`);
    process.exit(2);
  }
  return n;
}

const scenario = args.scenario as string;
const SCENARIOS = ['authorize', 'onboarding', 'webhook-lag', 'soak', 'agents', 'memory', 'all'];
if (!SCENARIOS.includes(scenario)) {
  process.stderr.write(`--scenario must be one of ${SCENARIOS.join(', ')}\n`);
  process.exit(2);
}
const rate = int('rate', args.rate, scenario === 'soak' ? 1000 : 0);
const mode = (args.mode ?? (rate > 0 ? 'rate' : 'saturation')) as 'rate' | 'saturation';
if (mode !== 'rate' && mode !== 'saturation') {
  process.stderr.write('--mode must be rate or saturation\n');
  process.exit(2);
}
if (mode === 'rate' && rate <= 0) {
  process.stderr.write('--mode rate needs --rate <requests per second>\n');
  process.exit(2);
}
const connections = Math.max(1, int('connections', args.connections, 32));
const pipelining = Math.max(1, int('pipelining', args.pipelining, 1));
const duration = int('duration', args.duration, scenario === 'soak' ? 600 : 20);
const warmup = int('warmup', args.warmup, 2);
const warmupRequests = int('warmup-requests', args['warmup-requests'], 20_000);
/** The longest a request-count warm-up may last. */
const MAX_WARMUP_SECONDS = 30;
const agents = Math.max(1, int('agents', args.agents, scenario === 'agents' ? 100_000 : 200));
const outDir = args.out as string;
const quiet = args.quiet === true;
const log = (s: string) => {
  if (!quiet) process.stderr.write(`${s}\n`);
};

const meta = { machine: machine(), commit: commit(process.cwd()), started_at: new Date().toISOString() };
/** PostgreSQL and NATS when there are some (bench/servers/locate.ts), for the service and the peer. */
const config = args.micro ? null : await benchConfiguration(process.env, { embedded: args.embedded === true });

/** Says, before anything runs, what the run does and about how long it takes. */
function announcePlan(): void {
  if (args.micro) {
    log('plan: the micro-benchmarks of the hot functions (about 20 s)');
    return;
  }
  const steps: string[] = [];
  let seconds = 0;
  if (scenario === 'memory') {
    log(
      'plan: three starts of the service, each read after 10 s and 30 s idle, and a first sandbox use: about 2 minutes',
    );
    return;
  }
  if (args.target === undefined) {
    // Embedded PGlite creates its live database (initdb and migrations) on every fresh start;
    // the sandbox one opens on its first use, from a copy of the fresh live one.
    const embedded = config?.databaseUrl == null;
    const start = embedded ? 15 : 3;
    steps.push(`start the service (~${start} s${embedded ? ': embedded PGlite creates its databases' : ''})`);
    seconds += start;
  }
  const run = scenario === 'all' ? ['authorize', 'onboarding', 'webhook-lag'] : [scenario];
  for (const s of run) {
    if (s === 'authorize') {
      steps.push(`provision ${agents + 26} agents (~${Math.max(4, Math.ceil(agents / 60))} s)`);
      seconds += Math.max(4, Math.ceil(agents / 60));
      if (!args['no-echo']) {
        const e = Math.min(duration, ECHO_SECONDS) + Math.min(warmup, 1);
        steps.push(`echo ceiling (${e} s)`);
        seconds += e;
      }
      if (!args['no-peer'] && config?.databaseUrl != null) {
        steps.push(`conventional peer (warm-up + ${duration} s)`);
        seconds += warmup + duration + 3;
      }
      if (args.floor) {
        steps.push(`floors: echo and durable (2 x (warm-up + ${duration} s))`);
        seconds += 2 * (warmup + duration + 3);
      }
      steps.push(`authorize (warm-up + ${duration} s)`);
      seconds += warmup + duration + 2;
    } else {
      steps.push(`${s} (${duration} s and its set-up)`);
      seconds += duration + 5;
    }
  }
  log(
    `plan: ${steps.join(', ')}: about ${seconds} s in all${scenario === 'authorize' || scenario === 'all' ? `, more while a warm-up waits for ${warmupRequests} answers (at most ${MAX_WARMUP_SECONDS} s each)` : ''}`,
  );
  if (config !== null && args.target === undefined) {
    log(`configuration: database: ${config.source.database}; events: ${config.source.nats}`);
  }
}

function progress(name: string) {
  return (s: {
    t: number;
    completed: number;
    errors: number;
    backlog: number;
    latencyMs: { p50: number; p99: number; max: number };
  }) => {
    if (quiet) return;
    process.stderr.write(
      `  ${name} [${String(s.t).padStart(4)} s] ${String(s.completed).padStart(7)} req/s  p50 ${s.latencyMs.p50} ms  p99 ${s.latencyMs.p99} ms  max ${s.latencyMs.max} ms${s.backlog > 0 ? `  backlog ${s.backlog}` : ''}${s.errors > 0 ? `  errors ${s.errors}` : ''}\n`,
    );
  };
}

async function openTarget(): Promise<Target> {
  if (args.target !== undefined) {
    if (args['admin-key'] === undefined) {
      process.stderr.write('--target needs --admin-key (the operator key, to provision a Client)\n');
      process.exit(2);
    }
    if (new URL(args.target).protocol !== 'http:') {
      process.stderr.write('--target must be an http:// URL (the load generator speaks plain HTTP/1.1)\n');
      process.exit(2);
    }
    return { url: args.target.replace(/\/$/, ''), adminKey: args['admin-key'], database: 'remote', started: null };
  }
  log('starting the service (built dist) ...');
  const startedAt = Date.now();
  const ticker = setInterval(
    () => log(`  still starting (${Math.round((Date.now() - startedAt) / 1000)} s) ...`),
    5000,
  );
  const started = await startService({
    databaseUrl: config?.databaseUrl ?? null,
    natsUrl: config?.natsUrl ?? null,
    workers: args.workers === undefined ? null : int('workers', args.workers, 1),
    extraEnv:
      args['max-actors'] === undefined
        ? {}
        : { ENGINE_MAX_ACTORS: String(Math.max(1, int('max-actors', args['max-actors'], 1))) },
  }).finally(() => clearInterval(ticker));
  log(`  ${started.url} on ${started.database} (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);
  return { url: started.url, adminKey: started.adminKey, database: started.database, started };
}

async function serverRss(t: Target): Promise<number | null> {
  const local = t.started?.rssBytes() ?? null;
  if (local !== null) return local;
  const s = await scrape(t.url, t.adminKey);
  return s === null ? null : sumOf(s, 'asas_process_resident_memory_bytes');
}

async function scenarioOnboarding(t: Target): Promise<void> {
  log('onboarding: provisioning a Client ...');
  const client = await (await import('./provision.js')).provisionClient(t, `bench onboarding ${Date.now()}`);
  const { host, port, hostHeader } = hostPort(t.url);
  const conns = Math.min(connections, 16);
  log(`onboarding: POST /api/v1/onboard at saturation, ${conns} connections, ${duration} s ...`);
  const result = await runLoad({
    mode: 'saturation',
    rate: 0,
    connections: conns,
    pipelining: 1,
    durationSeconds: duration,
    warmupSeconds: Math.min(warmup, 1),
    host,
    port,
    keepBodies: false,
    next: () => ({
      kind: 'onboard',
      bytes: buildRequest(
        'POST',
        hostHeader,
        '/api/v1/onboard',
        { 'x-api-key': client.clientKey },
        JSON.stringify(onboardBody(client.programId, 'onb')),
      ),
    }),
    onInterval: progress('onboard'),
  });
  process.stdout.write(
    `\n${table(LATENCY_HEADERS, [latencyRow('onboard', result.throughputPerSecond, result.latencyMs)])}\n`,
  );
  process.stdout.write(`statuses: ${JSON.stringify(result.byStatus)}\n`);
  const svg = renderChart(
    `POST /api/v1/onboard: ${result.throughputPerSecond} onboardings/s, p99 ${result.latencyMs.p99} ms`,
    `${meta.machine.cores} cores, Node ${meta.machine.node}, commit ${meta.commit}, ${t.database}, ${conns} connections`,
    [{ name: 'onboard', timeline: result.timeline }],
  );
  const files = writeResult(
    outDir,
    'onboarding',
    { scenario: 'onboarding', ...meta, target: t.url, onboarding: result },
    svg,
  );
  process.stdout.write(`wrote ${files.json}\nwrote ${files.svg}\n`);
}

async function scenarioWebhookLag(t: Target): Promise<void> {
  log('webhook-lag: provisioning, starting a local receiver ...');
  const setup = await provisionMix(t, 8, log);
  const answeredAt = new Map<string, number>();
  const lag = newHistogram();
  let delivered = 0;
  let duplicates = 0;
  const seen = new Set<string>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      res.writeHead(200).end();
      try {
        const ev = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          event_id: string;
          data?: { authorization_id?: string };
        };
        if (seen.has(ev.event_id)) {
          duplicates++;
          return;
        }
        seen.add(ev.event_id);
        const at = answeredAt.get(ev.data?.authorization_id ?? '');
        if (at !== undefined) {
          delivered++;
          lag.recordValue(Math.max(1, Math.round((now - at) * 1000)));
        }
      } catch {
        // not an event
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const rport = (receiver.address() as { port: number }).port;
  try {
    await call(t, 'POST', '/api/v1/webhooks', {
      apiKey: setup.main.principalKey,
      body: { url: `http://127.0.0.1:${rport}/hook`, event_types: ['authorization.decline'], description: 'bench lag' },
      expect: [201],
    });
    const { host, port, hostHeader } = hostPort(t.url);
    const r = rate > 0 ? rate : 200;
    const before = await scrape(t.url, t.adminKey);
    const AUTH_ID = Buffer.from('"authorization_id":"');
    log(`webhook-lag: ${r} declines/s for ${duration} s ...`);
    const result = await runLoad({
      mode: 'rate',
      rate: r,
      connections: Math.min(connections, 8),
      pipelining: 1,
      durationSeconds: duration,
      warmupSeconds: 0,
      host,
      port,
      keepBodies: true,
      next: mixGenerator(hostHeader, setup, [{ kind: 'blocked_mcc', weight: 100, expected: 'DECLINE' }]),
      classify: classifyDecision,
      onRecorded: (c) => {
        if (c.body === null) return;
        const i = c.body.indexOf(AUTH_ID);
        if (i < 0) return;
        const from = i + AUTH_ID.length;
        answeredAt.set(c.body.toString('latin1', from, c.body.indexOf(0x22, from)), performance.now());
      },
      onInterval: progress('decline'),
    });
    const expectedEvents = answeredAt.size;
    const deadline = Date.now() + 20_000;
    while (delivered < expectedEvents && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    const summary = summarise(lag);
    const after = await scrape(t.url, t.adminKey);
    const serverSuccesses =
      before === null || after === null
        ? null
        : sumOf(after, 'asas_webhook_deliveries_total', ['outcome="success"']) -
          sumOf(before, 'asas_webhook_deliveries_total', ['outcome="success"']);
    process.stdout.write(`server-counted successful deliveries: ${serverSuccesses}\n`);
    process.stdout.write(
      `\n${table(
        ['run', 'declines', 'events delivered', 'duplicates', 'lag p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms'],
        [
          [
            'webhook lag',
            expectedEvents,
            delivered,
            duplicates,
            summary.p50,
            summary.p90,
            summary.p99,
            summary.p999,
            summary.max,
          ],
        ],
      )}\n`,
    );
    const files = writeResult(
      outDir,
      'webhook-lag',
      {
        scenario: 'webhook-lag',
        ...meta,
        target: t.url,
        declines: expectedEvents,
        delivered,
        duplicates,
        server_successful_deliveries: serverSuccesses,
        lag_ms: summary,
        load: result,
      },
      null,
    );
    process.stdout.write(`wrote ${files.json}\n`);
  } finally {
    receiver.close();
  }
}

async function scenarioSoak(t: Target): Promise<void> {
  log(`soak: provisioning ${agents} agents ...`);
  const setup = await provisionMix(t, agents, log);
  const wait = setup.expiredAfterMs - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const { host, port, hostHeader } = hostPort(t.url);
  const r = rate > 0 ? rate : 1000;
  const minutes: { minute: number; hist: ReturnType<typeof hdr.build>; rss: number[] }[] = [];
  const t0 = performance.now();
  const minuteOf = () => Math.floor((performance.now() - t0) / 60_000);
  const bucket = (m: number) => {
    while (minutes.length <= m) minutes.push({ minute: minutes.length + 1, hist: newHistogram(), rss: [] });
    return minutes[m] as (typeof minutes)[number];
  };
  const sampler = setInterval(() => {
    void serverRss(t).then((v) => {
      if (v !== null) bucket(minuteOf()).rss.push(v);
    });
  }, 5000);
  log(`soak: ${r} req/s for ${duration} s ...`);
  let result: LoadResult;
  try {
    result = await runLoad({
      mode: 'rate',
      rate: r,
      connections,
      pipelining,
      durationSeconds: duration,
      warmupSeconds: 0,
      host,
      port,
      keepBodies: true,
      classify: classifyDecision,
      next: mixGenerator(hostHeader, setup),
      onRecorded: (_c, ms) => bucket(minuteOf()).hist.recordValue(Math.max(1, Math.round(ms * 1000))),
      onInterval: (s) => {
        if (s.t % 10 === 0) progress('soak')(s);
      },
    });
  } finally {
    clearInterval(sampler);
  }
  const rows = minutes.map((m) => {
    const s = summarise(m.hist);
    const rss = m.rss.length > 0 ? Math.round(Math.max(...m.rss) / 1048576) : '';
    return [m.minute, s.count, s.p50, s.p99, s.max, rss];
  });
  process.stdout.write(`\n${table(['minute', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'server RSS MiB'], rows)}\n`);
  // Drift compares whole minutes: the few stragglers recorded after the last full minute would
  // make a "last minute" of a handful of requests.
  const full = minutes.filter((m) => summarise(m.hist).count >= r * 30);
  const first = full[0];
  const last = full[full.length - 1];
  const drift =
    first !== undefined && last !== undefined
      ? {
          p99_first_minute_ms: summarise(first.hist).p99,
          p99_last_minute_ms: summarise(last.hist).p99,
          rss_first_minute_bytes: first.rss.length > 0 ? Math.max(...first.rss) : null,
          rss_last_minute_bytes: last.rss.length > 0 ? Math.max(...last.rss) : null,
        }
      : null;
  process.stdout.write(`drift: ${JSON.stringify(drift)}\n`);
  const svg = renderChart(
    `Soak: ${r} req/s for ${duration} s, p99 ${result.latencyMs.p99} ms`,
    `${meta.machine.cores} cores, Node ${meta.machine.node}, commit ${meta.commit}, ${t.database}`,
    [{ name: 'authorize', timeline: result.timeline }],
  );
  const files = writeResult(
    outDir,
    'soak',
    {
      scenario: 'soak',
      ...meta,
      target: t.url,
      rate: r,
      per_minute: minutes.map((m) => ({ minute: m.minute, latency_ms: summarise(m.hist), rss_bytes: m.rss })),
      drift,
      load: result,
    },
    svg,
  );
  process.stdout.write(`wrote ${files.json}\nwrote ${files.svg}\n`);
}

interface MemorySample {
  readonly t: number;
  readonly touched: number;
  readonly decisions_per_second: number;
  readonly rss_bytes: number | null;
  readonly actors: number | null;
  readonly actor_bytes: number | null;
  readonly shard_heap_bytes: number | null;
  readonly main_heap_bytes: number | null;
}

const MiB = (b: number | null) => (b === null ? '' : (b / 1048576).toFixed(0));

/**
 * Memory with many distinct agents (bench/scenarios/agents.ts): seeds `--agents` agents with a
 * mandate each by COPY into the service's live database, authorizes once for every agent and
 * samples the server's RSS and actor-cache gauges every 5 s. RSS must level off once the actor
 * cache is full instead of growing with the agents touched.
 */
async function scenarioAgents(t: Target): Promise<void> {
  if (t.database === 'embedded PGlite') {
    throw new Error('--scenario agents needs PostgreSQL: set DATABASE_URL (or --target with --database-url)');
  }
  log(`agents: provisioning a Client and a Principal through the API ...`);
  const setup = await provisionAgentsPrincipal(t);
  let databaseUrl = args['database-url'] ?? null;
  if (databaseUrl === null && t.started !== null && config?.databaseUrl != null) {
    databaseUrl = await findServiceDatabase(config.databaseUrl, setup.principal.principalId);
  }
  if (databaseUrl === null) throw new Error('--scenario agents against --target needs --database-url <live database>');
  log(
    `agents: seeding ${agents} agents with a mandate each by COPY into ${new URL(databaseUrl).pathname.slice(1)} ...`,
  );
  const seedStarted = performance.now();
  const ids = await seedAgents(databaseUrl, setup, agents, log);
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const samples: MemorySample[] = [];
  let last = { t: 0, touched: 0 };
  const sample = async (t0: number, touched: number): Promise<MemorySample> => {
    const [rss, m] = await Promise.all([serverRss(t), scrape(t.url, t.adminKey)]);
    const now = (performance.now() - t0) / 1000;
    const g = (name: string) => (m === null ? null : sumOf(m, name));
    const s: MemorySample = {
      t: Math.round(now),
      touched,
      decisions_per_second: now > last.t ? Math.round((touched - last.touched) / (now - last.t)) : 0,
      rss_bytes: rss,
      actors: g('asas_actor_cache_size'),
      actor_bytes: g('asas_actor_cache_bytes'),
      shard_heap_bytes: g('asas_shard_heap_used_bytes'),
      main_heap_bytes: g('asas_process_heap_used_bytes'),
    };
    last = { t: now, touched };
    samples.push(s);
    log(
      `  agents [${String(s.t).padStart(5)} s] touched ${String(touched).padStart(8)}  ${String(s.decisions_per_second).padStart(5)} decisions/s  RSS ${MiB(s.rss_bytes)} MiB  actors ${s.actors}  actor bytes ${MiB(s.actor_bytes)} MiB  shard heap ${MiB(s.shard_heap_bytes)} MiB`,
    );
    return s;
  };

  const { host, port, hostHeader } = hostPort(t.url);
  log(`agents: POST /api/v1/authorize once for each of ${ids.length} agents, ${connections} connections ...`);
  const t0 = performance.now();
  await sample(t0, 0);
  const drive = driveAgents({ host, port, hostHeader, apiKey: setup.principal.principalKey, agents: ids, connections });
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(() => sample(t0, drive.progress().touched).then(() => {}));
  }, 5000);
  const result = await drive.done.finally(() => clearInterval(timer));
  await sampling;
  const final = await sample(t0, result.completed);

  // Where the cache filled (its size stops growing), and how RSS moved after that.
  const maxActors = Math.max(...samples.map((s) => s.actors ?? 0));
  const full = samples.find((s) => (s.actors ?? 0) >= maxActors * 0.99) ?? final;
  const afterFull = samples.filter((s) => s.touched >= full.touched && s.rss_bytes !== null);
  const rssAfterFull = afterFull.map((s) => s.rss_bytes as number);
  // Heap used includes garbage not yet collected; its lowest sample once the cache is full
  // bounds what the cached actors really hold (minus the heap the shard had before any).
  const heapAfterFull = afterFull.flatMap((s) => (s.shard_heap_bytes === null ? [] : [s.shard_heap_bytes]));
  const heapBefore = samples[0]?.shard_heap_bytes ?? null;
  const summary = {
    agents_seeded: ids.length,
    seed_seconds: Math.round(seedSeconds),
    touched: result.completed,
    decisions_per_second: result.throughputPerSecond,
    decisions: result.allByLabel,
    cache_full_at: { t: full.t, touched: full.touched, actors: full.actors, rss_bytes: full.rss_bytes },
    rss_after_full_min_bytes: rssAfterFull.length > 0 ? Math.min(...rssAfterFull) : null,
    rss_after_full_max_bytes: rssAfterFull.length > 0 ? Math.max(...rssAfterFull) : null,
    rss_end_bytes: final.rss_bytes,
    shard_heap_before_bytes: heapBefore,
    shard_heap_after_full_min_bytes: heapAfterFull.length > 0 ? Math.min(...heapAfterFull) : null,
    shard_heap_after_full_max_bytes: heapAfterFull.length > 0 ? Math.max(...heapAfterFull) : null,
    actors_end: final.actors,
    estimated_bytes_per_actor:
      final.actors !== null && final.actors > 0 && final.actor_bytes !== null
        ? Math.round(final.actor_bytes / final.actors)
        : null,
  };

  const step = Math.max(1, Math.ceil(samples.length / 30));
  const rows = samples
    .filter((_, i) => i % step === 0 || i === samples.length - 1)
    .map((s) => [
      s.t,
      s.touched,
      s.decisions_per_second,
      MiB(s.rss_bytes),
      s.actors ?? '',
      MiB(s.actor_bytes),
      MiB(s.shard_heap_bytes),
      MiB(s.main_heap_bytes),
    ]);
  process.stdout.write(
    `\n${table(['s', 'agents touched', 'decisions/s', 'RSS MiB', 'actors cached', 'actor est. MiB', 'shard heap MiB', 'main heap MiB'], rows)}\n\n`,
  );
  process.stdout.write(
    `${result.completed} agents touched in ${result.durationSeconds} s (${result.throughputPerSecond} decisions/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms); answers ${JSON.stringify(result.allByLabel)}; lost ${result.lost}\n`,
  );
  process.stdout.write(
    `actor cache full (${full.actors} actors) at ${full.touched} agents touched, RSS ${MiB(full.rss_bytes)} MiB; from there to ${final.touched} agents RSS stayed between ${MiB(summary.rss_after_full_min_bytes)} and ${MiB(summary.rss_after_full_max_bytes)} MiB (end ${MiB(final.rss_bytes)} MiB)\n`,
  );
  if (summary.shard_heap_after_full_min_bytes !== null && heapBefore !== null && (full.actors ?? 0) > 0) {
    process.stdout.write(
      `shard heap used after the cache filled: ${MiB(summary.shard_heap_after_full_min_bytes)} to ${MiB(summary.shard_heap_after_full_max_bytes)} MiB (${MiB(heapBefore)} MiB before any actor): at most ${Math.round((summary.shard_heap_after_full_min_bytes - heapBefore) / (full.actors as number))} bytes per cached actor, estimated ${summary.estimated_bytes_per_actor}\n`,
    );
  }
  const files = writeResult(
    outDir,
    'agents',
    {
      scenario: 'agents',
      ...meta,
      target: { url: t.url, database: t.database, started_by_bench: t.started !== null },
      options: { agents, connections, max_actors: args['max-actors'] ?? null },
      summary,
      samples,
      load: result,
    },
    null,
  );
  process.stdout.write(`wrote ${files.json}\n`);
}

/** Idle memory of the service the bench starts itself (three starts; no --target). */
async function scenarioMemory(): Promise<void> {
  if (args.target !== undefined) throw new Error('--scenario memory starts the service itself: drop --target');
  const states = await measureMemory({
    databaseUrl: process.env.DATABASE_URL ?? null,
    natsUrl: process.env.NATS_URL ?? null,
    workers: args.workers === undefined ? null : int('workers', args.workers, 1),
    idleSeconds: 10,
    settleSeconds: 30,
    log,
  });
  process.stdout.write(
    `\n${table(
      [
        'state',
        'start s',
        'RSS MB, 10 s idle',
        'RSS MB, 30 s idle',
        'V8 heap total MB, 10 s / 30 s',
        'V8 heap used MB',
        'external MB',
      ],
      states.map((m) => [
        m.state,
        m.start_seconds?.toFixed(1) ?? '-',
        m.rss_mb ?? '-',
        m.rss_settled_mb ?? '-',
        `${m.v8_heap_total_mb ?? '-'} / ${m.v8_heap_total_settled_mb ?? '-'}`,
        m.v8_heap_used_mb ?? '-',
        m.external_mb ?? '-',
      ]),
    )}\n`,
  );
  const database = process.env.DATABASE_URL === undefined ? 'embedded PGlite' : 'PostgreSQL';
  const files = writeResult(outDir, 'memory', { scenario: 'memory', ...meta, database, states }, null);
  process.stdout.write(`wrote ${files.json}\n`);
}

async function main(): Promise<void> {
  announcePlan();
  if (args.micro) {
    const micro = await runMicro(log);
    process.stdout.write(`\n${micro.table}\n`);
    const files = writeResult(outDir, 'micro', { scenario: 'micro', ...meta, results: micro.results }, null);
    process.stdout.write(`wrote ${files.json}\n`);
    if (args.micro) return;
  }
  if (scenario === 'memory') {
    await scenarioMemory();
    return;
  }
  const t = await openTarget();
  let failed = false;
  try {
    const run = scenario === 'all' ? ['authorize', 'onboarding', 'webhook-lag'] : [scenario];
    for (const s of run) {
      try {
        if (s === 'authorize') {
          await scenarioAuthorize(t, {
            mode,
            rate,
            connections,
            pipelining,
            duration,
            warmup,
            warmupRequests,
            maxWarmupSeconds: MAX_WARMUP_SECONDS,
            agents,
            echo: !args['no-echo'],
            peer: !args['no-peer'],
            floor: args.floor,
            outDir,
            config: config as BenchConfiguration,
            meta,
            log,
            progress,
            serverRss,
          });
        } else if (s === 'onboarding') await scenarioOnboarding(t);
        else if (s === 'webhook-lag') await scenarioWebhookLag(t);
        else if (s === 'soak') await scenarioSoak(t);
        else if (s === 'agents') await scenarioAgents(t);
      } catch (err) {
        failed = true;
        process.stderr.write(`scenario ${s} failed: ${(err as Error).message}\n`);
      }
    }
  } finally {
    if (t.started !== null) {
      const code = await t.started.stop();
      log(`service stopped (exit ${code})`);
    }
  }
  if (failed) process.exitCode = 1;
}

await main();
