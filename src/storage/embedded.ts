// Embedded PGlite (DATABASE_URL unset): each database is a WebAssembly PostgreSQL under
// DATA_DIR, served over the PostgreSQL wire protocol (pglite-socket) so the same SQL and the
// same driver run in every mode.
//
// The sandbox database opens on its first use, not at start: an instance costs ~30-45 MB of
// resident memory (docs/benchmarks.md, 2026-11-27) and a fresh one ~15 s of initdb and
// migrations, which a service nobody sends sandbox traffic to should not pay. Its pool is an
// ordinary postgres.js pool whose socket factory opens the database first, so every caller
// (requests, the operator plane, the engine's committer) just queries it; the first query
// waits for the open, and concurrent first queries share one open. Background rounds skip a
// database that is not open (Databases.isOpen), so idling never opens it. A sandbox directory
// left by an earlier run opens lazily only when that run stopped cleanly with no background
// work left in it (the IDLE_MARKER, written at the stop, removed as the database opens);
// otherwise it opens at start, so the rounds pick up its due holds, pending webhook deliveries
// and unrelayed outbox rows (src/app/pending-work.ts). The first open of a sandbox starts from
// a copy of live made when live was created empty (no second initdb).
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as netConnect, type Server, Socket } from 'node:net';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Environment } from '../domain/environment.js';
import { connect, type Sql } from './connect.js';
import { migrate } from './migrate.js';
import { EMBEDDED_POSTGRESQL_CONF, isPrepared, pgliteModules, prepareEmbeddedDataDir } from './pglite-init.js';

/** Under DATA_DIR/pglite: an empty migrated cluster, copied from live when live was created. */
const TEMPLATE = 'sandbox.template';

/** In a database's directory: it was closed cleanly with no background work left in it. */
const IDLE_MARKER = 'asas-idle-at-stop';

/** Runs as a database opens, after its migrations and before any other query reaches it. */
export type OnOpen = (sql: Sql) => Promise<void>;

interface Opened {
  readonly db: PGlite;
  readonly server: { stop(): Promise<void> };
  readonly port: number;
}

/** One embedded database: opened at once, or on the first connection of its pool. */
export class EmbeddedDatabase {
  readonly env: Environment;
  readonly sql: Sql;
  readonly #dir: string;
  readonly #config: Config;
  readonly #log: Logger;
  readonly #onOpen: OnOpen;
  #opening: Promise<Opened> | null = null;
  #opened: Opened | null = null;
  #closed = false;
  #exists = false;
  #front: Server | null = null;
  readonly #relayed = new Set<Socket>();
  #url = '';
  readonly #pendingWork: ((sql: Sql) => Promise<boolean>) | undefined;

  constructor(
    env: Environment,
    config: Config,
    log: Logger,
    onOpen: OnOpen,
    /** Checked at close: false leaves the IDLE_MARKER (the next start may open it lazily). */
    pendingWork?: (sql: Sql) => Promise<boolean>,
  ) {
    this.#pendingWork = pendingWork;
    this.env = env;
    this.#dir = join(config.dataDir, 'pglite', env);
    this.#config = config;
    this.#log = log;
    this.#onOpen = onOpen;
    // postgres.js awaits the factory before its connect timer starts, so a first open of
    // several seconds is not a connect timeout. A failed open becomes a failed connection
    // (code CONNECT_EMBEDDED_OPEN, a database-unavailable error) and the next query tries again.
    this.sql = connect('postgres://postgres@127.0.0.1/postgres', {
      max: 1,
      embedded: true,
      socket: () => this.#socket(),
    });
  }

  /**
   * Listens on a loopback port of its own for other clients (tests, psql): their connections
   * open the database too, then are relayed to it. The service's own pool does not use it.
   */
  async listen(): Promise<void> {
    const front = createServer((client) => {
      this.#relayed.add(client);
      client.on('close', () => this.#relayed.delete(client));
      client.pause();
      this.#open().then(
        ({ port }) => {
          const upstream = netConnect(port, '127.0.0.1');
          upstream.on('error', () => client.destroy());
          client.on('error', () => upstream.destroy());
          upstream.on('close', () => client.destroy());
          client.on('close', () => upstream.destroy());
          client.pipe(upstream);
          upstream.pipe(client);
          client.resume();
        },
        () => client.destroy(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      front.once('error', reject);
      front.listen(0, '127.0.0.1', () => resolve());
    });
    this.#front = front;
    const address = front.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    this.#url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  }

  /** The URL of the relay port (listen()). */
  get url(): string {
    return this.#url;
  }

  /** True once the database is open and its on-open work (migrations, hooks) is done. */
  get isOpen(): boolean {
    return this.#opened !== null;
  }

  /** True when DATA_DIR already holds this database (an earlier run created it). */
  get existsOnDisk(): boolean {
    return existsSync(this.#dir) && isPrepared(this.#dir);
  }

  /**
   * False only while the database has never been created (no directory): it holds no data, so
   * reads may skip it instead of creating it. A closed database that exists holds data.
   */
  get exists(): boolean {
    this.#exists ||= this.isOpen || this.existsOnDisk;
    return this.#exists;
  }

  /** True when the run that last had it open stopped cleanly with no background work in it. */
  get idleAtLastStop(): boolean {
    return existsSync(join(this.#dir, IDLE_MARKER));
  }

  /** The open under way or done; null while nothing asked for the database. */
  whenOpen(): Promise<void> | null {
    return this.#opening === null ? null : this.#opening.then(() => undefined);
  }

  /** Opens the database (once, however many callers ask at the same time). */
  open(): Promise<void> {
    return this.#open().then(() => undefined);
  }

  #open(): Promise<Opened> {
    if (this.#closed) return Promise.reject(openFailed(new Error('the service is stopping')));
    this.#opening ??= this.#doOpen().then(
      (opened) => {
        this.#opened = opened;
        return opened;
      },
      (err: unknown) => {
        // The next query tries again.
        this.#opening = null;
        this.#log.error({ err, database: this.env }, 'embedded database did not open');
        throw err;
      },
    );
    return this.#opening;
  }

  async #doOpen(): Promise<Opened> {
    const started = performance.now();
    const { PGlite } = await import('@electric-sql/pglite');
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    // The first open of the sandbox starts from the copy of live made when live was created
    // empty (a rename: no initdb, ~1 s instead of ~15 s); live leaves that copy.
    const template = join(this.#config.dataDir, 'pglite', TEMPLATE);
    if (this.env === 'sandbox' && !existsSync(this.#dir) && existsSync(template)) renameSync(template, this.#dir);
    mkdirSync(this.#dir, { recursive: true });
    // From now on it may get work; a crash before the next clean stop leaves no marker.
    rmSync(join(this.#dir, IDLE_MARKER), { force: true });
    await prepareEmbeddedDataDir(
      this.#dir,
      this.env,
      this.#config.logLevel,
      this.env === 'live' ? template : undefined,
    );
    const db = await PGlite.create(this.#dir, {
      postgresqlconf: [...EMBEDDED_POSTGRESQL_CONF],
      ...(await pgliteModules()),
    });
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 64 });
    try {
      await server.start();
      const port = Number(String(server.getServerConn()).split(':').pop());
      // Its own short-lived connection: the pool's first connection is still waiting for this.
      const setup = connect(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, embedded: true });
      try {
        await migrate(setup, this.#log, this.env);
        await this.#onOpen(setup);
      } finally {
        await setup.end({ timeout: 5 });
      }
      // One line per open (test/storage/lazy-sandbox.test.ts counts them).
      this.#log.info(
        { database: this.env, dir: this.#dir, ms: Math.round(performance.now() - started) },
        'embedded database open',
      );
      return { db, server, port };
    } catch (err) {
      await server.stop().catch(() => {});
      await db.close().catch(() => {});
      throw err;
    }
  }

  async #socket(): Promise<Socket> {
    try {
      const { port } = await this.#open();
      return netConnect(port, '127.0.0.1');
    } catch (err) {
      // A socket that fails at once: postgres.js fails the waiting query and closes the
      // connection cleanly (a thrown factory would leave the pool stuck "connecting").
      const failed = new Socket();
      setImmediate(() => failed.destroy(openFailed(err)));
      return failed;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.sql.end({ timeout: 5 });
    const front = this.#front;
    if (front !== null) {
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      for (const c of this.#relayed) c.destroy();
      await closed;
    }
    const opened = await this.#opening?.catch(() => null);
    if (opened === null || opened === undefined) return;
    if (this.#pendingWork !== undefined) await this.#markIfIdle(opened.port);
    await opened.server.stop();
    await opened.db.close();
  }

  async #markIfIdle(port: number): Promise<void> {
    const check = connect(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, embedded: true });
    try {
      if (!(await (this.#pendingWork as (sql: Sql) => Promise<boolean>)(check))) {
        writeFileSync(join(this.#dir, IDLE_MARKER), new Date().toISOString());
      }
    } catch (err) {
      this.#log.warn({ err, database: this.env }, 'cannot tell whether work is left; it opens at the next start');
    } finally {
      await check.end({ timeout: 5 });
    }
  }
}

function openFailed(cause: unknown): Error {
  const err = new Error(`the embedded database did not open: ${(cause as Error)?.message ?? String(cause)}`, {
    cause,
  });
  (err as Error & { code: string }).code = 'CONNECT_EMBEDDED_OPEN';
  return err;
}
