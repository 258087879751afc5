// Durability under a crash: the built server runs as a child process on real PostgreSQL, a
// stream of approvals is killed with SIGKILL mid-flight, and after a restart on the same
// database every APPROVE that was answered is in the audit log and the daily cap still holds
// exactly (0.10 steps fill a 30.00 cap, no more).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import { PG_BASE_URL, TEST_POOLS } from '../fixtures/server.js';

const MAIN = fileURLToPath(new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/main.js`, import.meta.url));
const dbName = `t_kill_${randomBytes(5).toString('hex')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'asas-kill-'));
const adminKey = `admin_${randomBytes(16).toString('hex')}`;
let child: ChildProcess | null = null;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

async function spawnServer(): Promise<{ url: string; adminKey: string }> {
  const port = await freePort();
  child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `${PG_BASE_URL}/${dbName}`,
      DATA_DIR: dataDir,
      ADMIN_KEY: adminKey,
      LOG_LEVEL: 'silent',
      WORKERS: '2',
      ...TEST_POOLS,
      WEBHOOK_URL_POLICY: 'any',
      NATS_URL: '',
      // Load from one key: rate limits off.
      RATE_LIMIT_REQUESTS_PER_SECOND: '0',
      RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, adminKey };
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

function kill(): Promise<void> {
  const c = child;
  child = null;
  if (c === null || c.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    c.once('exit', () => resolve());
    c.kill('SIGKILL');
  });
}

async function sql<T>(fn: (db: postgres.Sql) => Promise<T>): Promise<T> {
  const db = postgres(`${PG_BASE_URL}/${dbName}`, { max: 1, onnotice: () => {} });
  try {
    return await fn(db);
  } finally {
    await db.end({ timeout: 5 });
  }
}

afterAll(async () => {
  await kill();
  rmSync(dataDir, { recursive: true, force: true });
  const admin = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  try {
    for (const n of [dbName, `${dbName}_sandbox`]) await admin.unsafe(`drop database if exists "${n}" with (force)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
});

describe('SIGKILL in the middle of a stream of approvals', () => {
  it('loses no answered APPROVE and keeps the daily cap exact after a restart', async () => {
    let server = await spawnServer();
    const f: EngineFixture = await setup(server, {
      limits: { max_amount_per_transaction: '5.00', max_daily_amount: '30.00', currency: 'USD' },
    });
    await relaxRateGates(server, f.apiKey);

    // Eight concurrent streams of 0.10 approvals; SIGKILL once 120 approvals were answered.
    const approved: string[] = [];
    let killed = false;
    const stream = async () => {
      while (!killed) {
        try {
          const res = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '0.10' }));
          if (res.body.decision === 'APPROVE') approved.push(res.body.authorization_id as string);
        } catch {
          return; // the connection died with the process
        }
        if (approved.length >= 120 && !killed) {
          killed = true;
          await kill();
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, stream));
    expect(approved.length).toBeGreaterThanOrEqual(120);

    const recorded = await sql(
      (db) => db<{ id: string }[]>`select id from authorizations where id in ${db(approved)} and decision = 'APPROVE'`,
    );
    expect(recorded.map((r) => r.id).sort()).toEqual([...approved].sort());

    // Restart on the same database and spend the rest of the day's cap.
    server = await spawnServer();
    let last: Record<string, unknown> = {};
    for (let i = 0; i < 400; i++) {
      const res = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '0.10' }));
      expect(res.status).toBe(200);
      last = res.body;
      if (res.body.decision !== 'APPROVE') break;
    }
    expect(last.decision).toBe('DECLINE');
    expect(last.reason_codes).toContain('daily_limit_exceeded');
    expect(last.daily_amount_used).toBe(30);
    const [total] = await sql(
      (db) => db<{ exact: boolean; n: number }[]>`
        select sum(amount) = 30.00 as exact, count(*)::int as n from authorizations
        where agent_id = ${f.agentId} and decision = 'APPROVE'`,
    );
    expect(total).toEqual({ exact: true, n: 300 });
  });
});
