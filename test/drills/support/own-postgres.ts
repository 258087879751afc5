// A private PostgreSQL 15 instance for the failure drills: initdb'd into a temporary
// directory and run as a child process on a free port, so a drill can stop and restart it
// without touching the shared server on 5432. Runs as the postgres user when we are root.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: when we are root, its processes run as `postgres`. */
function asUser(): { uid: number; gid: number } | Record<string, never> {
  return process.getuid?.() === 0 ? pgUid() : {};
}

function pgUid(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

export class OwnPostgres {
  readonly dir: string;
  port = 0;
  #child: ChildProcess | null = null;

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** initdb + start; the superuser is `postgres`, trust authentication on 127.0.0.1. */
  static async create(): Promise<OwnPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'asas-drill-pg-'));
    if (process.getuid?.() === 0) {
      const { uid, gid } = pgUid();
      chownSync(dir, uid, gid);
    }
    execFileSync(
      join(BIN, 'initdb'),
      ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'],
      { stdio: 'ignore', ...asUser() },
    );
    const pg = new OwnPostgres(dir);
    pg.port = await freePort();
    await pg.start();
    return pg;
  }

  get baseUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = [
      '-D',
      join(this.dir, 'data'),
      '-p',
      String(this.port),
      '-h',
      '127.0.0.1',
      '-k',
      this.dir,
      '-c',
      'fsync=off',
      '-c',
      'max_connections=100',
    ];
    this.#child = spawn(join(BIN, 'postgres'), args, { stdio: 'ignore', ...asUser() });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const sql = postgres(`${this.baseUrl}/postgres`, { max: 1, connect_timeout: 2, onnotice: () => {} });
      try {
        await sql`select 1`;
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`own PostgreSQL did not start: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 200));
      } finally {
        await sql.end({ timeout: 1 });
      }
    }
  }

  /** Fast shutdown (SIGINT: abort transactions, disconnect clients), waits for the exit. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (child === null || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGINT');
    });
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
