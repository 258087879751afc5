// Soak: the service as its own process in the production configuration (real PostgreSQL, real
// NATS JetStream, `--single-threaded-gc` as `npm start` runs it, one shard worker and the default
// pools, rate limits and fair share as shipped, webhooks to a local receiver) under an open-loop
// realistic mix for SOAK_SECONDS (default 120) at SOAK_RATE decisions per second, reached by a
// linear ramp over the first SOAK_RAMP_SECONDS (15), sampled every SOAK_SAMPLE_SECONDS (10).
// The 30-minute run of docs/benchmarks.md is
// `SOAK_SECONDS=1800 SOAK_RATE=400 npx vitest run test/drills/soak.test.ts` (half the measured
// capacity of this mix with one shard worker, ~800 decisions/s on the quiet 2-core VM: at 1,000/s
// the service fell behind within 30 s, on a quiet machine); SOAK_REPORT=<file> also writes the report as JSON there, and
// SOAK_SERVICE_NODE_OPTIONS adds Node options to the service's command line (e.g. --trace-gc, or
// `--import ./test/fixtures/drills/soak-leak.mjs`, a deliberate leak, to see the memory bound
// fail). The test's time limit is the run plus 15 minutes: the setup, the drain, and reading the
// outbox's webhook events at the end (~2 s per 30 s at 1,000/s here, so ~2 minutes after a
// 30-minute run).
// SOAK_RATE defaults to 100: what this 2-core machine carries with the load generator, the
// receiver, PostgreSQL and NATS on it while other people's test runs load it (at a load average
// of 12, 200/s already queued past the fair share's quarter-deadline and got 429s).
//
// The mix (test/fixtures/drills/soak-load.mjs, a worker thread): per 100 decisions 85 approvals,
// 10 holds each captured or released a second after its answer, 5 declines (blocked MCC), and a
// log read per 20 decisions, across 2 Clients x 2 Principals x SOAK_AGENTS (50) agents; every
// Principal has a webhook for every event type, so the outbox -> NATS -> dispatcher -> receiver
// path runs the whole time. Latency is measured from each request's due time.
//
// Every sample: the service's resident memory (VmRSS of the process, all threads), p50/p99 of
// the decisions answered in the window, the outbox backlog (asas_outbox_backlog, both
// environments), the webhook backlog (the dispatcher's NATS consumer: pending + unacknowledged,
// plus deliveries pending in webhook_deliveries), webhooks received, errors. "Steady" below is
// the samples after SOAK_WARMUP_SECONDS (default 60: the ramp, the JIT, the caches of agents and
// keys and the pools fill; the resident memory climbs for the first ~40 s).
//
// What fails the run, and why those bounds:
// - Any error: a 5xx, a transport error, an answer other than the one the request was built for
//   (a 4xx, 429 included: the load stays far below the per-key and per-Client limits), a safe
//   decision (system_unavailable: the service could not decide in time), a request never
//   answered, a line the service logged at error level. At a rate the service carries none of
//   these has a reason to happen. One exception, counted and reported: a safe decision answered
//   within 3 s of a stall of the disk: a second in which PostgreSQL's WAL flushing grew by
//   900 ms or more, or two seconds in a row whose flushing exceeded twice the run's median
//   second by 900 ms (a CI run on 2026-12-03 answered 2 safe decisions that the one-second
//   rule did not excuse; its output did not show why), the stall spanning that much time
//   before the second's end (a 4.7-s fdatasync shows in one second, all of it past). On a
//   failure the assertion prints, for each safe decision, the seconds around it (WAL flushing,
//   the host's I/O and CPU pressure stalls, steal) and the service's warnings. The disk stalled past the 1 s answer
//   deadline, so no decision of that time could be made durable in time; this VM's disk does
//   so a few times an hour: in the 30-minute runs of 2026-12-02 the stalls had 941-4,702 ms of
//   flushing, every other second at most 770 ms at 400/s. The same exception holds for a
//   failed scrape of /metrics (its gauges read the database): the sample is skipped. The test
//   reads the flushing from pg_stat_wal each second, which needs `track_wal_io_timing = on`;
//   with it off nothing is excused.
// - The outbox backlog not back to 0 within 10 s of the load's end (the relay keeps up; what is
//   left is the last moments' events).
// - A webhook event missing or extra: the receiver must get (by event_id) exactly the webhook
//   events of the outbox (all but authorization.decided) within 60 s of the end, every decline,
//   capture and release the load generator saw among them, only documented types; the service
//   must count no failed delivery attempt, and nothing may be left pending.
// - Resident memory: the mean of the second half of the steady samples more than 15% above the
//   first half's. Noise (the collector's sawtooth, a few MB of a ~260 MB process) moves the
//   half-means by a few percent. 15% is ~40 MB: over 30 minutes at 1,000/s the halves are ~14
//   minutes (~870,000 decisions) apart, so a leak of ~50 bytes per decision fails; the 2-minute
//   run at 100/s (halves ~30 s apart) only catches a leak of ~13 KB per decision. The
//   least-squares slope per minute is reported, not bounded: over a minute it is mostly the
//   sawtooth.
// - A backlog backing up: any sample of the outbox or the webhook backlog above 5 s of
//   decisions (5 x rate); or the outbox backlog's least-squares slope over the steady samples
//   amounting to more than 2 s of decisions over the steady period (slope x minutes > 2 x rate).
//   A relay 1% behind at 1,000/s gains ~700 events a minute, 20,000 over 29 minutes; one that
//   keeps up samples a few batches in flight, and a one-off pause of a second (a spike in one
//   sample) moves the slope by less than the bound. The webhook backlog's slope is reported.
// - p99: the median p99 of the last quarter of the steady windows above 5 times the reference
//   plus 100 ms, the reference being the median p99 of the first half of the steady windows
//   (medians, so that neither one lucky quiet window sets the reference nor one stall of the
//   disk at the end fails the run: this VM's disk, idle, has fdatasync stalls of 140 ms at its
//   p99.9 and up to 600 ms, and every durable commit waits for one). Generous: the machine is
//   shared and one 10-s window can hold another program's burst (p99 moved between 130 and 570 ms from window to window at 100/s under a
//   load average of 12); a service degrading over the run (a queue, a collector working on a
//   growing heap) exceeds it over 30 minutes.
import { readFileSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import postgres from 'postgres';
import { afterAll, expect, it } from 'vitest';
import {
  createAgentWithMandate,
  mapLimit,
  onboardPrincipal,
  type PrincipalSetup,
  provisionClient,
  putThresholds,
} from '../../bench/provision.js';
import { sleep, until } from '../fixtures/drills/instances.js';
import { deleteStream, ownStream } from '../fixtures/drills/nats-stream.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';
import { halves, mean, median, type Point, slope, table } from '../fixtures/drills/soak-stats.js';
import { request } from '../fixtures/server.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

const num = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${v}`);
  return n;
};

const SECONDS = num('SOAK_SECONDS', 120);
const RATE = num('SOAK_RATE', 100);
const SAMPLE_SECONDS = num('SOAK_SAMPLE_SECONDS', 10);
const RAMP_SECONDS = Math.min(num('SOAK_RAMP_SECONDS', 15), SECONDS / 4);
const WARMUP_SECONDS = Math.max(RAMP_SECONDS, Math.min(num('SOAK_WARMUP_SECONDS', 60), SECONDS / 2));
const AGENTS = num('SOAK_AGENTS', 50);
const CONNECTIONS = num('SOAK_CONNECTIONS', 64);
const FOLLOW_UP_MS = 1_000;
const DRAIN_MS = 10_000;
const WEBHOOK_DRAIN_MS = 60_000;

/** Every type a webhook can receive (docs/events.md); authorization.decided is NATS only. */
const WEBHOOK_TYPES = new Set([
  'gate.fired',
  'authorization.decline',
  'step_up.created',
  'cts.red',
  'cts.critical',
  'kya.zone.red',
  'kya.zone.critical',
  'session.terminate',
  'trust.promotion',
  'webhook.delivery_exhausted',
  'authorization.captured',
  'authorization.released',
  'authorization.expired',
  'authorization.refunded',
  'budget.threshold_reached',
  'budget.exhausted',
  'principal_budget.threshold_reached',
  'principal_budget.exhausted',
  'mandate.updated',
  'mandate.revoked',
]);

const HIGH = 65_535;
const MANDATE = {
  maxPerTransaction: '500.00',
  maxDaily: '100000000.00',
  maxMonthly: '1000000000.00',
  blockedMccs: ['7995'],
};

interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

interface LoadWindow {
  readonly decisions: LatencySummary;
  readonly other: LatencySummary;
  readonly sent: Record<string, number>;
  readonly answers: Record<string, number>;
  readonly declined: string[];
  readonly captured: string[];
  readonly released: string[];
  readonly errors: { http5xx: number; transport: number; unexpected: number; safeDecision: number };
  readonly errorSamples: string[];
  /** Wall-clock times (ms) the safe decisions were answered, and the first few of them. */
  readonly safeAt: number[];
  readonly safeSamples: string[];
  readonly inFlight: number;
  readonly sentTotal: number;
  readonly answeredTotal: number;
  readonly failedTotal: number;
}

interface LoadDone {
  readonly window: LoadWindow;
  readonly totals: LoadWindow;
  /** The decisions the run was to send. */
  readonly planned: number;
}

interface Sample {
  /** Seconds since the load started. */
  readonly t: number;
  readonly rssMb: number;
  /** V8 heap used on the main thread, in all shard workers, and memory outside V8's heaps (MB). */
  readonly heapMainMb: number;
  readonly heapShardsMb: number;
  readonly externalMb: number;
  readonly decisions: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly outboxBacklog: number;
  readonly webhookBacklog: number;
  readonly webhooksReceived: number;
  readonly errors: number;
  readonly inFlight: number;
}

let service: ServiceProcess | undefined;
let receiver: Receiver | undefined;
let nc: NatsConnection | undefined;
let stream: string | undefined;
let worker: Worker | undefined;

afterAll(async () => {
  await worker?.terminate();
  await service?.cleanup();
  await receiver?.close();
  await nc?.close();
  if (stream !== undefined) await deleteStream(stream);
});

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? Number.NaN : Math.round(Number(m[1]) / 102.4) / 10;
}

/** Cumulative counters read each second: PostgreSQL's WAL timing and the host's stall times (ms). */
interface MachineCounters {
  readonly at: number;
  readonly walSyncMs: number;
  readonly walWriteMs: number;
  readonly walSyncs: number;
  readonly ioSomeMs: number;
  readonly cpuSomeMs: number;
  readonly stealMs: number;
}

/** One second of them: the growth since the previous poll, and the poll's distance from it. */
interface MachineSecond extends MachineCounters {
  readonly gapMs: number;
}

/** The "some" total of a /proc/pressure file, in ms (NaN where the kernel has none). */
function pressureMs(resource: 'io' | 'cpu'): number {
  try {
    const m = /^some .*total=(\d+)/m.exec(readFileSync(`/proc/pressure/${resource}`, 'utf8'));
    return m === null ? Number.NaN : Number(m[1]) / 1000;
  } catch {
    return Number.NaN;
  }
}

/** The host's I/O and CPU pressure stall times and the CPUs' steal time, cumulative, in ms. */
function hostCounters(): Pick<MachineCounters, 'ioSomeMs' | 'cpuSomeMs' | 'stealMs'> {
  // /proc/stat's first line: cpu user nice system idle iowait irq softirq steal ... in USER_HZ (100/s).
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]?.trim().split(/\s+/) ?? [];
  return { ioSomeMs: pressureMs('io'), cpuSomeMs: pressureMs('cpu'), stealMs: Number(fields[8] ?? Number.NaN) * 10 };
}

const COUNTERS = ['walSyncMs', 'walWriteMs', 'walSyncs', 'ioSomeMs', 'cpuSomeMs', 'stealMs'] as const;

function machineSecond(a: MachineCounters, b: MachineCounters): MachineSecond {
  const grown = Object.fromEntries(COUNTERS.map((k) => [k, Math.round(b[k] - a[k])]));
  return { ...(grown as Record<(typeof COUNTERS)[number], number>), at: b.at, gapMs: b.at - a.at };
}

/**
 * The disk's stalls among the seconds: a second whose WAL flushing reached 900 ms (and 90% of
 * the time since the poll before), or two seconds in a row whose flushing together exceeded
 * twice the run's median second by 900 ms or more (a slow flush ending in one second and the
 * one a commit queued behind it ending in the next; at 100 decisions/s a second flushes for
 * ~100 ms). A stall is the interval its flushing filled: it ends at the poll that saw it and
 * began that much earlier (a 4.7-s fdatasync shows in one poll, all of it in the past).
 */
function diskStalls(seconds: MachineSecond[]): { from: number; to: number }[] {
  const usual = median(seconds.map((x) => x.walSyncMs));
  const stalls: { from: number; to: number }[] = [];
  seconds.forEach((x, i) => {
    const before = seconds[i - 1];
    if (x.walSyncMs >= Math.max(900, 0.9 * x.gapMs)) stalls.push({ from: x.at - x.walSyncMs, to: x.at });
    else if (before !== undefined && before.walSyncMs + x.walSyncMs - 2 * usual >= 900)
      stalls.push({ from: x.at - before.walSyncMs - x.walSyncMs, to: x.at });
  });
  return stalls;
}

/** The largest value of each column over the seconds, and its 99th percentile. */
function machineSummary(seconds: MachineSecond[]): Record<string, { max: number; p99: number }> {
  return Object.fromEntries(
    (['gapMs', ...COUNTERS] as const).map((k) => {
      const xs = seconds.map((x) => x[k]).sort((p, q) => p - q);
      return [k, { max: xs.at(-1) ?? 0, p99: xs[Math.floor(0.99 * (xs.length - 1))] ?? 0 }];
    }),
  );
}

function mb(bytes: number): number {
  return Math.round(bytes / 104_857.6) / 10;
}

/** The values of a metric of the Prometheus text, by its label text ('' without labels). */
function metric(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)/.exec(line);
    if (m === null || m[1] !== name) continue;
    out.set(m[2] ?? '', Number(m[3]));
  }
  return out;
}

async function scrape(s: ServiceProcess): Promise<string> {
  const res = await fetch(`${s.url}/metrics`, { headers: { 'x-admin-key': s.adminKey } });
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  return res.text();
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

it(
  `soaks ${SECONDS} s at ${RATE} decisions/s: memory, p99 and backlogs flat, no error, every webhook delivered`,
  async () => {
    const nats = ownStream('soak');
    stream = nats.NATS_STREAM;
    receiver = await startReceiver();
    // What arrived, by event_id (a redelivery is counted, not stored twice); `requests` is emptied
    // as it goes so that a long run keeps no bodies.
    const received = new Map<string, string>();
    const receivedByAuthorization = new Set<string>();
    let duplicates = 0;
    const rec = receiver;
    rec.respond = (r) => {
      const e = JSON.parse(r.body) as { event_id: string; event_type: string; data: { authorization_id?: string } };
      if (received.has(e.event_id)) duplicates++;
      received.set(e.event_id, e.event_type);
      if (e.data.authorization_id !== undefined)
        receivedByAuthorization.add(`${e.event_type} ${e.data.authorization_id}`);
      rec.requests.length = 0;
      return 200;
    };

    service = await startServiceProcess(
      {
        ...nats,
        WEBHOOK_URL_POLICY: 'any',
        // The production defaults on this 2-core machine (src/config/config.ts), not the tests'.
        WORKERS: '1',
        DATABASE_POOL_SIZE: '10',
        ENGINE_POOL_SIZE: '4',
        RATE_LIMIT_REQUESTS_PER_SECOND: '1000',
        RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '5000',
      },
      {
        execArgv: [
          '--single-threaded-gc',
          ...(process.env.SOAK_SERVICE_NODE_OPTIONS ?? '').split(/\s+/).filter((a) => a.length > 0),
        ],
      },
    );
    const svc = service;
    const pid = svc.child.pid as number;
    await until(async () => (await request(svc, 'GET', '/ready')).status === 200, 30_000);
    nc = await connect({ servers: nats.NATS_URL });
    const jsm = await jetstreamManager(nc);
    const sql = postgres(svc.databaseUrl, { max: 1, onnotice: () => {} });

    // Two Clients, two Principals each, AGENTS agents each with a roomy mandate; the per-agent
    // count gates lifted (each agent decides about once a second at 1,000/s); one webhook each.
    const target = { url: svc.url, adminKey: svc.adminKey };
    const principals: PrincipalSetup[] = [];
    for (const c of [0, 1]) {
      const client = await provisionClient(target, `soak client ${c}`);
      for (const p of [0, 1]) principals.push(await onboardPrincipal(target, client, `soak${c}${p}`));
    }
    const fleet: { apiKey: string; agents: string[] }[] = [];
    for (const [n, p] of principals.entries()) {
      await putThresholds(target, p, {
        rapid_fire_max_count: HIGH,
        risk_velocity_max_count: HIGH,
        amount_outlier_multiplier: HIGH,
        merchant_decline_flag_count: HIGH,
        session_max_consecutive_denials: 1000,
      });
      const hook = await request(svc, 'POST', '/api/v1/webhooks', {
        apiKey: p.principalKey,
        body: { url: `${rec.url}/p${n}`, event_types: ['*'] },
      });
      expect(hook.status, hook.text).toBe(201);
      const agents = await mapLimit(
        Array.from({ length: AGENTS }, (_, i) => i),
        8,
        (i) => createAgentWithMandate(target, p, `soak agent ${n}.${i}`, MANDATE),
      );
      fleet.push({ apiKey: p.principalKey, agents });
    }

    const declined: string[] = [];
    const captured: string[] = [];
    const released: string[] = [];
    const samples: Sample[] = [];
    const scrapeFailures: { at: number; message: string }[] = [];
    let errorsSoFar = 0;
    const errorSamples: string[] = [];
    const collect = (w: LoadWindow) => {
      declined.push(...w.declined);
      captured.push(...w.captured);
      released.push(...w.released);
      errorsSoFar += w.errors.http5xx + w.errors.transport + w.errors.unexpected + w.errors.safeDecision;
      for (const e of w.errorSamples) if (errorSamples.length < 20) errorSamples.push(e);
    };
    const webhookBacklog = async (): Promise<number> => {
      const info = await jsm.consumers.info(nats.NATS_STREAM, `${nats.NATS_STREAM}_webhooks`);
      const [row] = await sql<
        { n: number }[]
      >`select count(*)::int as n from webhook_deliveries where status = 'pending'`;
      return info.num_pending + info.num_ack_pending + (row?.n ?? 0);
    };

    // The disk's stalls (worked out at the end, see diskStalls): each second, the time PostgreSQL
    // spent flushing WAL (all backends; the flushes are serialised), which PostgreSQL keeps only
    // with track_wal_io_timing on. Beside it, kept to explain a safe decision: the WAL's write
    // time and flush count, the kernel's pressure stall times (/proc/pressure: time some task
    // waited for the disk or for a CPU) and the time the hypervisor took the CPUs away (steal).
    const [timing] = await sql<{ on: string }[]>`select current_setting('track_wal_io_timing') as on`;
    const machine: MachineSecond[] = [];
    let lastMachine: MachineCounters | null = null;
    const walPoll =
      timing?.on === 'on'
        ? setInterval(() => {
            sql<{ ms: number; writeMs: number; syncs: number }[]>`
              select wal_sync_time::float8 as ms, wal_write_time::float8 as "writeMs", wal_sync::float8 as syncs
              from pg_stat_wal`.then(
              ([r]) => {
                const counters: MachineCounters = {
                  at: Date.now(),
                  walSyncMs: r?.ms ?? 0,
                  walWriteMs: r?.writeMs ?? 0,
                  walSyncs: r?.syncs ?? 0,
                  ...hostCounters(),
                };
                if (lastMachine !== null) machine.push(machineSecond(lastMachine, counters));
                lastMachine = counters;
              },
              () => {},
            );
          }, 1_000)
        : null;

    const load = new Worker(new URL('../fixtures/drills/soak-load.mjs', import.meta.url), {
      workerData: {
        url: svc.url,
        principals: fleet,
        rate: RATE,
        rampMs: RAMP_SECONDS * 1000,
        durationMs: SECONDS * 1000,
        connections: CONNECTIONS,
        timeoutMs: 30_000,
        followUpMs: FOLLOW_UP_MS,
      },
    });
    worker = load;
    let pendingSample: ((w: LoadWindow) => void) | undefined;
    let doneWith: ((v: LoadDone) => void) | undefined;
    const done = new Promise<LoadDone>((resolve, reject) => {
      doneWith = resolve;
      load.once('error', reject);
    });
    load.on('message', (m: { type: 'sample'; window: LoadWindow } | ({ type: 'done' } & LoadDone)) => {
      pendingSample?.(m.window);
      if (m.type === 'done') doneWith?.(m);
    });
    const started = Date.now();
    console.log(
      `soak: ${SECONDS} s at ${RATE} decisions/s (reached over the first ${RAMP_SECONDS} s; + captures/releases 10%, log reads 5%), ${fleet.length} Principals x ${AGENTS} agents, service pid ${pid}`,
    );

    let finished = false;
    void done.then(() => {
      finished = true;
    });
    for (let k = 1; k * SAMPLE_SECONDS <= SECONDS; k++) {
      const wait = started + k * SAMPLE_SECONDS * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
      if (finished) break;
      const window = await new Promise<LoadWindow>((resolve) => {
        pendingSample = resolve;
        load.postMessage('sample');
      });
      pendingSample = undefined;
      collect(window);
      // A scrape the service could not answer (its gauges read the database) is no sample; it is
      // an error unless the disk stalled around it (checked at the end, as safe decisions).
      const text = await scrape(svc).catch((e: Error) => {
        scrapeFailures.push({ at: Date.now(), message: e.message });
        console.log(`soak sample skipped: ${e.message}`);
        return null;
      });
      if (text === null) continue;
      const s: Sample = {
        t: Math.round((Date.now() - started) / 100) / 10,
        rssMb: rssMb(pid),
        heapMainMb: mb(sum(metric(text, 'asas_process_heap_used_bytes'))),
        heapShardsMb: mb(sum(metric(text, 'asas_shard_heap_used_bytes'))),
        externalMb: mb(sum(metric(text, 'asas_nodejs_external_memory_bytes'))),
        decisions: window.decisions.count,
        p50: window.decisions.p50,
        p99: window.decisions.p99,
        max: window.decisions.max,
        outboxBacklog: sum(metric(text, 'asas_outbox_backlog')),
        webhookBacklog: await webhookBacklog(),
        webhooksReceived: received.size,
        errors: errorsSoFar,
        inFlight: window.inFlight,
      };
      samples.push(s);
      console.log(`soak sample ${JSON.stringify(s)}`);
    }

    // The load's end: every request answered or failed (bounded by the requests' 30-s timeout).
    pendingSample = collect;
    const { totals, planned } = await done;
    pendingSample = undefined;
    const loadEnded = Date.now();
    let outboxDrainMs = Number.NaN;
    for (;;) {
      const backlog = sum(metric(await scrape(svc), 'asas_outbox_backlog'));
      if (backlog === 0) {
        outboxDrainMs = Date.now() - loadEnded;
        break;
      }
      if (Date.now() - loadEnded > DRAIN_MS * 3) break;
      await sleep(200);
    }

    // Every webhook event of the outbox (all but authorization.decided) must reach the receiver.
    const principalIds = principals.map((p) => p.principalId);
    // The outbox_events view parses every batch; after 30 minutes at 1,000/s that is gigabytes of
    // authorization.decided entries. A batch holding a webhook event has its type's name in its
    // text (migrations/0080: [event_id, event_type, client_id, principal_id, ...] tuples), so
    // only the batches whose text names one are parsed.
    const readingExpected = Date.now();
    const patterns = [...WEBHOOK_TYPES].map((t) => `%"${t}"%`);
    const expectedRows = await sql<{ event_id: string; event_type: string }[]>`
    select e.t->>0 as event_id, e.t->>1 as event_type
    from outbox_batches b cross join lateral json_array_elements(b.events::json) as e(t)
    where b.events like any(${patterns}::text[]) and e.t->>1 <> 'authorization.decided'
      and e.t->>3 = any(${principalIds}::text[])`;
    const expectedReadMs = Date.now() - readingExpected;
    const expected = new Map(expectedRows.map((r) => [r.event_id, r.event_type]));
    let webhookDrainMs = Number.NaN;
    for (;;) {
      if ([...expected.keys()].every((id) => received.has(id))) {
        webhookDrainMs = Date.now() - loadEnded;
        break;
      }
      if (Date.now() - loadEnded > WEBHOOK_DRAIN_MS) break;
      await sleep(250);
    }
    const missing = [...expected.keys()].filter((id) => !received.has(id));
    const extra = [...received.keys()].filter((id) => !expected.has(id));
    const missingDeclines = declined.filter((id) => !receivedByAuthorization.has(`authorization.decline ${id}`));
    const missingCaptures = captured.filter((id) => !receivedByAuthorization.has(`authorization.captured ${id}`));
    const missingReleases = released.filter((id) => !receivedByAuthorization.has(`authorization.released ${id}`));
    const unknownTypes = [...new Set(received.values())].filter((t) => !WEBHOOK_TYPES.has(t));
    const endMetrics = await scrape(svc);
    const deliveries = metric(endMetrics, 'asas_webhook_deliveries_total');
    const failedDeliveries = [...deliveries.entries()].filter(([l]) => !l.includes('"success"')).map(([, v]) => v);
    const finalBacklog = await webhookBacklog();
    const loggedErrors = svc
      .stdout()
      .split('\n')
      .filter((l) => /"level":(50|60)/.test(l));

    // The report.
    const steady = samples.filter((s) => s.t > WARMUP_SECONDS);
    const pts = (f: (s: Sample) => number): Point[] => steady.map((s) => ({ t: s.t / 60, v: f(s) }));
    const rssHalves = halves(steady.map((s) => s.rssMb));
    const reference = median(steady.slice(0, Math.max(1, Math.floor(steady.length / 2))).map((s) => s.p99));
    // The end of the run: the median p99 of its last quarter (of the steady windows, at least one).
    const late = median(steady.slice(-Math.max(1, Math.floor(steady.length / 4))).map((s) => s.p99));
    const steadyMinutes = steady.length < 2 ? 0 : ((steady.at(-1)?.t ?? 0) - (steady[0]?.t ?? 0)) / 60;
    const last = samples[samples.length - 1];
    const receivedTypes: Record<string, number> = {};
    for (const t of received.values()) receivedTypes[t] = (receivedTypes[t] ?? 0) + 1;
    // Where the database read whole tables during the run (a scan over a table that grows with
    // the run makes the latency climb with it, as the agent log read once did).
    const scans = (
      await sql<
        { relname: string; seq_scan: string; seq_tup_read: string; idx_scan: string | null; n_live_tup: string }[]
      >`
        select relname, seq_scan::text, seq_tup_read::text, idx_scan::text, n_live_tup::text
        from pg_stat_user_tables where seq_tup_read > 0 order by seq_tup_read desc limit 10`
    ).map((r) => ({
      table: r.relname,
      seqScans: Number(r.seq_scan),
      rowsReadBySeqScans: Number(r.seq_tup_read),
      indexScans: Number(r.idx_scan ?? 0),
      liveRows: Number(r.n_live_tup),
    }));
    if (walPoll !== null) clearInterval(walPoll);
    await sql.end({ timeout: 5 });
    const walStalls = diskStalls(machine);
    const nearStall = (t: number) => walStalls.some((s) => t >= s.from - 3_000 && t <= s.to + 3_000);
    const stallMs = walStalls.reduce((a, x) => a + x.to - x.from, 0);
    const atStall = totals.safeAt.filter(nearStall).length;
    const scrapesAtStall = scrapeFailures.filter((f) => nearStall(f.at)).length;
    // What surrounded the first safe decisions: the seconds from 4 s before the first to 3 s
    // after the fifth (at, in ms from the first; then gap, WAL flush ms, WAL write ms, flushes,
    // I/O and CPU pressure ms, steal ms), and the service's first warnings in that time.
    const firstSafe = totals.safeAt.slice(0, 5);
    const safeFrom = (firstSafe[0] ?? 0) - 4_000;
    const safeTo = (firstSafe.at(-1) ?? 0) + 3_000;
    const logTime = (l: string) => Number(/"time":(\d+)/.exec(l)?.[1] ?? Number.NaN);
    const aroundSafe = {
      firstAnsweredAt: firstSafe.length > 0 ? new Date(firstSafe[0] ?? 0).toISOString() : null,
      answeredAtMs: firstSafe.map((t) => t - (firstSafe[0] ?? 0)),
      nearDiskStall: firstSafe.map(nearStall),
      seconds: machine
        .filter((m) => m.at >= safeFrom && m.at <= safeTo)
        .map((m) => [m.at - (firstSafe[0] ?? 0), m.gapMs, ...COUNTERS.map((k) => m[k])]),
      serviceWarnings: svc
        .stdout()
        .split('\n')
        .filter((l) => /"level":(40|50|60)/.test(l) && logTime(l) >= safeFrom && logTime(l) <= safeTo)
        .slice(0, 8)
        .map((l) => l.slice(0, 240)),
    };
    const report = {
      seconds: SECONDS,
      rate: RATE,
      rampSeconds: RAMP_SECONDS,
      sampleSeconds: SAMPLE_SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      principals: fleet.length,
      agentsPerPrincipal: AGENTS,
      samples,
      slopesPerMinute: {
        rssMb: slope(pts((s) => s.rssMb)),
        p99Ms: slope(pts((s) => s.p99)),
        outboxBacklog: slope(pts((s) => s.outboxBacklog)),
        webhookBacklog: slope(pts((s) => s.webhookBacklog)),
      },
      rssMeanMb: { firstHalf: rssHalves.first, secondHalf: rssHalves.second },
      sequentialScans: scans,
      p99Ms: { reference, late, last: last?.p99 ?? null },
      totals: {
        sent: totals.sentTotal,
        answered: totals.answeredTotal,
        failed: totals.failedTotal,
        byKind: totals.sent,
        answers: totals.answers,
        decisions: totals.decisions,
        otherRequests: totals.other,
        errors: totals.errors,
        walTiming: timing?.on === 'on',
        diskStalls: walStalls.length,
        diskStallMs: stallMs,
        safeDecisionsAtDiskStalls: atStall,
        scrapeFailures: scrapeFailures.length,
        scrapeFailuresAtDiskStalls: scrapesAtStall,
        safeSamples: totals.safeSamples,
        machineSeconds: machineSummary(machine),
        outboxDrainMs,
        webhookDrainMs,
        webhookEventsExpected: expected.size,
        expectedEventsReadMs: expectedReadMs,
        webhookEventsReceived: received.size,
        webhookRedeliveries: duplicates,
        webhookTypes: receivedTypes,
        webhookDeliveryAttempts: Object.fromEntries(deliveries),
        serviceErrorLogLines: loggedErrors.length,
        serviceLogBytes: svc.stdout().length,
      },
    };
    console.log(
      `soak samples (${SECONDS} s at ${RATE} decisions/s):\n${table(
        [
          't s',
          'RSS MB',
          'heap main',
          'heap shards',
          'external',
          'decisions',
          'p50 ms',
          'p99 ms',
          'max ms',
          'outbox',
          'webhook bl',
          'webhooks rcvd',
          'errors',
        ],
        samples.map((s) => [
          s.t,
          s.rssMb,
          s.heapMainMb,
          s.heapShardsMb,
          s.externalMb,
          s.decisions,
          s.p50,
          s.p99,
          s.max,
          s.outboxBacklog,
          s.webhookBacklog,
          s.webhooksReceived,
          s.errors,
        ]),
      )}\nslopes per minute after the ${WARMUP_SECONDS}-s warm-up: RSS ${report.slopesPerMinute.rssMb.toFixed(2)} MB, p99 ${report.slopesPerMinute.p99Ms.toFixed(2)} ms, outbox backlog ${report.slopesPerMinute.outboxBacklog.toFixed(1)}, webhook backlog ${report.slopesPerMinute.webhookBacklog.toFixed(1)}; RSS mean ${rssHalves.first.toFixed(1)} -> ${rssHalves.second.toFixed(1)} MB; p99 reference ${reference} ms, last quarter ${late} ms, last window ${last?.p99} ms\ndisk: ${timing?.on === 'on' ? `${walStalls.length} stalls (WAL flushing of 900 ms in a second, or 900 ms over the usual in two, ${stallMs} ms in all); ${totals.errors.safeDecision} safe decisions, ${atStall} of them within 3 s of a stall; ${scrapeFailures.length} failed scrapes, ${scrapesAtStall} within 3 s of a stall` : `track_wal_io_timing off: stalls not measured; ${totals.errors.safeDecision} safe decisions`}\nper second, max (p99): ${Object.entries(
        report.totals.machineSeconds,
      )
        .map(([k, v]) => `${k} ${v.max} (${v.p99})`)
        .join(
          ', ',
        )}\ntotals: ${totals.sentTotal} requests, ${totals.answeredTotal} answered, decisions p50 ${totals.decisions.p50} ms p99 ${totals.decisions.p99} ms max ${totals.decisions.max} ms; outbox drained in ${outboxDrainMs} ms, webhooks in ${webhookDrainMs} ms (${received.size}/${expected.size} events, ${duplicates} redeliveries)\nsequential scans by table: ${scans.map((x) => `${x.table} ${x.seqScans} scans, ${x.rowsReadBySeqScans} rows (${x.liveRows} live)`).join('; ')}\nsoak report ${JSON.stringify(report)}`,
    );
    if (process.env.SOAK_REPORT) writeFileSync(process.env.SOAK_REPORT, `${JSON.stringify(report, null, 2)}\n`);

    // No error of any kind, every request answered.
    expect(errorSamples).toEqual([]);
    // Safe decisions only where the disk stalled past the deadline (the header's exception).
    expect(totals.errors, `what surrounded the first safe decisions: ${JSON.stringify(aroundSafe)}`).toEqual({
      http5xx: 0,
      transport: 0,
      unexpected: 0,
      safeDecision: atStall,
    });
    expect(scrapesAtStall).toBe(scrapeFailures.length);
    expect(totals.failedTotal).toBe(0);
    expect(totals.answeredTotal).toBe(totals.sentTotal);
    expect(totals.decisions.count).toBe(planned);
    expect(loggedErrors.slice(0, 5)).toEqual([]);
    // The outbox drains, every webhook event arrives, nothing else does.
    expect(outboxDrainMs).toBeLessThanOrEqual(DRAIN_MS);
    expect(missing.length).toBe(0);
    // The relay deletes published batches after an hour: on a longer run the outbox no longer
    // holds the first events, so only the other direction (nothing of the outbox missing) holds.
    if (SECONDS < 3_000) expect(extra.length).toBe(0);
    expect(missingDeclines).toEqual([]);
    expect(missingCaptures).toEqual([]);
    expect(missingReleases).toEqual([]);
    expect(unknownTypes).toEqual([]);
    expect(declined.length).toBeGreaterThan(0);
    expect(captured.length).toBeGreaterThan(0);
    expect(released.length).toBeGreaterThan(0);
    expect(failedDeliveries.every((v) => v === 0)).toBe(true);
    expect(finalBacklog).toBe(0);
    // Flat: memory, backlog, p99.
    expect(steady.length).toBeGreaterThanOrEqual(2);
    expect(rssHalves.second).toBeLessThanOrEqual(rssHalves.first * 1.15);
    expect(Math.max(...samples.map((s) => s.outboxBacklog))).toBeLessThanOrEqual(RATE * 5);
    expect(Math.max(...samples.map((s) => s.webhookBacklog))).toBeLessThanOrEqual(RATE * 5);
    expect(report.slopesPerMinute.outboxBacklog * steadyMinutes).toBeLessThanOrEqual(RATE * 2);
    expect(reference).toBeGreaterThan(0);
    expect(late).toBeLessThanOrEqual(reference * 5 + 100);
    expect(mean(steady.map((s) => s.decisions))).toBeGreaterThan(0);
  },
  (SECONDS + 900) * 1000,
);
