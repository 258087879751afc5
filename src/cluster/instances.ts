// A registry of the service instances that share one database: each instance claims a row in
// `instances` at start (its own random id), refreshes its heartbeat every `heartbeatMs` and
// reads how many instances are live (heartbeat within `ttlMs`). Rows of instances that stopped
// beating are deleted by whichever instance claims them first (FOR UPDATE SKIP LOCKED), so no
// instance assumes it is alone. One statement per beat, off every request path; the live count
// is read from memory. While the database is unreachable the last known count is kept.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Sql } from '../storage/db.js';

export interface InstanceRegistryOptions {
  /** Milliseconds between heartbeats. */
  readonly heartbeatMs: number;
  /** An instance whose heartbeat is older than this many milliseconds is not live. */
  readonly ttlMs: number;
}

export class InstanceRegistry {
  readonly id = `ins_${randomBytes(8).toString('hex')}`;
  readonly #sql: Sql;
  readonly #log: Logger;
  readonly #options: InstanceRegistryOptions;
  readonly #listeners: ((live: number) => void)[] = [];
  #live = 1;
  #timer: NodeJS.Timeout | null = null;
  #beating: Promise<void> | null = null;
  #closed = false;

  private constructor(sql: Sql, log: Logger, options: InstanceRegistryOptions) {
    this.#sql = sql;
    this.#log = log;
    this.#options = options;
  }

  /** Claims this instance's row and reads the live count before returning. */
  static async start(sql: Sql, log: Logger, options: InstanceRegistryOptions): Promise<InstanceRegistry> {
    const registry = new InstanceRegistry(sql, log, options);
    await registry.beat();
    registry.#timer = setInterval(() => void registry.beat(), options.heartbeatMs);
    registry.#timer.unref();
    return registry;
  }

  /** Live instances sharing the database, this one included (at least 1). */
  get live(): number {
    return this.#live;
  }

  /** Calls `fn` with the new live count whenever it changes. */
  onChange(fn: (live: number) => void): void {
    this.#listeners.push(fn);
  }

  /** One heartbeat: refresh (or re-claim) this row, sweep dead rows, count the live ones. */
  beat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => {
      this.#beating = null;
    });
    return this.#beating;
  }

  async #beat(): Promise<void> {
    if (this.#closed) return;
    const ttlSeconds = this.#options.ttlMs / 1000;
    try {
      const [row] = await this.#sql<{ live: number }[]>`
        with me as (
          insert into instances (id) values (${this.id})
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
    } catch (err) {
      this.#log.warn({ err, instance: this.id }, 'instance heartbeat failed; keeping the last live count');
    }
  }

  /** Stops beating and removes this instance's row, so the others count it out at once. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#beating;
    this.#closed = true;
    try {
      await this.#sql`delete from instances where id = ${this.id}`;
    } catch (err) {
      this.#log.warn({ err, instance: this.id }, 'cannot remove the instance row; it expires by itself');
    }
  }
}
