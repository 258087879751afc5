// The fair-share scheduler of src/http/fair-share.ts on its own, with a clock of the test's: who
// gets a slot at once, who waits, in what order freed slots are given, when a request is refused,
// and that idle tenants are forgotten. test/drills/fair-share.test.ts shows it over HTTP under a flood.
import { describe, expect, it } from 'vitest';
import { CpuLoad, FairShare, MachineIdle, TenantShares } from '../../src/http/fair-share.js';

function clock(start = 0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('FairShare', () => {
  it('gives a slot at once while the instance holds fewer than its capacity', () => {
    const c = clock();
    const fs = new FairShare({ capacity: 4, now: c.now });
    for (let i = 0; i < 4; i++) expect(fs.acquire('a')).toBeNull();
    expect(fs.inFlight).toBe(4);
  });

  it('lets a tenant alone use the whole capacity, then queues it', async () => {
    const c = clock();
    const fs = new FairShare({ capacity: 4, now: c.now });
    for (let i = 0; i < 4; i++) expect(fs.acquire('a')).toBeNull();
    const waiting = fs.acquire('a');
    expect(waiting).not.toBeNull();
    expect(fs.waiting).toBe(1);
    fs.release('a');
    await expect(waiting).resolves.toBeNull();
    expect(fs.inFlight).toBe(4);
    expect(fs.waiting).toBe(0);
  });

  it('admits another tenant at once below its share while the busy one waits', async () => {
    const c = clock();
    const fs = new FairShare({ capacity: 4, now: c.now });
    for (let i = 0; i < 4; i++) expect(fs.acquire('a')).toBeNull();
    // b is new: two tenants now, a share of 2 each; b holds none, so it gets a slot at once.
    expect(fs.acquire('b')).toBeNull();
    expect(fs.share()).toBe(2);
    // a holds 4, over its share: it waits until it is below its share again.
    const a5 = fs.acquire('a');
    expect(a5).not.toBeNull();
    let admitted = false;
    void a5?.then(() => {
      admitted = true;
    });
    fs.release('a');
    await Promise.resolve();
    expect(admitted).toBe(false); // a holds 3, over its share, and the instance holds 4: still busy
    fs.release('a'); // the instance holds 3, below its capacity
    await expect(a5).resolves.toBeNull();
  });

  it('gives freed slots to waiting tenants in turn', async () => {
    const c = clock();
    const fs = new FairShare({ capacity: 2, minShare: 1, now: c.now });
    expect(fs.acquire('a')).toBeNull();
    expect(fs.acquire('b')).toBeNull();
    const order: string[] = [];
    const wait = (key: string) => fs.acquire(key)?.then(() => order.push(key));
    const all = [wait('a'), wait('a'), wait('b'), wait('b')];
    // Each release frees one slot; the tenants take turns.
    fs.release('a');
    fs.release('b');
    await Promise.resolve();
    fs.release('a');
    fs.release('b');
    await Promise.all(all);
    expect(order).toEqual(['a', 'b', 'a', 'b']);
  });

  it('refuses when the tenant queue is full (held for the longest wait, then at once), and after the longest wait', async () => {
    const c = clock();
    const fs = new FairShare({ capacity: 1, minShare: 1, queueLimit: 1, maxWaitMs: 20, now: c.now });
    expect(fs.acquire('a')).toBeNull();
    const queued = fs.acquire('a');
    // The queue is full: the refusal is held for maxWaitMs (one such, the queue's size), the
    // next one is answered at once.
    const started = performance.now();
    const held = fs.acquire('a');
    await expect(fs.acquire('a')).resolves.toBe('queue_full');
    expect(performance.now() - started).toBeLessThan(15);
    await expect(held).resolves.toBe('queue_full');
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
    await expect(queued).resolves.toBe('wait_expired');
    expect(fs.waiting).toBe(0);
    expect(fs.inFlight).toBe(1);
    // A later release finds no waiter and frees the slot.
    fs.release('a');
    expect(fs.inFlight).toBe(0);
  });

  it('forgets tenants idle for longer than the active window', () => {
    const c = clock();
    const fs = new FairShare({ capacity: 4, activeWindowMs: 1_000, recountMs: 0, now: c.now });
    for (const t of ['a', 'b', 'c', 'd']) {
      expect(fs.acquire(t)).toBeNull();
      fs.release(t);
    }
    expect(fs.share()).toBe(2); // 4 tenants seen: a share of 1, floored at minShare 2
    c.advance(1_500);
    expect(fs.acquire('a')).toBeNull();
    expect(fs.share()).toBe(4); // the three idle ones are dropped: a is alone
  });
});

describe('FairShare while the thread has time to spare', () => {
  it('admits past the capacity: decisions in flight on a slow database are not held back', async () => {
    let busy = false;
    const fs = new FairShare({ capacity: 2, minShare: 1, queueLimit: 4, now: clock().now, busy: () => busy });
    expect(fs.acquire('a')).toBeNull();
    expect(fs.acquire('b')).toBeNull();
    expect(fs.acquire('a')).toBeNull(); // over the capacity and a's share, but not busy
    busy = true;
    const waiting = fs.acquire('a');
    expect(waiting).not.toBeNull();
    busy = false;
    fs.release('b'); // the next release lets the waiter in
    await expect(waiting).resolves.toBeNull();
    expect(fs.inFlight).toBe(3);
  });
});

describe('FairShare pacing while the machine is short of CPU', () => {
  it('paces the tenant that takes most slots, halving its limit while short and raising it after', async () => {
    const c = clock();
    let short = false;
    const fs = new FairShare({ capacity: 16, now: c.now, paceMs: 100, paceAfterMs: 0, machineShort: () => short });
    // a takes 8 slots, b 1: a is the heaviest (more than all the others together).
    for (let i = 0; i < 8; i++) expect(fs.acquire('a')).toBeNull();
    expect(fs.acquire('b')).toBeNull();
    short = true;
    c.advance(100);
    const first = fs.acquire('a'); // paced: 8 held, limit 16 -> 8
    expect(first).not.toBeNull();
    expect(fs.paceLimit).toBe(8);
    c.advance(100);
    expect(fs.acquire('b')).toBeNull(); // b is never paced, whatever the limit
    fs.release('b');
    expect(fs.paceLimit).toBe(4);
    // a waits until it holds fewer than its limit.
    const next = fs.acquire('a');
    expect(next).not.toBeNull();
    for (let i = 0; i < 4; i++) fs.release('a');
    expect(fs.waiting).toBe(2);
    fs.release('a'); // a holds 3 of 4: the first waiter gets its slot, the second still waits
    await expect(first).resolves.toBeNull();
    await expect(Promise.race([next, Promise.resolve('pending')])).resolves.toBe('pending');
    expect(fs.waiting).toBe(1);
    // The machine has room again: one more every window, up to the capacity.
    short = false;
    c.advance(100);
    fs.acquire('b');
    expect(fs.paceLimit).toBe(5);
    c.advance(1_000);
    fs.acquire('b');
    expect(fs.paceLimit).toBe(15);
  });

  it('never paces a tenant alone, nor tenants sharing the slots evenly', () => {
    const c = clock();
    const fs = new FairShare({ capacity: 8, now: c.now, paceMs: 100, paceAfterMs: 0, machineShort: () => true });
    for (let i = 0; i < 6; i++) expect(fs.acquire('a')).toBeNull();
    c.advance(100);
    expect(fs.acquire('a')).toBeNull(); // alone: the machine is short, but nobody else waits for a core
    expect(fs.paceLimit).toBe(8);
    const even = new FairShare({ capacity: 8, now: c.now, paceMs: 100, paceAfterMs: 0, machineShort: () => true });
    for (let i = 0; i < 3; i++) {
      expect(even.acquire('a')).toBeNull();
      expect(even.acquire('b')).toBeNull();
    }
    c.advance(100);
    // Halved, but neither took more than the other: neither is paced.
    expect(even.acquire('a')).toBeNull();
    expect(even.acquire('b')).toBeNull();
    expect(even.paceLimit).toBe(4);
    // A tenant a few requests ahead of the other (5 held against 4) is not the heaviest by far:
    // never paced, however low the limit.
    const close = new FairShare({
      capacity: 32,
      now: c.now,
      paceMs: 100,
      paceAfterMs: 0,
      machineShort: () => true,
      busy: () => false,
      pacingBusy: () => true,
    });
    for (let i = 0; i < 5; i++) expect(close.acquire('a')).toBeNull();
    for (let i = 0; i < 4; i++) expect(close.acquire('b')).toBeNull();
    for (let i = 0; i < 4; i++) {
      c.advance(100);
      expect(close.acquire('b')).toBeNull();
      close.release('b');
    }
    expect(close.paceLimit).toBe(2);
    expect(close.acquire('a')).toBeNull();
  });
});

describe('FairShare pacing starts only for a flood', () => {
  it('waits for the machine to stay short for paceAfterMs, and never paces while this process is not busy', () => {
    const c = clock();
    let busy = true;
    const fs = new FairShare({
      capacity: 16,
      now: c.now,
      paceMs: 100,
      paceAfterMs: 300,
      machineShort: () => true,
      busy: () => busy,
    });
    for (let i = 0; i < 8; i++) expect(fs.acquire('a')).toBeNull();
    expect(fs.acquire('b')).toBeNull();
    for (const expected of [16, 16, 16, 8]) {
      c.advance(100);
      fs.acquire('b');
      expect(fs.paceLimit).toBe(expected);
    }
    // The process is not the one spending the CPU (another program's load): no pacing, and the
    // limit grows back.
    busy = false;
    c.advance(100);
    fs.acquire('b');
    expect(fs.paceLimit).toBe(9);
  });
});

describe('MachineIdle', () => {
  it('is short after a window with under the floor of idle CPU on all cores, and not after one above it', () => {
    let idle = 0;
    let total = 0;
    let nowMs = 0;
    const m = new MachineIdle(
      0.2,
      100,
      () => ({ idle, total }),
      () => nowMs,
    );
    expect(m.short()).toBe(false);
    nowMs += 100;
    idle += 10;
    total += 200; // 5% idle
    expect(m.short()).toBe(true);
    nowMs += 100;
    idle += 100;
    total += 200; // 50% idle
    expect(m.short()).toBe(false);
  });

  it('reads this machine', async () => {
    const m = new MachineIdle(1.01, 0);
    await new Promise((r) => setTimeout(r, 50));
    // Idle can never be above 101% of the time: short once any time has passed.
    expect(m.short()).toBe(true);
  });
});

describe('CpuLoad', () => {
  it('is busy after a window in which the process spent its share of CPU, and not after it idled', () => {
    let cpuMicros = 0;
    let nowMs = 0;
    const load = new CpuLoad(
      0.5,
      50,
      () => cpuMicros,
      () => nowMs,
    );
    expect(load.busy()).toBe(false);
    nowMs += 100;
    cpuMicros += 60_000; // 60 ms of CPU in 100 ms: 0.6 cores
    expect(load.busy()).toBe(true);
    nowMs += 20;
    expect(load.busy()).toBe(true); // read at most once a window
    nowMs += 130;
    cpuMicros += 40_000; // 40 ms in 150 ms: 0.27 cores
    expect(load.busy()).toBe(false);
  });

  it('reads the CPU time of this process', async () => {
    const load = new CpuLoad(0.000_001, 20);
    const start = process.cpuUsage();
    // Spin until the process has spent 30 ms of CPU, however long the machine makes that take.
    while (process.cpuUsage(start).user < 30_000) {
      // hold the thread
    }
    await new Promise((r) => setTimeout(r, 25));
    expect(load.busy()).toBe(true);
  });
});

describe('TenantShares', () => {
  it('holds a slot of the Client and of the Principal, and gives the Client slot back on a Principal refusal', async () => {
    const shares = new TenantShares({ capacity: 1, minShare: 1, queueLimit: 0 });
    expect(shares.take('cli_a', 'prn_a')).toBeNull();
    expect(shares.inFlight).toBe(1);
    // Another Principal of the same Client: the Client holds its whole share and its queue is 0.
    await expect(shares.take('cli_a', 'prn_b')).resolves.toBe('client');
    expect(shares.inFlight).toBe(1);
    shares.release('cli_a', 'prn_a');
    expect(shares.inFlight).toBe(0);
  });

  it('refuses a Principal over its share even when its Client has room, and gives the Client slot back', async () => {
    const shares = new TenantShares({ capacity: 4, minShare: 1, queueLimit: 0 });
    // Busy: 4 in flight. Clients a and b (a share of 2 each; a holds 1); Principals 1-4 (a share of 1 each).
    expect(shares.take('cli_a', 'prn_1')).toBeNull();
    for (const p of ['prn_2', 'prn_3', 'prn_4']) expect(shares.take('cli_b', p)).toBeNull();
    // Principal 1 again: its Client is below its share, the Principal is not.
    await expect(shares.take('cli_a', 'prn_1')).resolves.toBe('principal');
    expect(shares.inFlight).toBe(4);
    // The Client slot taken on the way was given back: Client a still has room for another Principal.
    shares.release('cli_b', 'prn_4');
    expect(shares.take('cli_a', 'prn_5')).toBeNull();
  });
});
