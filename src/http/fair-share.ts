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
// answers 429 with Retry-After; a full queue's refusal is itself held for `maxWaitMs`, up to
// `queueLimit` of them, so a client ignoring Retry-After cannot spin on refusals). A waiting
// request costs no CPU, so a flooding closed-loop client is slowed to its share.
//
// A share of the slots is not enough on a machine whose cores the flooder's decisions fill
// (with the database, the message server and, in the drill, the flood's own load generator):
// another tenant's decision then waits for a core at every hop. So while the whole machine has
// less than FAIR_SHARE_IDLE_FLOOR of its CPU idle (MachineIdle), this process spends at least a
// quarter of the cores it can use (CpuLoad), both for at least `paceAfterMs` (2 s: a flood, not a
// burst), and more than one tenant is active, the heaviest tenant by far (more than twice the
// demand of all the others together: slots taken lately, held and waited for) is paced: an
// in-flight limit, halved every `paceMs` the machine stays short and raised by one every
// `paceMs` it has room (additive increase, multiplicative decrease), keeps some CPU free.
//
// Memory: one small record per tenant seen within the window (idle ones are dropped when the
// active count is recomputed, at most every `recountMs`) and at most `queueLimit` waiting
// requests per tenant.

import { cpus } from 'node:os';

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
  /**
   * Whether the machine has no CPU to spare now (all processes: the service, the database, the
   * callers' own load). While it has none and another tenant is active, the heaviest tenant by
   * far (more than twice the others' demand together) is paced: it may hold at most an in-flight
   * limit that halves every `paceMs` the machine stays short and grows by one every
   * `paceMs` it has room, so the machine keeps some CPU free and the other tenants' decisions
   * find a core at once. Never paced when absent.
   */
  readonly machineShort?: () => boolean;
  /**
   * Whether this process is spending the machine's CPU (pacing is for the service's own flood,
   * not another program's load); `busy` when absent.
   */
  readonly pacingBusy?: () => boolean;
  /** How often the pacing limit moves (milliseconds, default 100). */
  readonly paceMs?: number;
  /**
   * How long the machine must have been short, with this process busy, before pacing starts
   * (milliseconds, default 2,000): a flood, not a burst.
   */
  readonly paceAfterMs?: number;
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

/** The machine counts as short of CPU below this share of idle time (see MachineIdle). */
export const FAIR_SHARE_IDLE_FLOOR = 0.2;

/**
 * Whether the whole machine is short of CPU: the share of idle time of all its cores over the
 * last `windowMs` is below `idleFloor`; read at most once a window (os.cpus(), from /proc/stat on
 * Linux). It sees what CpuLoad cannot: the database, the message server and whatever else shares
 * the cores.
 */
export class MachineIdle {
  readonly #idleFloor: number;
  readonly #windowMs: number;
  readonly #times: () => { idle: number; total: number };
  readonly #now: () => number;
  #last: { idle: number; total: number };
  #lastMs: number;
  #short = false;

  /** `times` (idle and total CPU time of all cores) and `now` are for tests. */
  constructor(idleFloor: number, windowMs = 100, times = machineTimes, now = () => performance.now()) {
    this.#idleFloor = idleFloor;
    this.#windowMs = windowMs;
    this.#times = times;
    this.#now = now;
    this.#last = times();
    this.#lastMs = now();
  }

  short(): boolean {
    const now = this.#now();
    if (now - this.#lastMs >= this.#windowMs) {
      const t = this.#times();
      const total = t.total - this.#last.total;
      if (total > 0) this.#short = (t.idle - this.#last.idle) / total < this.#idleFloor;
      this.#last = t;
      this.#lastMs = now;
    }
    return this.#short;
  }
}

function machineTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const c of cpus()) {
    idle += c.times.idle;
    total += c.times.idle + c.times.user + c.times.nice + c.times.sys + c.times.irq;
  }
  return { idle, total };
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
  /** Slots taken in the current and the previous pacing window (who sent most, lately). */
  taken: number;
  takenBefore: number;
  /** Refusals held back before they are answered (a full queue's, see acquire). */
  held: number;
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
  readonly #machineShort: (() => boolean) | null;
  readonly #pacingBusy: () => boolean;
  readonly #paceMs: number;
  /** The most the heaviest tenant may hold while the machine is short (capacity: not paced). */
  #paceLimit: number;
  #pacedAtMs: number;
  readonly #paceAfterMs: number;
  /** Since when the machine has been short while this process was busy (null: it is not). */
  #shortSinceMs: number | null = null;
  /** Slots taken by all tenants in the current and the previous pacing window. */
  #taken = 0;
  #takenBefore = 0;
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
    this.#machineShort = options.machineShort ?? null;
    this.#pacingBusy = options.pacingBusy ?? this.#busy;
    this.#paceMs = options.paceMs ?? 100;
    this.#paceAfterMs = options.paceAfterMs ?? 2_000;
    this.#paceLimit = this.#capacity;
    this.#pacedAtMs = this.#now();
  }

  /** The in-flight limit of the heaviest tenant now (the capacity when it is not paced). */
  get paceLimit(): number {
    return this.#paceLimit;
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
      this.#take(t);
      return null;
    }
    if (t.waiting.length >= this.#queueLimit) {
      // A full queue's refusal is held for the longest wait (no CPU while held), up to the queue's
      // size again: a client that sends again the moment it is refused, ignoring Retry-After,
      // would otherwise spin on refusals and spend the cores pacing frees. Past that, at once.
      if (t.held >= this.#queueLimit) return Promise.resolve('queue_full');
      t.held++;
      return new Promise<Refusal | null>((resolve) => {
        setTimeout(() => {
          t.held--;
          resolve('queue_full');
        }, this.#maxWaitMs);
      });
    }
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
      t = { key, inFlight: 0, lastMs: now, waiting: [], taken: 0, takenBefore: 0, held: 0 };
      this.#tenants.set(key, t);
      this.#active++; // counted now; the next recount settles it
    } else {
      t.lastMs = now;
    }
    return t;
  }

  #take(t: Tenant): void {
    t.inFlight++;
    t.taken++;
    this.#taken++;
    this.#total++;
  }

  #admits(t: Tenant): boolean {
    if (this.#paced(t)) return false;
    return this.#total < this.#capacity || t.inFlight < this.share() || !this.#busy();
  }

  /** Whether `t` is the heaviest tenant and holds its pacing limit while the machine is short. */
  #paced(t: Tenant): boolean {
    if (this.#machineShort === null) return false;
    this.#pace();
    if (t.inFlight < this.#paceLimit) return false;
    // The heaviest by far: more than twice the demand (slots taken lately, held and waited for)
    // of all the other tenants together. Tenants of about equal demand are never paced, whichever
    // of them is a request ahead at the moment.
    const own = t.taken + t.takenBefore + t.inFlight + t.waiting.length;
    const all = this.#taken + this.#takenBefore + this.#total + this.#waiting;
    return own > 2 * (all - own) && this.#countActive() > 1;
  }

  /** Moves the pacing limit once per window: halved while the machine is short, else one more. */
  #pace(): void {
    const now = this.#now();
    if (now - this.#pacedAtMs < this.#paceMs) return;
    const windows = Math.floor((now - this.#pacedAtMs) / this.#paceMs);
    this.#pacedAtMs = now;
    // Short: the machine has no CPU to spare, this process is the one spending it (CpuLoad), and
    // others are active; pacing starts once that has lasted `paceAfterMs` (a flood, not a burst).
    const short = (this.#machineShort as () => boolean)() && this.#pacingBusy() && this.#countActive() > 1;
    if (!short) this.#shortSinceMs = null;
    else if (this.#shortSinceMs === null) this.#shortSinceMs = now;
    const pacing = short && now - (this.#shortSinceMs as number) >= this.#paceAfterMs;
    if (short && !pacing) {
      this.#rotate(windows);
      return;
    }
    this.#paceLimit = pacing
      ? Math.max(1, Math.floor(this.#paceLimit / 2))
      : Math.min(this.#capacity, this.#paceLimit + windows);
    this.#rotate(windows);
  }

  /** The recent counts: this window becomes the previous one (after an idle gap, both clear). */
  #rotate(windows: number): void {
    for (const t of this.#tenants.values()) {
      t.takenBefore = windows === 1 ? t.taken : 0;
      t.taken = 0;
    }
    this.#takenBefore = windows === 1 ? this.#taken : 0;
    this.#taken = 0;
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
        this.#take(t);
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
      if (t.inFlight === 0 && t.waiting.length === 0 && t.held === 0 && t.lastMs < oldest) this.#tenants.delete(key);
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

  /** The pacing limits of the Client and the Principal level (FairShare.paceLimit). */
  get paceLimits(): { readonly client: number; readonly principal: number } {
    return { client: this.#byClient.paceLimit, principal: this.#byPrincipal.paceLimit };
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
