// Child processes the bench starts when it has no --target: the built service (on a fresh
// PostgreSQL database when DATABASE_URL is set, else embedded PGlite in a temporary
// DATA_DIR) and the bare uWebSockets.js echo server.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { socketTarget } from '../../src/storage/db.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** dist/bench/servers/ -> dist/src/main.js (or .build/<x>/...). */
const MAIN = join(HERE, '..', '..', 'src', 'main.js');
const ECHO = join(HERE, 'echo-server.js');
const PEER = join(HERE, 'peer-server.js');
const FLOOR = join(HERE, 'floor-server.js');

/**
 * Node flags of the service in production, as scripts/start.sh (package.json's `start`, the
 * Dockerfile's CMD) gives them: --single-threaded-gc, V8's collections on the allocating thread
 * without parallel helper threads, which on a machine whose cores are all busy (the edge, the
 * shard workers, PostgreSQL, nats-server) wait for each other and stretch the pauses
 * (docs/benchmarks.md).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--single-threaded-gc'];

/**
 * MALLOC_ARENA_MAX of the service on the embedded defaults, as scripts/start.sh (`npm start`,
 * the image's CMD) sets it when DATABASE_URL is unset; with DATABASE_URL it leaves glibc's
 * default. A MALLOC_ARENA_MAX in the bench's own environment is passed instead, to compare.
 */
export const EMBEDDED_MALLOC_ARENA_MAX = '1';

export interface Started {
  readonly url: string;
  readonly pid: number;
  readonly adminKey: string;
  /** Database used, for the result record ("embedded" or the URL without credentials). */
  readonly database: string;
  /** The live database's URL when the service runs on PostgreSQL (another instance can join it). */
  readonly databaseUrl?: string | null;
  /** Resident set size of the process, from /proc (Linux), in bytes; null elsewhere. */
  rssBytes(): number | null;
  stop(): Promise<number | null>;
}

function waitForLine(child: ChildProcess, test: (line: string) => string | null, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`${what} did not start within 60 s: ${stderr.slice(-500)}`)),
      60_000,
    );
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      let i = buf.indexOf('\n');
      while (i >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const hit = test(line);
        if (hit !== null) {
          clearTimeout(timer);
          resolve(hit);
          return;
        }
        i = buf.indexOf('\n');
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code} before listening: ${stderr.slice(-1000)}`));
    });
  });
}

function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

function stopChild(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) {
      resolve(child.exitCode);
      return;
    }
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

export async function startEcho(): Promise<Started> {
  const child = spawn(process.execPath, [ECHO, '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await waitForLine(child, (l) => /^PORT (\d+)$/.exec(l)?.[1] ?? null, 'echo server');
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    adminKey: '',
    database: 'none',
    rssBytes: () => rssOf(child.pid as number),
    stop: () => stopChild(child),
  };
}

/**
 * A bench server (a script printing "PORT <n>") on its own database: DATABASE_URL, and the
 * named variables of the bench's own environment passed through.
 */
async function startDatabaseServer(
  script: string,
  name: string,
  databaseUrl: string,
  passThrough: readonly string[],
): Promise<Started> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl };
  for (const k of passThrough) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  const child = spawn(process.execPath, [script, '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await waitForLine(child, (l) => /^PORT (\d+)$/.exec(l)?.[1] ?? null, name);
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    adminKey: '',
    database: `PostgreSQL ${new URL(databaseUrl).host}`,
    databaseUrl,
    rssBytes: () => rssOf(child.pid as number),
    stop: () => stopChild(child),
  };
}

/**
 * The conventional peer (peer-server.ts) on its own database (bench/peer/database.ts):
 * `PEER_POOL` and `PEER_PROCESSES` from the bench's environment pass through.
 */
export function startPeer(databaseUrl: string): Promise<Started> {
  return startDatabaseServer(PEER, 'peer server', databaseUrl, ['PEER_POOL', 'PEER_PROCESSES']);
}

/** The durable floor (floor-server.ts) on its own database; `FLOOR_STATEMENTS` passes through. */
export function startFloor(databaseUrl: string): Promise<Started> {
  return startDatabaseServer(FLOOR, 'floor server', databaseUrl, ['FLOOR_STATEMENTS']);
}

export interface ServiceOptions {
  /** Base PostgreSQL URL; a fresh database is created on that server and dropped after. */
  readonly databaseUrl: string | null;
  readonly natsUrl: string | null;
  readonly workers: number | null;
  readonly extraEnv?: Record<string, string>;
  /** DATA_DIR to use and keep (a restart on it); default a fresh temporary one, removed at stop. */
  readonly dataDir?: string;
}

export async function startService(o: ServiceOptions): Promise<Started> {
  const adminKey = `bench_${randomBytes(16).toString('hex')}`;
  const dataDir = o.dataDir ?? mkdtempSync(join(tmpdir(), 'asas-bench-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_KEY: adminKey,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    WEBHOOK_URL_POLICY: 'any',
    // The load bench drives a few keys far beyond the per-key and per-Client defaults.
    RATE_LIMIT_REQUESTS_PER_SECOND: '0',
    RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '0',
    ...o.extraEnv,
  };
  let dbName: string | null = null;
  let adminUrl: string | null = null;
  if (o.databaseUrl !== null) {
    const u = new URL(o.databaseUrl);
    dbName = `asas_bench_${randomBytes(4).toString('hex')}`;
    u.pathname = `/${dbName}`;
    env.DATABASE_URL = u.toString();
    u.pathname = '/postgres';
    adminUrl = u.toString();
  }
  const arenas = process.env.MALLOC_ARENA_MAX ?? (o.databaseUrl === null ? EMBEDDED_MALLOC_ARENA_MAX : undefined);
  if (arenas !== undefined) env.MALLOC_ARENA_MAX = arenas;
  if (o.natsUrl !== null) env.NATS_URL = o.natsUrl;
  if (o.workers !== null) env.WORKERS = String(o.workers);
  // Profile or tune the service the bench starts, e.g. BENCH_SERVER_NODE_OPTIONS="--cpu-prof
  // --cpu-prof-dir=/tmp/prof": given on the command line (NODE_OPTIONS refuses --cpu-prof), so
  // the shard worker threads inherit them and write a profile each.
  // The service runs as `npm start` runs it (SERVICE_NODE_FLAGS); BENCH_SERVER_GC=parallel
  // leaves V8's parallel GC helpers on, to compare.
  const nodeArgs = [
    ...(process.env.BENCH_SERVER_GC === 'parallel' ? [] : SERVICE_NODE_FLAGS),
    ...(process.env.BENCH_SERVER_NODE_OPTIONS ?? '').split(/\s+/).filter((a) => a.length > 0),
  ];
  const child = spawn(process.execPath, [...nodeArgs, MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await waitForLine(
    child,
    (l) => {
      if (!l.includes('"listening"')) return null;
      try {
        return String((JSON.parse(l) as { port: number }).port);
      } catch {
        return null;
      }
    },
    'service',
  );
  // Keep draining the child's output so a chatty log never blocks it; BENCH_SERVICE_LOG=<file>
  // keeps it (e.g. with BENCH_SERVER_NODE_OPTIONS=--trace-gc).
  const keep = process.env.BENCH_SERVICE_LOG;
  if (keep !== undefined && keep !== '') child.stdout?.pipe(createWriteStream(keep));
  else child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    adminKey,
    database: env.DATABASE_URL === undefined ? 'embedded PGlite' : `PostgreSQL ${new URL(env.DATABASE_URL).host}`,
    databaseUrl: env.DATABASE_URL ?? null,
    rssBytes: () => rssOf(child.pid as number),
    async stop() {
      const code = await stopChild(child);
      if (o.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
      // BENCH_KEEP_DATABASE=1 keeps the run's database for inspection (row sizes, plans).
      if (adminUrl !== null && dbName !== null && process.env.BENCH_KEEP_DATABASE !== '1') {
        const target = socketTarget(adminUrl);
        const sql = postgres(target.url, { ...target.options, max: 1, onnotice: () => {} });
        try {
          for (const n of [dbName, `${dbName}_sandbox`])
            await sql.unsafe(`drop database if exists "${n}" with (force)`);
        } finally {
          await sql.end({ timeout: 5 });
        }
      }
      return code;
    },
  };
}
