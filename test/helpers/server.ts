// Starts the real service in-process on port 0 with fresh databases: a new PostgreSQL database
// pair on the local server (dropped on close), or, with TEST_EMBEDDED=1, embedded PGlite in a
// temporary DATA_DIR. Imports the built service from dist/ so worker threads load compiled JS.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import postgres from 'postgres';
import type { RunningApp } from '../../dist/src/app/app.js';

// DIST_DIR lets parallel builds (one per developer workspace) test their own output.
const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { startApp } = (await import(`${DIST}app/app.js`)) as typeof import('../../dist/src/app/app.js');
const { loadConfig } = (await import(`${DIST}config/config.js`)) as typeof import('../../dist/src/config/config.js');

export const PG_BASE_URL = process.env.TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432';
export const EMBEDDED = process.env.TEST_EMBEDDED === '1';
/**
 * Connection pools of every service the tests start on PostgreSQL: small enough that two test
 * files at once, or a drill's three instances, fit in PostgreSQL's default of 100 connections
 * (about 22 per process instead of about 46 with the defaults).
 */
export const TEST_POOLS = { DATABASE_POOL_SIZE: '4', ENGINE_POOL_SIZE: '2' } as const;

export interface TestServer {
  readonly url: string;
  readonly app: RunningApp;
  readonly adminKey: string;
  /** Live and sandbox database URLs (postgres:// on both modes). */
  readonly dbUrls: { live: string; sandbox: string };
  close(): Promise<void>;
}

export async function startTestServer(
  env: Record<string, string> = {},
  /** A logger of the test's own, e.g. to read what the service logs. */
  options: { log?: Logger } = {},
): Promise<TestServer> {
  const adminKey = `admin_${randomBytes(16).toString('hex')}`;
  const name = `t_${randomBytes(6).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'asas-'));
  const base: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_KEY: adminKey,
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    WEBHOOK_URL_POLICY: 'any',
    WORKERS: '2',
    ...TEST_POOLS,
    // Tests stream requests from one key: rate limits are off unless a test sets them.
    RATE_LIMIT_REQUESTS_PER_SECOND: '0',
    RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '0',
    // Tests provision a sandbox key right after the start, many servers at once on two cores:
    // the embedded sandbox opens with the start, as it did before it opened on first use
    // (test/storage/lazy-sandbox.test.ts covers first use).
    EMBEDDED_SANDBOX_OPEN: 'start',
  };
  if (!EMBEDDED) base.DATABASE_URL = `${PG_BASE_URL}/${name}`;
  const config = loadConfig({ ...base, ...env });
  const app = await startApp(config, options);
  return {
    url: app.url,
    app,
    adminKey,
    dbUrls: app.services.dbs.urls,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (!EMBEDDED && config.databaseUrl !== null) await dropDatabases([name, `${name}_sandbox`]);
    },
  };
}

async function dropDatabases(names: string[]): Promise<void> {
  const sql = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  try {
    for (const n of names) await sql.unsafe(`drop database if exists "${n}" with (force)`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is (not JSON-encoded). */
  raw?: string;
  headers?: Record<string, string>;
  apiKey?: string;
  bearer?: string;
  adminKey?: string;
}

export async function request<T = Record<string, unknown>>(
  server: { url: string },
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey;
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  if (options.adminKey !== undefined) headers['x-admin-key'] = options.adminKey;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(server.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  if (text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** Asserts the SPEC.md error envelope shape and returns it. */
export function expectEnvelope(
  res: HttpResult,
  status: number,
  code?: string,
): { error: string; message: string; status: number; request_id: string; details?: { field: string }[] } {
  const b = res.body as Record<string, unknown>;
  if (res.status !== status || (code !== undefined && b?.error !== code)) {
    throw new Error(`expected ${status} ${code ?? ''}, got ${res.status} ${res.text}`);
  }
  if (
    typeof b.error !== 'string' ||
    typeof b.message !== 'string' ||
    b.status !== status ||
    typeof b.request_id !== 'string' ||
    !b.request_id.startsWith('req_')
  ) {
    throw new Error(`not an error envelope: ${res.text}`);
  }
  return b as never;
}
