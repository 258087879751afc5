// Shared pieces of the failure drills: the built service started in-process on a given
// database (like test/fixtures/server.ts, without its fixed PostgreSQL), a stream of
// /authorize requests recording every answer, and reads of the audit log.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { RunningApp } from '../../../src/app/app.js';
import { addAgentWithMandate, relaxRateGates, setup } from '../../engine/support.js';
import { startTestServer, TEST_POOLS, type TestServer } from '../../fixtures/server.js';
import { authorizeBody } from '../../ops/support.js';

const DIST = new URL(`../../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
export const MAIN_JS = new URL(`${DIST}main.js`).pathname;

export interface DrillServer {
  readonly url: string;
  readonly adminKey: string;
  readonly app: RunningApp;
  close(): Promise<void>;
}

export async function startOn(databaseUrl: string, env: Record<string, string> = {}): Promise<DrillServer> {
  const { startApp } = (await import(`${DIST}app/app.js`)) as typeof import('../../../src/app/app.js');
  const { loadConfig } = (await import(`${DIST}config/config.js`)) as typeof import('../../../src/config/config.js');
  const adminKey = `admin_${randomBytes(16).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'asas-drill-'));
  const app = await startApp(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_KEY: adminKey,
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      WORKERS: '2',
      ...TEST_POOLS,
      DATABASE_URL: databaseUrl,
      // Load from one key: rate limits off.
      RATE_LIMIT_REQUESTS_PER_SECOND: '0',
      RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '0',
      ...env,
    }),
  );
  return {
    url: app.url,
    adminKey,
    app,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly decision: string | null;
  readonly reasonCodes: readonly string[];
  readonly id: string | null;
  readonly sentAt: number;
  readonly answeredAt: number;
}

export interface Stream {
  readonly answers: Answer[];
  /** Requests that failed at the transport (refused, reset) with their time. */
  readonly transportErrors: { at: number; message: string }[];
  stop(): Promise<void>;
}

/**
 * `concurrency` loops each sending one approvable /authorize after another until stopped
 * (or, with stopOnTransportError, until the server stops accepting).
 */
export function authorizeStream(
  url: string,
  apiKey: string,
  agentId: string,
  concurrency: number,
  options: { stopOnTransportError?: boolean; amount?: string } = {},
): Stream {
  const answers: Answer[] = [];
  const transportErrors: { at: number; message: string }[] = [];
  let stopped = false;
  const loops = Array.from({ length: concurrency }, async () => {
    while (!stopped) {
      const sentAt = Date.now();
      try {
        const res = await fetch(`${url}/api/v1/authorize`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify(authorizeBody(agentId, options.amount ?? '0.01')),
          signal: AbortSignal.timeout(20_000),
        });
        const text = await res.text();
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          body = {};
        }
        answers.push({
          status: res.status,
          decision: typeof body.decision === 'string' ? body.decision : null,
          reasonCodes: Array.isArray(body.reason_codes) ? (body.reason_codes as string[]) : [],
          id: typeof body.authorization_id === 'string' ? body.authorization_id : null,
          sentAt,
          answeredAt: Date.now(),
        });
      } catch (err) {
        transportErrors.push({ at: Date.now(), message: String((err as Error).cause ?? (err as Error).message) });
        if (options.stopOnTransportError) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  return {
    answers,
    transportErrors,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Ids of every authorization in the audit log of a database. */
export async function auditIds(databaseUrl: string): Promise<Set<string>> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ id: string }[]>`select id from authorizations`;
    return new Set(rows.map((r) => r.id));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Live owners of the shards (instance id -> shards held), from the leases table. */
export async function shardOwners(databaseUrl: string): Promise<Map<string, number>> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ owner: string; n: number }[]>`
      select owner, count(*)::int as n from shard_leases
      where owner is not null and expires_at > now() group by owner`;
    return new Map(rows.map((r) => [r.owner, r.n]));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Resolves once two instances on `databaseUrl` see each other and have shared the shards out (a
 * joining instance takes its share over a few beats, at most 128 shards per beat from each other
 * instance).
 */
export async function shardsShared(databaseUrl: string, ms = 15_000): Promise<void> {
  await until(async () => {
    const held = await shardOwners(databaseUrl);
    return held.size === 2 && Math.min(...held.values()) > 400;
  }, ms);
}

/** Two in-process instances on one pair of databases: `a` creates them, `b` joins. */
export async function startPair(env: Record<string, string>): Promise<{ a: TestServer; b: TestServer }> {
  const a = await startTestServer(env);
  try {
    const b = await startTestServer({ ...env, DATABASE_URL: a.dbUrls.live, SANDBOX_DATABASE_URL: a.dbUrls.sandbox });
    return { a, b };
  } catch (e) {
    await a.close();
    throw e;
  }
}

/**
 * startPair, then a Principal (rate gates relaxed) with `count` agents under one mandate, created
 * through `a`; resolves once both instances own shards (each agent is owned by one of them).
 */
export async function startPairWithFleet(
  env: Record<string, string>,
  count: number,
  mandate: { perTransaction: string; daily: string },
): Promise<{ a: TestServer; b: TestServer; apiKey: string; agents: string[] }> {
  const { a, b } = await startPair(env);
  const { apiKey } = await setup(a);
  await relaxRateGates(a, apiKey);
  const agents: string[] = [];
  for (let i = 0; i < count; i++) agents.push(await addAgentWithMandate(a, apiKey, `agent ${i}`, mandate));
  await shardsShared(a.dbUrls.live);
  return { a, b, apiKey, agents };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once `cond` holds (checked every 100 ms); rejects after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(100);
  }
}
