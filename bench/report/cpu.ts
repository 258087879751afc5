// CPU per decision, per process and thread, over the measured window of a load run (Linux):
// /proc/<pid>/task/<tid>/stat before and after, divided by the requests answered in the window.
// Threads of the service are named by what /metrics says of them (the main thread is the
// process id; each shard worker's OS thread id is asas_shard_os_thread_id); PostgreSQL
// backends are found in pg_stat_activity by their database; nats-server by its process name.
import { readdirSync, readFileSync } from 'node:fs';
import postgres from 'postgres';
import { socketTarget } from '../../src/storage/db.js';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** utime + stime of a /proc stat line, in ticks (fields 14 and 15, after the command in parentheses). */
export function statTicks(line: string): number {
  const rest = line.slice(line.lastIndexOf(')') + 2).split(' ');
  return Number(rest[11]) + Number(rest[12]);
}

function read(path: string): number | null {
  try {
    return statTicks(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function threadsOf(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tids) {
    const v = read(`/proc/${pid}/task/${t}/stat`);
    if (v !== null) out.set(Number(t), v);
  }
  return out;
}

function pidsNamed(comm: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() === comm) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const line = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = line.slice(line.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[1]) === pid) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

/** What to measure: each entry names a component; its value is read in ticks. */
export interface CpuTargets {
  /** The system's server process (its threads are split as `threads` names them). */
  readonly pid: number | null;
  /** Named OS threads of `pid` (tid -> name); the process id itself is its main thread. */
  readonly threads?: () => Promise<Map<number, string>>;
  /** Count the server's child processes too (a node:cluster peer). */
  readonly children?: boolean;
  /** PostgreSQL database names (prefixes) whose backends belong to this system. */
  readonly databases?: readonly string[];
  /** A PostgreSQL URL of the same server, to read pg_stat_activity. */
  readonly postgresUrl?: string | null;
  /** Count nats-server. */
  readonly nats?: boolean;
}

export interface CpuRow {
  readonly component: string;
  /** CPU seconds in the window. */
  readonly seconds: number;
  /** Microseconds of CPU per answered request. */
  readonly usPerRequest: number;
  /** Share of one core over the window, percent. */
  readonly corePercent: number;
}

export interface CpuBreakdown {
  readonly windowSeconds: number;
  readonly requests: number;
  readonly rows: readonly CpuRow[];
  /** Sum of the rows that belong to the system (the shared PostgreSQL processes included). */
  readonly totalUsPerRequest: number;
  /** The busiest unnamed threads of the server process (tid, µs per request), for a closer look. */
  readonly otherThreads: readonly { readonly tid: number; readonly usPerRequest: number }[];
  readonly notes: readonly string[];
}

type Snapshot = Map<string, Map<number, number>>;

const OTHER_THREADS = 'other threads (V8 helpers, libuv pool)';

/** start() and stop() read the counters at the window's ends; breakdown() divides by the requests. */
export class CpuProbe {
  readonly #t: CpuTargets;
  #names = new Map<number, string>();
  #before: Snapshot = new Map();
  #startedAt = 0;
  #bench = process.cpuUsage();
  #benchUsed = process.cpuUsage();
  #after: Snapshot = new Map();
  #windowSeconds = 0;
  readonly #notes: string[] = [];

  constructor(t: CpuTargets) {
    this.#t = t;
  }

  async start(): Promise<void> {
    this.#names = (await this.#t.threads?.()) ?? new Map();
    this.#before = await this.#snapshot();
    this.#startedAt = performance.now();
    this.#bench = process.cpuUsage();
  }

  /** Reads the counters again: the end of the window. */
  async stop(): Promise<void> {
    this.#benchUsed = process.cpuUsage(this.#bench);
    this.#after = await this.#snapshot();
    this.#windowSeconds = (performance.now() - this.#startedAt) / 1000;
  }

  /** CPU per request of the window between start() and stop(), for `requests` answered in it. */
  breakdown(requests: number): CpuBreakdown {
    const windowSeconds = this.#windowSeconds;
    const rows: CpuRow[] = [];
    const add = (component: string, seconds: number) =>
      rows.push({
        component,
        seconds: Math.round(seconds * 100) / 100,
        usPerRequest: requests > 0 ? Math.round((seconds * 1e6) / requests) : 0,
        corePercent: windowSeconds > 0 ? Math.round((seconds * 100) / windowSeconds) : 0,
      });
    for (const [component, now] of this.#after) {
      const was = this.#before.get(component) ?? new Map<number, number>();
      let sum = 0;
      // A process or thread that appeared in the window counts from zero.
      for (const [id, v] of now) sum += v - (was.get(id) ?? 0);
      add(component, sum / TICKS_PER_SECOND);
    }
    const systemTotal = rows.reduce((n, r) => n + r.usPerRequest, 0);
    add('load generator (this bench)', (this.#benchUsed.user + this.#benchUsed.system) / 1e6);
    const others = this.#after.get(OTHER_THREADS) ?? new Map<number, number>();
    const was = this.#before.get(OTHER_THREADS) ?? new Map<number, number>();
    const otherThreads = [...others]
      .map(([tid, v]) => ({
        tid,
        usPerRequest: requests > 0 ? Math.round(((v - (was.get(tid) ?? 0)) * 1e6) / TICKS_PER_SECOND / requests) : 0,
      }))
      .filter((x) => x.usPerRequest > 0)
      .sort((a, b) => b.usPerRequest - a.usPerRequest)
      .slice(0, 8);
    return {
      windowSeconds: Math.round(windowSeconds * 10) / 10,
      requests,
      rows,
      totalUsPerRequest: systemTotal,
      otherThreads,
      notes: this.#notes,
    };
  }

  async #snapshot(): Promise<Snapshot> {
    const s: Snapshot = new Map();
    const put = (component: string, id: number, v: number | null) => {
      if (v === null) return;
      let m = s.get(component);
      if (m === undefined) {
        m = new Map();
        s.set(component, m);
      }
      m.set(id, (m.get(id) ?? 0) + v);
    };
    const { pid } = this.#t;
    if (pid !== null) {
      for (const [tid, v] of threadsOf(pid)) {
        const name = tid === pid ? 'main thread' : (this.#names.get(tid) ?? OTHER_THREADS);
        put(name, tid, v);
      }
      if (this.#t.children === true) {
        for (const c of childrenOf(pid)) put('child processes', c, read(`/proc/${c}/stat`));
      }
    }
    if (this.#t.databases !== undefined && this.#t.postgresUrl) {
      const backends = await postgresBackends(this.#t.postgresUrl, this.#t.databases);
      if (backends === null) this.#notes.push('PostgreSQL backends: pg_stat_activity unreadable');
      else {
        for (const b of backends) {
          put(
            b.shared ? 'PostgreSQL shared processes (WAL writer, checkpointer: whole server)' : 'PostgreSQL backends',
            b.pid,
            read(`/proc/${b.pid}/stat`),
          );
        }
      }
    }
    if (this.#t.nats === true) {
      for (const p of pidsNamed('nats-server')) put('nats-server (whole server)', p, read(`/proc/${p}/stat`));
    }
    return s;
  }
}

async function postgresBackends(
  url: string,
  databases: readonly string[],
): Promise<{ pid: number; shared: boolean }[] | null> {
  const t = socketTarget(url);
  const sql = postgres(t.url, { ...t.options, max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ pid: number; datname: string | null; backend_type: string }[]>`
      select pid, datname, backend_type from pg_stat_activity where pid <> pg_backend_pid()`;
    return rows
      .filter((r) =>
        r.datname === null
          ? ['walwriter', 'checkpointer', 'background writer'].includes(r.backend_type)
          : databases.some((d) => (r.datname as string).startsWith(d)),
      )
      .map((r) => ({ pid: r.pid, shared: r.datname === null }));
  } catch {
    return null;
  } finally {
    await sql.end({ timeout: 2 });
  }
}

/** The service's shard worker threads, by the OS thread id each reports in /metrics. */
export function shardThreads(samples: Map<string, number> | null): Map<number, string> {
  const out = new Map<number, string>();
  if (samples === null) return out;
  for (const [k, v] of samples) {
    const m = /^asas_shard_os_thread_id\{shard="([^"]+)"\}$/.exec(k);
    if (m !== null && v > 0) out.set(v, `shard worker ${m[1]}`);
  }
  return out;
}
