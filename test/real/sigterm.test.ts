// Drill: SIGTERM during load. The service runs as its own process (npm start's entry point)
// on a fresh database of the shared PostgreSQL; a stream of authorizations runs while it gets
// SIGTERM. It stops accepting, answers every request it accepted, flushes the audit log and
// exits 0: the decisions in the audit log are exactly the ones answered.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_BASE_URL } from '../helpers/server.js';
import { type AuthorizeSetup, authorizeSetup } from '../ops/support.js';
import { auditIds, authorizeStream, MAIN_JS, sleep } from './support/drill.js';

const name = `drill_${randomBytes(5).toString('hex')}`;
const databaseUrl = `${PG_BASE_URL}/${name}`;
const adminKey = `admin_${randomBytes(16).toString('hex')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'asas-drill-'));
let child: ChildProcess;
let url: string;
let setup: AuthorizeSetup;
let exited: Promise<number | null>;

beforeAll(async () => {
  child = spawn(process.execPath, [MAIN_JS], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_KEY: adminKey,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      WORKERS: '2',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('service did not start')), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
  child.stdout?.resume();
  child.stderr?.resume();
  url = `http://127.0.0.1:${port}`;
  setup = await authorizeSetup({ url, adminKey });
}, 90_000);

afterAll(async () => {
  if (child !== undefined && child.exitCode === null) {
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
}, 60_000);

describe('drill: SIGTERM under load', () => {
  it('answers every accepted request, flushes the audit log and exits 0', async () => {
    const stream = authorizeStream(url, setup.principalKey, setup.agentId, 8, { stopOnTransportError: true });
    await sleep(1500);
    const answeredBeforeSignal = stream.answers.length;
    child.kill('SIGTERM');
    const code = await Promise.race([exited, sleep(30_000).then(() => 'timeout' as const)]);
    await stream.stop();

    expect(code).toBe(0);
    expect(answeredBeforeSignal).toBeGreaterThan(0);
    // Every answer is a decision (no 5xx, no half answers).
    expect(stream.answers.filter((a) => a.status !== 200 || a.decision === null)).toEqual([]);
    // Requests the server did not accept fail at the transport (refused or closed), nothing else.
    for (const e of stream.transportErrors)
      expect(e.message).toMatch(/ECONNREFUSED|ECONNRESET|closed|other side|socket/i);

    // The audit log holds exactly the decisions answered: none answered and lost, none
    // decided and left unanswered.
    const ids = await auditIds(databaseUrl);
    const answered = stream.answers
      .filter((a) => !a.reasonCodes.includes('system_unavailable'))
      .map((a) => a.id as string);
    expect(answered.filter((id) => !ids.has(id))).toEqual([]);
    const answeredSet = new Set(answered);
    expect([...ids].filter((id) => !answeredSet.has(id))).toEqual([]);
  }, 90_000);
});
