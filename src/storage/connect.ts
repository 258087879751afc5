// Opening connections to PostgreSQL (and to embedded PGlite over its socket): the options
// every pool of the service shares. Kept apart from src/storage/db.ts so the migration runner
// and the PGlite initialiser can open connections without importing the database layer.
import type { Socket } from 'node:net';
import postgres from 'postgres';

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
export type Sql = postgres.Sql<{}>;

/**
 * Default time to open a connection (DATABASE_CONNECT_TIMEOUT_MS), in milliseconds. A connect
 * whose packets were lost in a partition is given up and tried afresh after this long, so it
 * bounds how late approvals resume once the network heals (target: 2 s); a healthy database
 * opens a connection in milliseconds.
 */
export const CONNECT_TIMEOUT_MS = 1500;
/** Longest wait between two connection attempts after failures, in seconds. */
const MAX_RECONNECT_DELAY_SECONDS = 0.25;

/**
 * Delay before a connection's next attempt after `retries` failed ones, in seconds: 10, 20,
 * 40 ms... at most MAX_RECONNECT_DELAY_SECONDS, with jitter. postgres.js's own default grows
 * as 3^retries / 100 s up to 20 s, so after a few seconds of outage every query waited seconds
 * for its connection's next attempt: requests hung and approvals resumed seconds after the
 * database did. With this cap a returning database is used within a quarter second; the
 * attempts cost nothing while it is away (a refused connect) and happen only for queued work.
 */
export function reconnectDelaySeconds(retries: number): number {
  return Math.min(0.01 * 2 ** retries, MAX_RECONNECT_DELAY_SECONDS) * (0.5 + Math.random() / 2);
}

/** postgres.js options shared by every connection this service opens. */
export function connect(
  url: string,
  options: {
    max: number;
    embedded: boolean;
    connectTimeoutMs?: number | undefined;
    /** Opens each connection's socket (the lazily opened embedded database, src/storage/embedded.ts). */
    socket?: (() => Promise<Socket>) | undefined;
  },
): Sql {
  const target = socketTarget(url);
  return postgres(target.url, {
    ...target.options,
    ...(options.socket === undefined ? {} : { socket: options.socket }),
    max: options.max,
    idle_timeout: options.embedded ? 0 : 60,
    // Seconds; fractions are honoured (a timer of connect_timeout * 1000 ms).
    connect_timeout: (options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS) / 1000,
    backoff: reconnectDelaySeconds,
    onnotice: () => {},
    // NUMERIC and BIGINT stay strings: money never becomes a binary float.
    types: {},
    connection: { application_name: 'agent-spending-authorization' },
  });
}

/**
 * libpq's form for a Unix-domain socket, `postgres://user@/db?host=/var/run/postgresql`, which
 * postgres.js does not read from a URL: the socket path becomes its `path` option. A socket
 * avoids the loopback TCP stack on every group commit when the database runs on the same host.
 */
export function socketTarget(url: string): { url: string; options: { path?: string } } {
  const u = new URL(url);
  const host = u.searchParams.get('host');
  if (host === null || !host.startsWith('/')) return { url, options: {} };
  u.searchParams.delete('host');
  const port = u.port === '' ? '5432' : u.port;
  u.hostname = 'localhost';
  return { url: u.toString(), options: { path: `${host}/.s.PGSQL.${port}` } };
}
