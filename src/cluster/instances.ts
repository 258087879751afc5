// A registry of the service instances that share one database: each instance claims a row in
// `instances` at start (its own random id), refreshes its heartbeat every `heartbeatMs` and
// reads how many instances are live (heartbeat within `ttlMs`). Rows of instances that stopped
// beating are deleted by whichever instance claims them first (FOR UPDATE SKIP LOCKED), so no
// instance assumes it is alone. One statement per beat, off every request path; the live count
// is read from memory. While the database is unreachable the last known count is kept.
//
// Unsafe set-ups are refused at start (docs/background-claims.md): an instance on the
// in-process bus keeps its events and webhook deliveries to itself, so it must be alone on its
// database; an instance on NATS must not share the database with one on the in-process bus.
// The check and this instance's row are one transaction under an advisory lock, so two
// instances starting together see each other. A row whose heartbeat is recent but which may
// belong to a dead process (a restart right after a crash) counts only if its heartbeat moves
// within about one heartbeat period; a dead process of this host is recognised by its pid at once.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config.js';
import type { Sql } from '../storage/db.js';
import { PeriodicJob } from '../storage/periodic-job.js';

/** The event bus an instance runs on (src/events/bus.ts). */
export type BusKind = 'nats' | 'memory';

const JOIN_LOCK_KEY = 727_274_130;

interface PeerRow {
  id: string;
  bus: BusKind | null;
  host: string | null;
  pid: number | null;
  heartbeat_at: Date;
}

/** True when a process with this pid exists on this host. */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why this instance may not run next to `peer`, or null when it may. */
function conflict(mine: BusKind, peer: PeerRow): string | null {
  if (mine === 'memory') {
    return (
      `another service instance (${peer.id}${peer.bus === null ? '' : `, bus ${peer.bus}`}) is live on this ` +
      'database and this one has NATS_URL unset: the in-process bus keeps events and webhook deliveries to ' +
      'one instance, so instances sharing a database must all set NATS_URL to one NATS JetStream server'
    );
  }
  if (peer.bus === 'memory') {
    return (
      `a service instance on the in-process bus (${peer.id}, NATS_URL unset) is live on this database: set ` +
      'NATS_URL on every instance sharing the database, or stop that one'
    );
  }
  return null;
}

export interface InstanceRegistryOptions {
  /** Milliseconds between heartbeats. */
  readonly heartbeatMs: number;
  /** An instance whose heartbeat is older than this many milliseconds is not live. */
  readonly ttlMs: number;
  /** The bus this instance runs on; recorded, and checked against the live instances at start. */
  readonly bus: BusKind;
}

export class InstanceRegistry {
  readonly id = `ins_${randomBytes(8).toString('hex')}`;
  readonly #sql: Sql;
  readonly #log: Logger;
  readonly #options: InstanceRegistryOptions;
  readonly #listeners: ((live: number) => void)[] = [];
  readonly #heartbeat: PeriodicJob;
  #live = 1;

  private constructor(sql: Sql, log: Logger, options: InstanceRegistryOptions) {
    this.#sql = sql;
    this.#log = log;
    this.#options = options;
    this.#heartbeat = new PeriodicJob({
      intervalMs: options.heartbeatMs,
      log: log.child({ instance: this.id }),
      failed: 'instance heartbeat failed; keeping the last live count',
      round: () => this.#beat(),
    });
  }

  /**
   * Joins (refusing an unsafe set-up with a ConfigError naming NATS_URL), claims this
   * instance's row and reads the live count before returning.
   */
  static async start(sql: Sql, log: Logger, options: InstanceRegistryOptions): Promise<InstanceRegistry> {
    const registry = new InstanceRegistry(sql, log, options);
    await registry.#join();
    await registry.beat();
    registry.#heartbeat.start();
    return registry;
  }

  /**
   * Checks the live instances against this one's bus and inserts this instance's row, under an
   * advisory lock. A conflicting row counts only if its process is live: not a dead pid of this
   * host, and its heartbeat moves within about one heartbeat period.
   */
  async #join(): Promise<void> {
    const { bus, ttlMs, heartbeatMs } = this.#options;
    const host = hostname();
    const ttlSeconds = ttlMs / 1000;
    for (let round = 0; ; round++) {
      const suspects = await this.#sql.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(${JOIN_LOCK_KEY})`;
        const peers = await tx<PeerRow[]>`
          select id, bus, host, pid, heartbeat_at from instances
          where heartbeat_at >= now() - make_interval(secs => ${ttlSeconds}) and id <> ${this.id}`;
        // A recent row of this host whose process is gone: a crashed predecessor, removed now.
        const dead = peers.filter(
          (p) => p.host === host && p.pid !== null && p.pid !== process.pid && !processExists(p.pid),
        );
        if (dead.length > 0) await tx`delete from instances where id = any(${dead.map((p) => p.id)}::text[])`;
        const live = peers.filter((p) => conflict(bus, p) !== null && !dead.includes(p));
        if (live.length > 0) return live;
        await tx`
          insert into instances (id, bus, host, pid) values (${this.id}, ${bus}, ${host}, ${process.pid})
          on conflict (id) do update set heartbeat_at = now(), bus = excluded.bus`;
        return [];
      });
      if (suspects.length === 0) return;
      const first = suspects[0] as PeerRow;
      if (round > 0) throw new ConfigError('NATS_URL', conflict(bus, first) as string);
      // A live instance beats within one period; a row that stays put is a dead process's.
      await new Promise((r) => setTimeout(r, heartbeatMs * 1.2 + 250));
      const again = await this.#sql<{ id: string; heartbeat_at: Date }[]>`
        select id, heartbeat_at from instances where id = any(${suspects.map((p) => p.id)}::text[])`;
      const moved = again.find(
        (r) => r.heartbeat_at.getTime() !== suspects.find((p) => p.id === r.id)?.heartbeat_at.getTime(),
      );
      if (moved !== undefined) {
        throw new ConfigError('NATS_URL', conflict(bus, suspects.find((p) => p.id === moved.id) as PeerRow) as string);
      }
      this.#log.info({ instances: suspects.map((p) => p.id) }, 'instance rows with a stopped heartbeat removed');
      for (const p of suspects) {
        // Milliseconds in JavaScript, microseconds in the row: "not newer than what was read".
        const seen = new Date(p.heartbeat_at.getTime() + 1);
        await this.#sql`delete from instances where id = ${p.id} and heartbeat_at < ${seen}`;
      }
    }
  }

  /** Live instances sharing the database, this one included (at least 1). */
  get live(): number {
    return this.#live;
  }

  /** Calls `fn` with the new live count whenever it changes. */
  onChange(fn: (live: number) => void): void {
    this.#listeners.push(fn);
  }

  /**
   * One heartbeat: refresh (or re-claim) this row, sweep dead rows, count the live ones (a beat
   * already running is joined; a failed one keeps the last live count).
   */
  beat(): Promise<void> {
    return this.#heartbeat.run();
  }

  async #beat(): Promise<void> {
    const ttlSeconds = this.#options.ttlMs / 1000;
    const [row] = await this.#sql<{ live: number }[]>`
      with me as (
        insert into instances (id, bus, host, pid) values (${this.id}, ${this.#options.bus}, ${hostname()}, ${process.pid})
        on conflict (id) do update set heartbeat_at = now()
        returning id
      ), dead as (
        delete from instances where id in (
          select id from instances where heartbeat_at < now() - make_interval(secs => ${ttlSeconds * 2})
          for update skip locked)
      )
      select (select count(*) from instances
               where heartbeat_at >= now() - make_interval(secs => ${ttlSeconds}) and id <> ${this.id})::int + 1
             as live`;
    const live = Math.max(1, row?.live ?? 1);
    if (live !== this.#live) {
      this.#log.info({ instance: this.id, live }, 'live service instances changed');
      this.#live = live;
      for (const fn of this.#listeners) fn(live);
    }
  }

  /** Stops beating and removes this instance's row, so the others count it out at once. */
  async close(): Promise<void> {
    await this.#heartbeat.close();
    try {
      await this.#sql`delete from instances where id = ${this.id}`;
    } catch (err) {
      this.#log.warn({ err, instance: this.id }, 'cannot remove the instance row; it expires by itself');
    }
  }
}
