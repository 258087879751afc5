// Database access: live and sandbox are separate databases (CONTRACT.md). With DATABASE_URL
// unset, two embedded PGlite instances under DATA_DIR are served over the PostgreSQL wire
// protocol (pglite-socket) so the same SQL and the same driver run in every mode.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import postgres from 'postgres';
import type { Config } from '../config/config.js';
import type { Environment } from '../domain/environment.js';
import { connect, type Sql, socketTarget } from './connect.js';
import { migrate } from './migrate.js';
import { EMBEDDED_POSTGRESQL_CONF, pgliteModules, prepareEmbeddedDataDir } from './pglite-init.js';

export type { Sql } from './connect.js';
export { CONNECT_TIMEOUT_MS, connect, reconnectDelaySeconds, socketTarget } from './connect.js';

export interface Databases {
  readonly live: Sql;
  readonly sandbox: Sql;
  /** Connection URLs, for worker threads that open their own connections. */
  readonly urls: Readonly<Record<Environment, string>>;
  /** True on embedded PGlite: one connection per client, no concurrency inside the database. */
  readonly embedded: boolean;
  forEnv(env: Environment): Sql;
  /** True when both databases answer. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export function deriveSandboxUrl(liveUrl: string): string {
  const u = new URL(liveUrl);
  const name = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres';
  u.pathname = `/${encodeURIComponent(`${name}_sandbox`)}`;
  return u.toString();
}

async function ensureDatabase(url: string, log: Logger): Promise<void> {
  const probeTarget = socketTarget(url);
  const probe = postgres(probeTarget.url, { ...probeTarget.options, max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await probe`select 1`;
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err;
  } finally {
    await probe.end({ timeout: 5 });
  }
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.replace(/^\//, ''));
  u.pathname = '/postgres';
  const adminTarget = socketTarget(u.toString());
  const admin = postgres(adminTarget.url, { ...adminTarget.options, max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await admin.unsafe(`create database "${name.replace(/"/g, '""')}"`);
    log.info({ database: name }, 'created database');
  } catch (err) {
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await admin.end({ timeout: 5 });
  }
}

export async function openDatabases(config: Config, log: Logger, poolSize = 10): Promise<Databases> {
  if (config.databaseUrl === null) return openEmbedded(config, log);
  const liveUrl = config.databaseUrl;
  const sandboxUrl = config.sandboxDatabaseUrl ?? deriveSandboxUrl(liveUrl);
  await ensureDatabase(liveUrl, log);
  await ensureDatabase(sandboxUrl, log);
  const connectTimeoutMs = config.databaseConnectTimeoutMs;
  const live = connect(liveUrl, { max: poolSize, embedded: false, connectTimeoutMs });
  const sandbox = connect(sandboxUrl, { max: poolSize, embedded: false, connectTimeoutMs });
  await migrate(live, log, 'live');
  await migrate(sandbox, log, 'sandbox');
  return makeDatabases(live, sandbox, { live: liveUrl, sandbox: sandboxUrl }, false, async () => {});
}

async function openEmbedded(config: Config, log: Logger): Promise<Databases> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const servers: { stop(): Promise<void> }[] = [];
  const dbs: { close(): Promise<void> }[] = [];
  const urls = {} as Record<Environment, string>;
  for (const env of ['live', 'sandbox'] as const) {
    const dir = join(config.dataDir, 'pglite', env);
    mkdirSync(dir, { recursive: true });
    await prepareEmbeddedDataDir(dir, env, config.logLevel);
    const db = await PGlite.create(dir, { postgresqlconf: [...EMBEDDED_POSTGRESQL_CONF], ...(await pgliteModules()) });
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 64 });
    await server.start();
    const port = Number(String(server.getServerConn()).split(':').pop());
    urls[env] = `postgres://postgres@127.0.0.1:${port}/postgres`;
    servers.push(server);
    dbs.push(db);
  }
  log.info({ dataDir: config.dataDir }, 'using embedded PGlite databases');
  const live = connect(urls.live, { max: 1, embedded: true });
  const sandbox = connect(urls.sandbox, { max: 1, embedded: true });
  await migrate(live, log, 'live');
  await migrate(sandbox, log, 'sandbox');
  return makeDatabases(live, sandbox, urls, true, async () => {
    for (const s of servers) await s.stop();
    for (const d of dbs) await d.close();
  });
}

function makeDatabases(
  live: Sql,
  sandbox: Sql,
  urls: Record<Environment, string>,
  embedded: boolean,
  closeExtra: () => Promise<void>,
): Databases {
  return {
    live,
    sandbox,
    urls,
    embedded,
    forEnv: (env) => (env === 'sandbox' ? sandbox : live),
    async ping() {
      try {
        await Promise.all([live`select 1`, sandbox`select 1`]);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await Promise.all([live.end({ timeout: 5 }), sandbox.end({ timeout: 5 })]);
      await closeExtra();
    },
  };
}

/**
 * True for a failure to reach the database (connection refused, reset, timed out, closed, or a
 * server that is shutting down or out of resources), as opposed to an error in a query.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  if (code.startsWith('CONNECT') || code.startsWith('CONNECTION_')) return true;
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EPIPE') return true;
  if (code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return true;
  return code.startsWith('08') || code.startsWith('53') || code.startsWith('57P');
}
