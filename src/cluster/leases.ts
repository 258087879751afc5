// Shard ownership across the instances that share one database (docs/scale-out.md).
//
// Agents are cut into SHARD_COUNT virtual shards (FNV-1a of the agent id). Each shard has at
// most one owner, recorded in the live database's `shard_leases` with an epoch that every claim
// raises (migrations/0140_shard_leases.sql). Every `renewMs` this instance beats once:
//   1. it refreshes its row in `instances` and renews the leases it owns (one statement); a
//      shard it believed it owned that is not renewed was lost (a newer owner holds it);
//   2. it reads the owner of every shard and the live instances;
//   3. rendezvous hashing over the live instances names each shard's preferred owner, the same
//      answer on every instance, so only 1/N of the shards move when an instance joins or leaves;
//      only instances the others can reach count (their NATS transport was connected at their
//      last beat), unless none is: one cut off NATS hands its shards to the others instead of
//      holding shards nobody can forward to, and with NATS down for all nothing moves; of those,
//      only instances whose wall clock is within MAX_CLOCK_OFFSET_MS of the database's, unless
//      none is: decisions are stamped with the deciding instance's clock and judged against
//      calendar windows, so a skewed owner would let an agent's spend straddle a day or month
//      boundary twice when its shard moves (the skew is measured against PostgreSQL's
//      clock_timestamp() each beat);
//   4. it hands over (drain, then release) the shards another live instance is preferred for,
//      a few at a time, and claims the free shards it is preferred for, or any shard left free
//      for longer than a lease, so a preferred owner that cannot claim does not strand it.
// An owner serves a shard only while its lease is valid by its own monotonic clock (never the
// wall clock): until the moment it SENT the last successful renewal plus the TTL minus a margin,
// so it stops before any other instance may claim the shard. PostgreSQL is the last guard: an audit batch commits only under
// its shard's current epoch, checked in the batch's own transaction.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Sql } from '../storage/db.js';
import { PeriodicJob } from '../storage/periodic-job.js';

/** Virtual shards of the agent keyspace. */
export const SHARD_COUNT = 1024;

/**
 * An instance whose wall clock is further than this from the database's (beyond what the round
 * trip of the measurement leaves uncertain) is preferred for no shard while another is within.
 */
export const MAX_CLOCK_OFFSET_MS = 500;
/** Clock measurements kept; the one with the shortest round trip is the estimate. */
const CLOCK_SAMPLES = 10;

export interface ShardLeaseOptions {
  /** A lease not renewed for this long may be claimed by another instance, in milliseconds. */
  readonly ttlMs: number;
  /** Milliseconds between two beats (renewal, rebalance). */
  readonly renewMs: number;
  /** Shards handed over per beat at most (a joining instance takes its share in steps). */
  readonly movesPerBeat?: number;
}

/** What the owner of the leases does around a change of ownership. */
export interface LeaseHooks {
  /** Shards just claimed (or lost): every actor of theirs must reload before its next decision. */
  invalidate(shards: readonly number[]): Promise<void>;
  /** Resolves once no decision for these shards is in flight here (they are no longer admitted). */
  drained(shards: readonly number[]): Promise<void>;
  /** Tells these instances that ownership changed (they beat at once instead of at their next tick). */
  nudge(instances: readonly string[]): void;
  /** True while the other instances can forward to this one (its transport is connected). */
  reachable(): boolean;
}

interface LeaseRow {
  shard: number;
  owner: string | null;
  epoch: string;
  free: boolean;
}

/** 32-bit mix of an instance id and a shard, for rendezvous hashing. */
function score(instance: string, shard: number): number {
  let h = 0x811c9dc5 ^ Math.imul(shard + 1, 0x9e3779b1);
  for (let i = 0; i < instance.length; i++) {
    h ^= instance.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** The preferred owner of `shard` among `live` (sorted ids): highest rendezvous score. */
export function preferredOwner(live: readonly string[], shard: number): string {
  let best = live[0] as string;
  let bestScore = -1;
  for (const id of live) {
    const s = score(id, shard);
    if (s > bestScore || (s === bestScore && id < best)) {
      best = id;
      bestScore = s;
    }
  }
  return best;
}

export class ShardLeases {
  readonly #live: Sql;
  readonly #sandbox: Sql;
  readonly #id: string;
  readonly #log: Logger;
  readonly #hooks: LeaseHooks;
  readonly #ttlMs: number;
  readonly #renewMs: number;
  readonly #movesPerBeat: number;
  /** Shards this instance serves, with the epoch it holds each under. */
  readonly #owned = new Map<number, number>();
  /** Shards being handed over: owned, but no longer admitted here. */
  readonly #releasing = new Set<number>();
  /** Owner of every shard at the last beat (null: free). */
  #owners: (string | null)[] = new Array(SHARD_COUNT).fill(null);
  /** performance.now() of the first beat that saw each shard free (to take strays). */
  readonly #freeSince = new Map<number, number>();
  #liveInstances: string[] = [];
  /**
   * The live instances shards are preferred to: the reachable ones with a clock within
   * MAX_CLOCK_OFFSET_MS, else the reachable ones, else all.
   */
  #candidates: string[] = [];
  /** Recent measurements of this instance's wall clock against the database's. */
  readonly #clockSamples: { offsetMs: number; rttMs: number }[] = [];
  /** This instance's clock offset (positive: ahead), less the measurement's uncertainty; null: not measured. */
  #clockOffsetMs: number | null = null;
  /** Leases are valid here until this performance.now() time. */
  #validUntil = 0;
  /** The beats: overlapping calls run once more (a nudge must be seen by a beat that reads after it). */
  readonly #beats: PeriodicJob;
  #changeWaiters: (() => void)[] = [];

  constructor(live: Sql, sandbox: Sql, instanceId: string, hooks: LeaseHooks, log: Logger, options: ShardLeaseOptions) {
    this.#live = live;
    this.#sandbox = sandbox;
    this.#id = instanceId;
    this.#hooks = hooks;
    this.#log = log.child({ instance: instanceId });
    this.#ttlMs = options.ttlMs;
    this.#renewMs = options.renewMs;
    this.#movesPerBeat = options.movesPerBeat ?? 128;
    this.#beats = new PeriodicJob({
      intervalMs: options.renewMs,
      log: this.#log,
      failed: 'shard lease beat failed',
      overlap: 'again',
      round: async () => {
        try {
          await this.#beat();
        } finally {
          this.#wake();
        }
      },
    });
  }

  get instanceId(): string {
    return this.#id;
  }

  /** Beats once (this instance's first shards are claimed when it is alone), then every renewMs. */
  async start(): Promise<void> {
    await this.beat();
    this.#beats.start();
  }

  /** The epoch this instance serves `shard` under now, or null when it must not decide for it. */
  epochOf(shard: number): number | null {
    if (this.#releasing.has(shard) || performance.now() >= this.#validUntil) return null;
    return this.#owned.get(shard) ?? null;
  }

  /** True while this instance holds `shard` (serving or handing it over). */
  holds(shard: number): boolean {
    return this.#owned.has(shard);
  }

  /**
   * The live instance that owned `shard` at the last beat, other than this one; else null. A
   * shard held here whose lease ran out unrenewed (this instance cannot reach the database) is
   * being taken by the instance preferred among the others: that one is named, and answers
   * not_owner until its claim is through.
   */
  ownerOf(shard: number): string | null {
    const owner = this.#owners[shard] ?? null;
    if (owner !== this.#id) return owner;
    if (this.#releasing.has(shard) || performance.now() < this.#validUntil) return null;
    const others = this.#candidates.filter((id) => id !== this.#id);
    return others.length === 0 ? null : preferredOwner(others, shard);
  }

  /** Shards served here now. */
  get ownedCount(): number {
    return this.#owned.size - this.#releasing.size;
  }

  /** Live instances at the last beat, this one included. */
  get liveInstances(): readonly string[] {
    return this.#liveInstances;
  }

  /** Resolves after the next beat (or after `ms`, whichever is first). */
  changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#changeWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** One beat now (also on a nudge from another instance); overlapping calls run once more. */
  beat(): Promise<void> {
    return this.#beats.run();
  }

  /** Resolves the changed() waiters: a beat has ended. */
  #wake(): void {
    const waiters = this.#changeWaiters;
    this.#changeWaiters = [];
    for (const w of waiters) w();
  }

  async #beat(): Promise<void> {
    const sentAt = performance.now();
    const reachable = this.#hooks.reachable();
    const offset = this.#clockOffsetMs;
    let rows: LeaseRow[];
    let renewed: Map<number, number>;
    try {
      const ttlSeconds = this.#ttlMs / 1000;
      const wallSent = Date.now();
      const [renewedRows, leaseRows, liveRows, clock] = await Promise.all([
        this.#live<{ shard: number; epoch: string }[]>`
          with me as (
            insert into instances (id, reachable, clock_offset_ms) values (${this.#id}, ${reachable}, ${offset})
            on conflict (id) do update
            set heartbeat_at = now(), reachable = excluded.reachable, clock_offset_ms = excluded.clock_offset_ms
          )
          update shard_leases set expires_at = now() + make_interval(secs => ${ttlSeconds})
          where owner = ${this.#id}
          returning shard, epoch`,
        this.#live<LeaseRow[]>`
          select shard, owner, epoch, (owner is null or expires_at < now()) as free
          from shard_leases order by shard`,
        this.#live<{ id: string; reachable: boolean; clock_offset_ms: number | null }[]>`
          select id, coalesce(reachable, true) as reachable, clock_offset_ms from instances
          where heartbeat_at >= now() - make_interval(secs => ${ttlSeconds}) or id = ${this.#id}
          order by id`,
        this.#live<{ at: Date }[]>`select clock_timestamp() as at`.then((r) => ({ at: r[0]?.at, back: Date.now() })),
      ]);
      this.#sampleClock(wallSent, clock.back, clock.at);
      renewed = new Map(renewedRows.map((r) => [r.shard, Number(r.epoch)]));
      rows = leaseRows;
      this.#liveInstances = liveRows.map((r) => r.id);
      // This instance's own row may be read before this beat's write: its values are the ones just sent.
      const mine = (r: (typeof liveRows)[number]) =>
        r.id === this.#id ? { ...r, reachable, clock_offset_ms: offset } : r;
      const reachableRows = liveRows.map(mine).filter((r) => r.reachable);
      const inTime = reachableRows.filter(
        (r) => r.clock_offset_ms === null || Math.abs(r.clock_offset_ms) <= MAX_CLOCK_OFFSET_MS,
      );
      const tier = inTime.length > 0 ? inTime : reachableRows;
      this.#candidates = tier.length > 0 ? tier.map((r) => r.id) : this.#liveInstances;
      this.#validUntil = sentAt + this.#ttlMs - Math.max(this.#renewMs, this.#ttlMs / 3);
    } catch (err) {
      this.#log.warn({ err }, 'shard lease beat failed; serving owned shards until their leases run out');
      return;
    }

    // Lost: held here, not renewed (or renewed under another epoch: someone claimed in between).
    const lost: number[] = [];
    for (const [shard, epoch] of this.#owned) {
      if (renewed.get(shard) !== epoch) lost.push(shard);
    }
    if (lost.length > 0) {
      for (const s of lost) {
        this.#owned.delete(s);
        this.#releasing.delete(s);
      }
      this.#log.warn({ shards: lost.length }, 'shard leases lost to another instance');
      await this.#hooks.invalidate(lost).catch((err: unknown) => this.#log.error({ err }, 'invalidate failed'));
    }

    // Claimed in the database but never served (the claim failed half-way): give them back.
    const strays = [...renewed.keys()].filter((s) => !this.#owned.has(s));
    if (strays.length > 0) {
      await this.#live`
        update shard_leases set owner = null, expires_at = '-infinity'
        where owner = ${this.#id} and shard = any(${strays}::int[])`.catch(() => {});
    }

    const now = performance.now();
    const owners: (string | null)[] = new Array(SHARD_COUNT).fill(null);
    const live = new Set(this.#candidates);
    const candidate = live.has(this.#id);
    const toClaim: number[] = [];
    const toRelease: number[] = [];
    for (const row of rows) {
      const shard = row.shard;
      owners[shard] = row.free ? null : row.owner;
      const preferred = preferredOwner(this.#candidates, shard);
      if (this.#owned.has(shard)) {
        if (preferred !== this.#id && live.has(preferred) && !this.#releasing.has(shard)) toRelease.push(shard);
        continue;
      }
      if (!row.free) {
        this.#freeSince.delete(shard);
        continue;
      }
      const since = this.#freeSince.get(shard) ?? now;
      this.#freeSince.set(shard, since);
      if (preferred === this.#id || (candidate && now - since > this.#ttlMs)) toClaim.push(shard);
    }
    this.#owners = owners;

    if (toClaim.length > 0) await this.#claim(toClaim);
    if (toRelease.length > 0) await this.#release(toRelease.slice(0, this.#movesPerBeat));
  }

  /**
   * One measurement of this instance's wall clock against the database's: the database read its
   * clock between `sent` and `back` (this instance's wall clock), so the offset is known to
   * within half the round trip. The estimate is the shortest round trip's of the last few, less
   * that uncertainty (toward zero).
   */
  #sampleClock(sent: number, back: number, at: Date | undefined): void {
    if (at === undefined) return;
    const rttMs = Math.max(0, back - sent);
    this.#clockSamples.push({ offsetMs: (sent + back) / 2 - at.getTime(), rttMs });
    if (this.#clockSamples.length > CLOCK_SAMPLES) this.#clockSamples.shift();
    let best = this.#clockSamples[0] as { offsetMs: number; rttMs: number };
    for (const c of this.#clockSamples) if (c.rttMs < best.rttMs) best = c;
    const sure = Math.max(0, Math.abs(best.offsetMs) - best.rttMs / 2);
    const next = Math.round(Math.sign(best.offsetMs) * sure);
    const was = this.#clockOffsetMs;
    this.#clockOffsetMs = next;
    const off = Math.abs(next) > MAX_CLOCK_OFFSET_MS;
    if (off && (was === null || Math.abs(was) <= MAX_CLOCK_OFFSET_MS)) {
      this.#log.warn(
        { clock_offset_ms: next, max_ms: MAX_CLOCK_OFFSET_MS },
        "this instance's clock is off the database's: it hands its shards to instances whose clocks agree",
      );
    } else if (!off && was !== null && Math.abs(was) > MAX_CLOCK_OFFSET_MS) {
      this.#log.info({ clock_offset_ms: next }, "this instance's clock agrees with the database's again");
    }
  }

  async #claim(shards: readonly number[]): Promise<void> {
    try {
      const claimed = await this.#live<{ shard: number; epoch: string }[]>`
        select shard, epoch from asas_claim_shards(${this.#id}, ${shards as number[]}::int[], ${this.#ttlMs}::int)`;
      if (claimed.length === 0) return;
      const got = claimed.map((c) => c.shard);
      const epochs = claimed.map((c) => Number(c.epoch));
      // The sandbox database commits under the same epochs: raise them there before serving.
      await this.#sandbox`select asas_raise_epochs(${got}::int[], ${epochs.map(String)}::bigint[])`;
      // State built before the claim (an earlier ownership) may miss the other owner's decisions.
      await this.#hooks.invalidate(got);
      for (let i = 0; i < got.length; i++) {
        this.#owned.set(got[i] as number, epochs[i] as number);
        this.#owners[got[i] as number] = this.#id;
        this.#freeSince.delete(got[i] as number);
      }
      this.#log.info({ shards: got.length, owned: this.#owned.size }, 'shard leases claimed');
    } catch (err) {
      // Claimed in the live database but not ready: the next beat finds them renewed but not
      // served here and gives them back (strays), to be claimed again.
      this.#log.warn({ err }, 'shard claim failed');
    }
  }

  /** Hands shards over: stop admitting, drain, release, tell the instances preferred for them. */
  async #release(shards: readonly number[]): Promise<void> {
    for (const s of shards) this.#releasing.add(s);
    try {
      await this.#hooks.drained(shards);
      await this.#live`
        update shard_leases set owner = null, expires_at = '-infinity'
        where owner = ${this.#id} and shard = any(${shards as number[]}::int[])`;
      for (const s of shards) {
        this.#owned.delete(s);
        this.#owners[s] = null;
      }
      this.#log.info({ shards: shards.length, owned: this.#owned.size }, 'shard leases handed over');
      if (this.#candidates.length > 0) {
        const next = new Set(shards.map((s) => preferredOwner(this.#candidates, s)));
        next.delete(this.#id);
        this.#hooks.nudge([...next]);
      }
    } catch (err) {
      this.#log.warn({ err }, 'shard hand-over failed; serving them again');
    } finally {
      for (const s of shards) this.#releasing.delete(s);
    }
  }

  /** Hands every shard over and stops beating (SIGTERM). */
  async close(): Promise<void> {
    await this.#beats.close();
    const all = [...this.#owned.keys()];
    if (all.length > 0) {
      // Others must not prefer this instance any more: leave the registry first.
      await this.#live`delete from instances where id = ${this.#id}`.catch(() => {});
      const others = this.#liveInstances.filter((id) => id !== this.#id);
      const after = others.length > 0 ? others : [];
      this.#liveInstances = after;
      this.#candidates = this.#candidates.filter((id) => id !== this.#id);
      await this.#release(all);
      this.#hooks.nudge(after);
    }
  }
}
