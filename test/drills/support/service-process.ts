// The built service as its own process (npm start's entry point) on a fresh database of the
// shared PostgreSQL, for the drills that signal it: its port, its exit and its log lines.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { PG_BASE_URL, TEST_POOLS } from '../../fixtures/server.js';
import { MAIN_JS } from './drill.js';

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly url: string;
  readonly adminKey: string;
  readonly databaseUrl: string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  /** Everything the process wrote to stdout so far (JSON log lines). */
  stdout(): string;
  /** Kills it if still running, removes its data directory and drops its databases. */
  cleanup(): Promise<void>;
}

export async function startServiceProcess(
  env: Record<string, string> = {},
  /** Node options before the entry point, e.g. ['--import', <a preload of the test's>]. */
  options: { execArgv?: readonly string[] } = {},
): Promise<ServiceProcess> {
  const name = `drill_${randomBytes(5).toString('hex')}`;
  const databaseUrl = `${PG_BASE_URL}/${name}`;
  const adminKey = `admin_${randomBytes(16).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'asas-drill-'));
  const child = spawn(process.execPath, [...(options.execArgv ?? []), MAIN_JS], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_KEY: adminKey,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      WORKERS: '2',
      ...TEST_POOLS,
      LOG_LEVEL: 'info',
      // Load from one key: rate limits off.
      RATE_LIMIT_REQUESTS_PER_SECOND: '0',
      RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  // DRILL_STDERR=1 shows the service's stderr (a start-up failure's stack); otherwise drained.
  child.stderr?.on('data', (d: Buffer) => {
    if (process.env.DRILL_STDERR) process.stderr.write(d);
  });
  const cleanup = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    const sql = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
    try {
      for (const n of [name, `${name}_sandbox`]) await sql.unsafe(`drop database if exists "${n}" with (force)`);
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('service did not start')), 60_000);
      const onData = () => {
        const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
        if (m) {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          resolve(Number(m[1]));
        }
      };
      child.stdout?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`service exited with ${code}: ${out.slice(-2000)}`)));
    });
    return {
      child,
      port,
      url: `http://127.0.0.1:${port}`,
      adminKey,
      databaseUrl,
      exited,
      stdout: () => out,
      cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
