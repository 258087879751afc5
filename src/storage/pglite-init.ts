// Prepares an embedded PGlite data directory (initdb, then the migrations) in a short-lived
// child process. initdb and the first migrations grow the WebAssembly memory of the instance
// that runs them to ~800 MB, and WebAssembly memory never shrinks: run in the service's own
// thread, that peak would stay as the service's idle RSS. A worker thread (the earlier way)
// gave the WebAssembly memory back when it exited but left ~80-100 MB behind in the process:
// the malloc arenas of the compiler threads that tiered up initdb's code are never returned
// (docs/benchmarks.md, 2026-11-27). A child process gives everything back when it exits; the
// service then opens the prepared directory, which costs a fraction.
// A marker names the last migration applied this way, so an up-to-date directory skips the
// child. The service still runs migrate() itself afterwards, so the marker is only a shortcut.

import { fork } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGliteOptions } from '@electric-sql/pglite';
import pino from 'pino';
import { connect } from './connect.js';
import { migrate } from './migrate.js';
import { MIGRATIONS_DIR } from './paths.js';

/** PostgreSQL settings of every embedded instance: small buffers, for a development database. */
export const EMBEDDED_POSTGRESQL_CONF: readonly string[] = ['shared_buffers=16MB', 'wal_buffers=1MB'];

const MARKER = 'asas-migrated';

type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
// The compiler's lib has no WebAssembly namespace (no DOM lib); Node has it at run time.
const { compile } = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } })
  .WebAssembly;

/** PGlite's WebAssembly modules, compiled once per process. */
export interface PgliteModules {
  readonly pgliteWasmModule: WasmModule;
  readonly initdbWasmModule: WasmModule;
}

let compiled: Promise<PgliteModules> | null = null;

export function pgliteModules(): Promise<PgliteModules> {
  compiled ??= (async () => {
    const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const [pglite, initdb] = await Promise.all([
      readFile(join(dist, 'pglite.wasm')),
      readFile(join(dist, 'initdb.wasm')),
    ]);
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all([compile(pglite), compile(initdb)]);
    return { pgliteWasmModule, initdbWasmModule };
  })();
  return compiled;
}

interface PrepareJob {
  readonly dir: string;
  readonly label: string;
  readonly logLevel: string;
}

function latestMigration(): string {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .at(-1) as string;
}

/** True when `dir` was prepared by an earlier run (whatever migration it reached). */
export function isPrepared(dir: string): boolean {
  return existsSync(join(dir, MARKER));
}

/**
 * Creates and migrates `dir` in a child process, unless it is already at the latest migration.
 * `copyFreshTo`: when `dir` was created just now (empty, migrated), a copy of it is left there,
 * so a second database (the embedded sandbox) later starts from it instead of its own initdb.
 */
export async function prepareEmbeddedDataDir(
  dir: string,
  label: string,
  logLevel: string,
  copyFreshTo?: string,
): Promise<void> {
  const marker = join(dir, MARKER);
  const latest = latestMigration();
  if (existsSync(marker) && readFileSync(marker, 'utf8') === latest) return;
  const fresh = !existsSync(join(dir, 'PG_VERSION'));
  const job: PrepareJob = { dir, label, logLevel };
  const child = fork(fileURLToPath(import.meta.url), [PREPARE_ARG, JSON.stringify(job)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // The service's own flags (an inspector port, a heap limit) are not the child's business.
    execArgv: [],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`PGlite preparation of ${label} exited with ${code ?? signal}`)),
    );
  });
  writeFileSync(marker, latest);
  if (fresh && copyFreshTo !== undefined && !existsSync(copyFreshTo)) {
    // Closed cleanly by the child and not opened since: a consistent, empty, migrated cluster.
    const partial = `${copyFreshTo}.partial`;
    rmSync(partial, { recursive: true, force: true });
    cpSync(dir, partial, { recursive: true });
    renameSync(partial, copyFreshTo);
  }
}

const PREPARE_ARG = '--asas-prepare-pglite';

async function prepare(job: PrepareJob): Promise<void> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create(job.dir, {
    postgresqlconf: [...EMBEDDED_POSTGRESQL_CONF],
    ...(await pgliteModules()),
  });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  await server.start();
  const port = Number(String(server.getServerConn()).split(':').pop());
  const sql = connect(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, embedded: true });
  try {
    await migrate(sql, pino({ level: job.logLevel }), job.label);
  } finally {
    await sql.end({ timeout: 5 });
    await server.stop();
    await db.close();
  }
}

if (process.argv[2] === PREPARE_ARG && process.argv[1] === fileURLToPath(import.meta.url)) {
  await prepare(JSON.parse(process.argv[3] as string) as PrepareJob);
  process.exit(0);
}
