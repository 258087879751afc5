// Database access: live and sandbox are separate databases (CONTRACT.md). With DATABASE_URL
// unset, two embedded PGlite instances under DATA_DIR (src/storage/embedded.ts), the sandbox
// one opened on its first use.
import type { Logger } from 'pino';
import postgres from 'postgres';
import type { Config } from '../config/config.js';
import type { Environment } from '../domain/environment.js';
import { connect, type Sql, socketTarget } from './connect.js';
import { EmbeddedDatabase } from './embedded.js';
import { migrate } from './migrate.js';

export type { Sql } from './connect.js';
export { CONNECT_TIMEOUT_MS, connect, reconnectDelaySeconds, socketTarget } from './connect.js';
export { isDatabaseUnavailable } from './unavailable.js';

export interface Databases {
  readonly live: Sql;
  readonly sandbox: Sql;
  /** Connection URLs, for worker threads that open their own connections. */
  readonly urls: Readonly<Record<Environment, string>>;
  /** True on embedded PGlite: one connection per client, no concurrency inside the database. */
  readonly embedded: boolean;
  forEnv(env: Environment): Sql;
  /**
   * Whether `env`'s database is open. Always true on PostgreSQL and for live; the embedded
   * sandbox opens on its first query. A database that is not open has no background work in
   * it (never created, or closed cleanly with none left), so background rounds skip it
   * instead of opening it; reads of data go by exists().
   */
  isOpen(env: Environment): boolean;
  /**
   * False only for the embedded sandbox that was never created: it holds no data at all, so a
   * read (a credential lookup, a listing) may skip it rather than create it. Once created, a
   * closed sandbox holds data (a restart opens it lazily) and reads must query it.
   */
  exists(env: Environment): boolean;
  /** The open of `env`'s database, under way or done; null while nothing asked for it. */
  whenOpen(env: Environment): Promise<void> | null;
  /** True when every open database answers. */
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

export interface OpenHooks {
  /**
   * Runs each time the embedded sandbox database opens (at start or on its first use), after
   * its migrations and before any other query reaches it, with the live pool: the tenant
   * mirror and the re-seal of secrets, which a sandbox opened after the start missed.
   */
  readonly onSandboxOpen?: (sandbox: Sql, live: Sql) => Promise<void>;
  /**
   * Whether background rounds have work left in a database (src/app/pending-work.ts), checked
   * as the embedded sandbox closes: with none it may open lazily at the next start.
   */
  readonly pendingWork?: (sql: Sql) => Promise<boolean>;
}

export async function openDatabases(
  config: Config,
  log: Logger,
  poolSize = 10,
  hooks: OpenHooks = {},
): Promise<Databases> {
  if (config.databaseUrl === null) return openEmbedded(config, log, hooks);
  const liveUrl = config.databaseUrl;
  const sandboxUrl = config.sandboxDatabaseUrl ?? deriveSandboxUrl(liveUrl);
  await ensureDatabase(liveUrl, log);
  await ensureDatabase(sandboxUrl, log);
  const connectTimeoutMs = config.databaseConnectTimeoutMs;
  const live = connect(liveUrl, { max: poolSize, embedded: false, connectTimeoutMs });
  const sandbox = connect(sandboxUrl, { max: poolSize, embedded: false, connectTimeoutMs });
  await migrate(live, log, 'live');
  await migrate(sandbox, log, 'sandbox');
  return makeDatabases(live, sandbox, { live: liveUrl, sandbox: sandboxUrl }, false, ALWAYS_OPEN);
}

async function openEmbedded(config: Config, log: Logger, hooks: OpenHooks): Promise<Databases> {
  const live = new EmbeddedDatabase('live', config, log, async () => {});
  const sandbox = new EmbeddedDatabase(
    'sandbox',
    config,
    log,
    async (sql) => hooks.onSandboxOpen?.(sql, live.sql),
    hooks.pendingWork,
  );
  await Promise.all([live.listen(), sandbox.listen()]);
  await live.open();
  // A sandbox an earlier run created opens now unless that run left no background work in it.
  if (config.embeddedSandboxOpen === 'start' || (sandbox.existsOnDisk && !sandbox.idleAtLastStop)) {
    await sandbox.open();
  }
  log.info(
    { dataDir: config.dataDir, sandbox: sandbox.isOpen ? 'open' : 'opens on first use' },
    'using embedded PGlite databases',
  );
  const byEnv = { live, sandbox };
  const urls = { live: live.url, sandbox: sandbox.url };
  return makeDatabases(live.sql, sandbox.sql, urls, true, {
    isOpen: (env) => byEnv[env].isOpen,
    exists: (env) => byEnv[env].exists,
    whenOpen: (env) => byEnv[env].whenOpen(),
    closeExtra: async () => {
      await sandbox.close();
      await live.close();
    },
  });
}

interface OpenState {
  isOpen(env: Environment): boolean;
  exists(env: Environment): boolean;
  whenOpen(env: Environment): Promise<void> | null;
  closeExtra(): Promise<void>;
}

const ALWAYS_OPEN: OpenState = {
  isOpen: () => true,
  exists: () => true,
  whenOpen: () => Promise.resolve(),
  closeExtra: async () => {},
};

function makeDatabases(
  live: Sql,
  sandbox: Sql,
  urls: Record<Environment, string>,
  embedded: boolean,
  state: OpenState,
): Databases {
  return {
    live,
    sandbox,
    urls,
    embedded,
    forEnv: (env) => (env === 'sandbox' ? sandbox : live),
    isOpen: (env) => state.isOpen(env),
    exists: (env) => state.exists(env),
    whenOpen: (env) => state.whenOpen(env),
    async ping() {
      try {
        await Promise.all([live`select 1`, state.isOpen('sandbox') ? sandbox`select 1` : null]);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await Promise.all([live.end({ timeout: 5 }), sandbox.end({ timeout: 5 })]);
      await state.closeExtra();
    },
  };
}
