// Unsafe set-ups are refused at start (src/cluster/instances.ts): an instance on the in-process
// bus (NATS_URL unset) next to another live instance on the same database would split budgets,
// events and webhook deliveries, so it stops with exit code 2 and one line naming NATS_URL; so
// does an instance on NATS that finds a live one on the in-process bus. Real processes on one
// PostgreSQL database; a crashed instance's leftover row does not block a restart.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteStream, ownStream } from '../fixtures/drills/nats-stream.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';
import { MAIN_JS, PG_BASE_URL, request } from '../fixtures/server.js';

const NATS = ownStream('refusal');
const started: ServiceProcess[] = [];
const databases: string[] = [];

function sharedEnv(db: string): Record<string, string> & { DATABASE_URL: string } {
  return {
    DATABASE_URL: `${PG_BASE_URL}/${db}`,
    // Instances on one database share its secrets key and admin key.
    SECRETS_KEY: randomBytes(32).toString('base64'),
    ADMIN_KEY: `admin_${randomBytes(16).toString('hex')}`,
    INSTANCE_HEARTBEAT_SECONDS: '1',
  };
}

async function start(env: Record<string, string>): Promise<ServiceProcess> {
  const p = await startServiceProcess(env);
  started.push(p);
  return p;
}

/** Runs the service to its exit (it is expected to refuse): exit code and stderr lines. */
function startRefused(env: Record<string, string>): { status: number | null; lines: string[] } {
  const dataDir = mkdtempSync(join(tmpdir(), 'asas-refusal-'));
  try {
    const r = spawnSync(process.execPath, [MAIN_JS], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        DATA_DIR: dataDir,
        ...env,
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { status: r.status, lines: r.stderr.trim().split('\n') };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

afterAll(async () => {
  for (const p of started) await p.cleanup();
  const sql = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  try {
    for (const n of databases) {
      for (const d of [n, `${n}_sandbox`]) await sql.unsafe(`drop database if exists "${d}" with (force)`);
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
  await deleteStream(NATS.NATS_STREAM);
});

function freshDatabase(): string {
  const name = `t_refusal_${randomBytes(5).toString('hex')}`;
  databases.push(name);
  return name;
}

describe('start-up refuses an unsafe set-up', () => {
  it('an in-process-bus instance next to a live one: exit 2, one line naming NATS_URL; NATS next to it too', async () => {
    const env = sharedEnv(freshDatabase());
    const first = await start(env);
    expect((await request(first, 'GET', '/health')).status).toBe(200);

    const memory = startRefused(env);
    expect(memory.status, memory.lines.join('\n')).toBe(2);
    expect(memory.lines).toHaveLength(1);
    expect(memory.lines[0]).toMatch(/^configuration error: NATS_URL: another service instance \(ins_[0-9a-f]+/);
    expect(memory.lines[0]).toContain('must all set NATS_URL');

    const nats = startRefused({ ...env, ...NATS });
    expect(nats.status, nats.lines.join('\n')).toBe(2);
    expect(nats.lines).toHaveLength(1);
    expect(nats.lines[0]).toMatch(/^configuration error: NATS_URL: a service instance on the in-process bus/);

    // The first one was never disturbed.
    expect((await request(first, 'GET', '/health')).status).toBe(200);
    expect(first.child.exitCode).toBeNull();
  });

  it('an in-process-bus instance next to a live NATS instance is refused; a second NATS instance starts', async () => {
    const env: Record<string, string> = { ...sharedEnv(freshDatabase()), ...NATS };
    const first = await start(env);
    const { NATS_URL: _url, NATS_STREAM: _stream, NATS_SUBJECT_PREFIX: _prefix, ...withoutNats } = env;

    const memory = startRefused(withoutNats);
    expect(memory.status, memory.lines.join('\n')).toBe(2);
    expect(memory.lines).toHaveLength(1);
    expect(memory.lines[0]).toContain('NATS_URL');
    expect(memory.lines[0]).toContain('bus nats');

    const second = await start(env);
    expect((await request(second, 'GET', '/health')).status).toBe(200);
    const sql = postgres(env.DATABASE_URL as string, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ bus: string; pid: number }[]>`select bus, pid from instances order by pid`;
      expect(rows.map((r) => r.bus)).toEqual(['nats', 'nats']);
      expect(rows.map((r) => r.pid).sort()).toEqual([first.child.pid, second.child.pid].sort());
    } finally {
      await sql.end({ timeout: 5 });
    }
    expect(first.child.exitCode).toBeNull();
  });

  it('the row a SIGKILLed instance left behind does not block its restart on the in-process bus', async () => {
    const env = sharedEnv(freshDatabase());
    const first = await start(env);
    first.child.kill('SIGKILL');
    await first.exited;
    const sql = postgres(env.DATABASE_URL, { max: 1, onnotice: () => {} });
    try {
      // Its heartbeat is still recent: without the check of its pid it would count as live.
      const [left] = await sql<{ n: number }[]>`
        select count(*)::int as n from instances where heartbeat_at >= now() - interval '3 seconds'`;
      expect(left?.n).toBe(1);
      const again = await start(env);
      expect((await request(again, 'GET', '/health')).status).toBe(200);
      const rows = await sql<{ pid: number }[]>`select pid from instances`;
      expect(rows.map((r) => r.pid)).toEqual([again.child.pid]);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});
