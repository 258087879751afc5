// The one timer loop of the background jobs (src/storage/periodic-job.ts): rounds on the timer,
// joined or run once more when asked for during one, failures logged and retried, close waiting
// for the running round, and the per-database form running each open database on its own.
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/domain/environment.js';
import type { Databases, Sql } from '../../src/storage/db.js';
import { PeriodicJob } from '../../src/storage/periodic-job.js';

interface Warning {
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A logger that keeps its warnings. */
function recorder() {
  const warnings: Warning[] = [];
  const log = { warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }) };
  return { warnings, log: log as never };
}

/** A round that waits for `open()` before it ends, counting its starts. */
function gated() {
  let starts = 0;
  let release: () => void = () => {};
  return {
    get starts() {
      return starts;
    },
    round: () => {
      starts++;
      return new Promise<void>((r) => {
        release = r;
      });
    },
    open: () => release(),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('PeriodicJob', () => {
  it('joins a round asked for while one runs', async () => {
    const g = gated();
    const { log } = recorder();
    const job = new PeriodicJob({ intervalMs: 60_000, log, failed: 'x failed', round: g.round });
    const first = job.run();
    const second = job.run();
    expect(second).toBe(first);
    await tick();
    g.open();
    await second;
    expect(g.starts).toBe(1);
    await job.close();
  });

  it("with overlap 'again' runs one more round after the running one, however many asked", async () => {
    const g = gated();
    const { log } = recorder();
    const job = new PeriodicJob({ intervalMs: 60_000, log, failed: 'x failed', overlap: 'again', round: g.round });
    const first = job.run();
    void job.run();
    void job.run();
    await tick();
    g.open();
    await tick();
    expect(g.starts).toBe(2);
    g.open();
    await first;
    expect(g.starts).toBe(2);
    await job.close();
  });

  it('logs a failed round and runs the next one', async () => {
    const { warnings, log } = recorder();
    let calls = 0;
    const boom = new Error('boom');
    const job = new PeriodicJob({
      intervalMs: 60_000,
      log,
      failed: 'x failed; retried at the next interval',
      round: async () => {
        calls++;
        if (calls === 1) throw boom;
      },
    });
    await expect(job.run()).resolves.toBeUndefined();
    await job.run();
    expect(calls).toBe(2);
    expect(warnings).toEqual([{ fields: { err: boom }, message: 'x failed; retried at the next interval' }]);
    await job.close();
  });

  it('starts rounds on its timer, which does not hold the process open', async () => {
    const { log } = recorder();
    let calls = 0;
    const job = new PeriodicJob({
      intervalMs: 10,
      log,
      failed: 'x failed',
      round: async () => {
        calls++;
      },
    });
    const refTimers = () => process.getActiveResourcesInfo().filter((t) => t === 'Timeout').length;
    const before = refTimers();
    job.start();
    expect(refTimers()).toBe(before);
    await new Promise((r) => setTimeout(r, 100));
    expect(calls).toBeGreaterThanOrEqual(2);
    await job.close();
    const after = calls;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(after);
  });

  it('close waits for the running round, and no round starts after it', async () => {
    const g = gated();
    const { log } = recorder();
    const job = new PeriodicJob({ intervalMs: 60_000, log, failed: 'x failed', overlap: 'again', round: g.round });
    void job.run();
    void job.run(); // would run once more, but the job closes first
    await tick();
    let closed = false;
    const closing = job.close().then(() => {
      closed = true;
    });
    await tick();
    expect(closed).toBe(false);
    g.open();
    await closing;
    expect(closed).toBe(true);
    await job.run();
    expect(g.starts).toBe(1);
  });
});

describe('PeriodicJob.perDatabase', () => {
  const LIVE = { name: 'live' } as unknown as Sql;
  const SANDBOX = { name: 'sandbox' } as unknown as Sql;
  const dbs = (open: Environment[]): Pick<Databases, 'forEnv' | 'isOpen'> => ({
    forEnv: (env) => (env === 'live' ? LIVE : SANDBOX),
    isOpen: (env) => open.includes(env),
  });

  it('runs the round on each open database in turn, live first', async () => {
    const { log } = recorder();
    const seen: [Sql, Environment][] = [];
    const job = PeriodicJob.perDatabase({
      dbs: dbs(['live', 'sandbox']),
      intervalMs: 60_000,
      log,
      failed: 'x failed',
      round: async (sql, env) => {
        seen.push([sql, env]);
      },
    });
    await job.run();
    expect(seen).toEqual([
      [LIVE, 'live'],
      [SANDBOX, 'sandbox'],
    ]);
    await job.close();
  });

  it('leaves a database that is not open alone', async () => {
    const { log } = recorder();
    const seen: Environment[] = [];
    const job = PeriodicJob.perDatabase({
      dbs: dbs(['live']),
      intervalMs: 60_000,
      log,
      failed: 'x failed',
      round: async (_sql, env) => {
        seen.push(env);
      },
    });
    await job.run();
    expect(seen).toEqual(['live']);
    await job.close();
  });

  it('logs a failure with its environment and still runs the next database', async () => {
    const { warnings, log } = recorder();
    const seen: Environment[] = [];
    const boom = new Error('live down');
    const job = PeriodicJob.perDatabase({
      dbs: dbs(['live', 'sandbox']),
      intervalMs: 60_000,
      log,
      failed: 'x failed; retried at the next interval',
      round: async (_sql, env) => {
        if (env === 'live') throw boom;
        seen.push(env);
      },
    });
    await job.run();
    expect(seen).toEqual(['sandbox']);
    expect(warnings).toEqual([
      { fields: { err: boom, env: 'live' }, message: 'x failed; retried at the next interval' },
    ]);
    await job.close();
  });
});
