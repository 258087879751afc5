// Fair share of an instance's decisions between tenants under overload (docs/security.md "One
// tenant cannot harm another"). Every decision holds a slot from the moment the edge hands it to
// the engine until its answer. While the instance holds fewer than `capacity` decisions, or is
// not `busy` (the process has CPU to spare: decisions are in flight because the database is
// slow, not because the machine is saturated, and holding them back would only turn them into
// refusals), a request takes a slot at once. Otherwise a tenant may hold at most its share: the
// capacity divided by the tenants seen within the last `activeWindowMs` (at least `minShare`). A
// request beyond its tenant's share waits in that tenant's own queue, in front of the engine,
// instead of in the shards' queues where it would delay every other tenant's decisions; slots
// freed while tenants wait go to them in turn (round robin). A queue holds at most `queueLimit`
// requests and a request waits at most `maxWaitMs`: beyond either it is refused (the caller
// answers 429 with Retry-After). A waiting request costs no CPU, so a flooding closed-loop
// client is slowed to its share rather than spinning on refusals.
//
// Memory: one small record per tenant seen within the window (idle ones are dropped when the
// active count is recomputed, at most every `recountMs`) and at most `queueLimit` waiting
// requests per tenant.

export interface FairShareOptions {
  /** Decisions in flight on this instance above which tenants are held to their share. */
  readonly capacity: number;
  /** The least in-flight share of a tenant, however many tenants are active. */
  readonly minShare?: number;
  /** Requests of one tenant that may wait for a slot (default twice the capacity). */
  readonly queueLimit?: number;
  /** The longest a request waits for a slot before it is refused (milliseconds). */
  readonly maxWaitMs?: number;
  /** A tenant counts as active for this long after its last request (milliseconds). */
  readonly activeWindowMs?: number;
  /** The active count is recomputed at most this often (milliseconds). */
  readonly recountMs?: number;
  /** Monotonic clock (milliseconds); performance.now by default. */
  readonly now?: () => number;
  /**
   * Whether the instance is short of CPU now (asked only while `capacity` or more decisions are
   * in flight); always busy when absent. See CpuLoad.
   */
  readonly busy?: () => boolean;
}

/**
 * Whether this process is short of CPU: the CPU time of all its threads (the edge and the shard
 * workers) over the last `windowMs` reaches `busyCores` cores; read at most once a window. A
 * database that is slow leaves it idle (decisions wait, nothing runs); a flood keeps it busy.
 */
export class CpuLoad {
  readonly #windowMs: number;
  readonly #busyCores: number;
  readonly #cpuMicros: () => number;
  readonly #now: () => number;
  #lastCpu: number;
  #lastMs: number;
  #busy = false;

  /** `cpuMicros` (the process's CPU time) and `now` (wall milliseconds) are for tests. */
  constructor(busyCores: number, windowMs = 100, cpuMicros = processCpuMicros, now = () => performance.now()) {
    this.#busyCores = busyCores;
    this.#windowMs = windowMs;
    this.#cpuMicros = cpuMicros;
    this.#now = now;
    this.#lastCpu = cpuMicros();
    this.#lastMs = now();
  }

  busy(): boolean {
    const now = this.#now();
    const elapsedMs = now - this.#lastMs;
    if (elapsedMs >= this.#windowMs) {
      const cpu = this.#cpuMicros();
      this.#busy = (cpu - this.#lastCpu) / 1000 / elapsedMs >= this.#busyCores;
      this.#lastCpu = cpu;
      this.#lastMs = now;
    }
    return this.#busy;
  }
}

function processCpuMicros(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

interface Waiter {
  readonly admit: (admitted: boolean) => void;
  readonly timer: NodeJS.Timeout;
}

interface Tenant {
  readonly key: string;
  inFlight: number;
  lastMs: number;
  readonly waiting: Waiter[];
}

/** Why a request got no slot: its tenant's queue was full, or it waited too long. */
export type Refusal = 'queue_full' | 'wait_expired';

export class FairShare {
  readonly #capacity: number;
  readonly #minShare: number;
  readonly #queueLimit: number;
  readonly #maxWaitMs: number;
  readonly #windowMs: number;
  readonly #recountMs: number;
  readonly #now: () => number;
  readonly #busy: () => boolean;
  readonly #tenants = new Map<string, Tenant>();
  /** Tenants with waiting requests, in the order they are served. */
  readonly #turns: Tenant[] = [];
  #total = 0;
  #waiting = 0;
  #active = 0;
  #countedAtMs = Number.NEGATIVE_INFINITY;

  constructor(options: FairShareOptions) {
    this.#capacity = Math.max(1, Math.floor(options.capacity));
    this.#minShare = Math.max(1, Math.floor(options.minShare ?? 2));
    this.#queueLimit = Math.max(0, Math.floor(options.queueLimit ?? this.#capacity * 2));
    this.#maxWaitMs = options.maxWaitMs ?? 250;
    this.#windowMs = options.activeWindowMs ?? 1_000;
    this.#recountMs = options.recountMs ?? 50;
    this.#now = options.now ?? (() => performance.now());
    this.#busy = options.busy ?? (() => true);
  }

  /** Decisions in flight on this instance. */
  get inFlight(): number {
    return this.#total;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.#waiting;
  }

  /** The most a tenant may hold in flight while the instance is busy. */
  share(): number {
    return Math.max(this.#minShare, Math.floor(this.#capacity / Math.max(1, this.#countActive())));
  }

  /**
   * A slot for `key`: null when taken at once (the common case: nothing allocated), else a
   * promise of one, or of the reason there is none. Every slot taken is given back by release(key).
   */
  acquire(key: string): Promise<Refusal | null> | null {
    const t = this.#tenant(key);
    if (t.waiting.length === 0 && this.#admits(t)) {
      t.inFlight++;
      this.#total++;
      return null;
    }
    if (t.waiting.length >= this.#queueLimit) return Promise.resolve('queue_full');
    return new Promise<Refusal | null>((resolve) => {
      const waiter: Waiter = {
        admit: (admitted) => resolve(admitted ? null : 'wait_expired'),
        timer: setTimeout(() => this.#expire(t, waiter), this.#maxWaitMs),
      };
      if (t.waiting.length === 0) this.#turns.push(t);
      t.waiting.push(waiter);
      this.#waiting++;
    });
  }

  release(key: string): void {
    const t = this.#tenants.get(key);
    if (t === undefined || t.inFlight === 0) return;
    t.inFlight--;
    this.#total--;
    this.#serve();
  }

  #tenant(key: string): Tenant {
    const now = this.#now();
    let t = this.#tenants.get(key);
    if (t === undefined) {
      t = { key, inFlight: 0, lastMs: now, waiting: [] };
      this.#tenants.set(key, t);
      this.#active++; // counted now; the next recount settles it
    } else {
      t.lastMs = now;
    }
    return t;
  }

  #admits(t: Tenant): boolean {
    return this.#total < this.#capacity || t.inFlight < this.share() || !this.#busy();
  }

  /** Gives freed slots to waiting tenants, one request per tenant in turn. */
  #serve(): void {
    let passes = this.#turns.length;
    while (passes > 0 && this.#turns.length > 0) {
      const t = this.#turns.shift() as Tenant;
      if (this.#admits(t)) {
        const w = t.waiting.shift() as Waiter;
        this.#waiting--;
        clearTimeout(w.timer);
        t.inFlight++;
        this.#total++;
        w.admit(true);
        passes = this.#turns.length + 1; // a slot was used: every tenant gets another look
      } else {
        passes--;
      }
      if (t.waiting.length > 0) this.#turns.push(t);
    }
  }

  #expire(t: Tenant, w: Waiter): void {
    const i = t.waiting.indexOf(w);
    if (i < 0) return;
    t.waiting.splice(i, 1);
    this.#waiting--;
    if (t.waiting.length === 0) {
      const turn = this.#turns.indexOf(t);
      if (turn >= 0) this.#turns.splice(turn, 1);
    }
    w.admit(false);
  }

  #countActive(): number {
    const now = this.#now();
    if (now - this.#countedAtMs < this.#recountMs) return this.#active;
    this.#countedAtMs = now;
    const oldest = now - this.#windowMs;
    for (const [key, t] of this.#tenants) {
      if (t.inFlight === 0 && t.waiting.length === 0 && t.lastMs < oldest) this.#tenants.delete(key);
    }
    this.#active = this.#tenants.size;
    return this.#active;
  }
}

/**
 * The two levels of fair share of POST /authorize: by Client (an integrator flooding through
 * many Principals) and by Principal (one Principal flooding its siblings under the same Client).
 * A request holds a slot of both; the Client's is taken first.
 */
export class TenantShares {
  readonly #byClient: FairShare;
  readonly #byPrincipal: FairShare;

  constructor(options: FairShareOptions) {
    this.#byClient = new FairShare(options);
    this.#byPrincipal = new FairShare(options);
  }

  /** Decisions in flight on this instance. */
  get inFlight(): number {
    return this.#byClient.inFlight;
  }

  /** Requests waiting for a slot, at either level. */
  get waiting(): number {
    return this.#byClient.waiting + this.#byPrincipal.waiting;
  }

  /**
   * Slots of both levels: null when both are taken at once, else a promise of null once they
   * are, or of the level that refused. On a refusal nothing is held.
   */
  take(clientId: string, principalId: string): Promise<'client' | 'principal' | null> | null {
    const client = this.#byClient.acquire(clientId);
    if (client === null) return this.#principal(clientId, principalId);
    return client.then((refused) => (refused !== null ? 'client' : this.#principal(clientId, principalId)));
  }

  #principal(clientId: string, principalId: string): Promise<'principal' | null> | null {
    const p = this.#byPrincipal.acquire(principalId);
    if (p === null) return null;
    return p.then((refused) => {
      if (refused === null) return null;
      this.#byClient.release(clientId);
      return 'principal';
    });
  }

  release(clientId: string, principalId: string): void {
    this.#byPrincipal.release(principalId);
    this.#byClient.release(clientId);
  }
}
