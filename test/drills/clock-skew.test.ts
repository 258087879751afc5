// Clock skew (docs/scale-out.md): three service processes on one PostgreSQL database and one
// NATS server, A on the real clock, B's wall clock 2 s ahead and C's 2 s behind (a test double of
// Date.now() and `new Date()` for the whole process, its shard workers included:
// test/fixtures/clock-offset.mjs). Shard leases are judged by PostgreSQL's now() in the database
// and by the monotonic clock (performance.now()) in each process, never by the wall clock, so the
// skew must change nothing: under concurrent traffic for shared agents with tight caps, through
// clean stops (hand-over) and kills (takeover after the lease) of the skewed instances, every
// shard has one owner per epoch and epochs only grow, no instance ever tries to commit for a
// shard it lost (the fence's refusal, P0F01), no agent is approved beyond its cap, no answer is
// a 5xx or later than the deadline allows.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, until } from '../fixtures/drills/instances.js';
import { deleteStream } from '../fixtures/drills/nats-stream.js';
import {
  databasesOf,
  type FleetReader,
  fleetEnv,
  fleetReader,
  instanceIdOf,
  type TimedAnswer,
  timedAuthorize,
} from '../fixtures/drills/process-fleet.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';
import { addAgentWithMandate, authorizeBody, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import type { TestServer } from '../fixtures/server.js';

const CLOCK_FIXTURE = pathToFileURL(new URL('../fixtures/clock-offset.mjs', import.meta.url).pathname).href;
const DEADLINE_MS = 1000;
const LEASE_TTL_MS = 3000;
const ENV = fleetEnv('skew', DEADLINE_MS, LEASE_TTL_MS);
/** Daily cap per agent and the amount of every request: 20 approvals at most per agent per day. */
const CAP = 40;
const AMOUNT = 2;
const AGENTS = 16;
/** The deadline plus room for a machine shared with other work (the client's view of the answer). */
const ANSWER_BOUND_MS = DEADLINE_MS + 2000;

type Name = 'A' | 'B' | 'C';
/** Wall-clock offset of each instance, in milliseconds. */
const OFFSET: Record<Name, number> = { A: 0, B: 2000, C: -2000 };

interface Answer extends TimedAnswer {
  readonly via: Name;
  readonly agentId: string;
}

let a: ServiceProcess;
const running: Partial<Record<Name, ServiceProcess>> = {};
const every: ServiceProcess[] = [];
let apiKey: string;
let agents: string[];
const answers: Answer[] = [];
const failures: string[] = [];
/** Every (shard, epoch) seen in the leases table, with its owner. */
const owners = new Map<string, string>();
/** The highest epoch seen per shard, and how often one went down. */
const maxEpoch = new Map<number, number>();
let epochWentDown = 0;
let ownerConflicts = 0;
let samples = 0;

/** Instances signalled to stop (no new request is sent to them) and those killed with SIGKILL. */
const stopping = new Set<ServiceProcess>();
const killed = new Set<ServiceProcess>();

async function startInstance(name: Name): Promise<ServiceProcess> {
  const shared: Record<string, string> = a === undefined ? {} : databasesOf(a);
  const env: Record<string, string> =
    OFFSET[name] === 0 ? {} : { TEST_CLOCK_OFFSET_MS: String(OFFSET[name]), TEST_CLOCK_LOG: '1' };
  const p = await startServiceProcess(
    { ...ENV, ...shared, ...env },
    OFFSET[name] === 0 ? {} : { execArgv: ['--import', CLOCK_FIXTURE] },
  );
  if (OFFSET[name] !== 0) {
    // The double reached the main thread and the shard worker, with the same offset.
    const lines = p
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"msg":"test clock"'))
      .map((l) => JSON.parse(l) as { offset_ms: number });
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(l.offset_ms).toBe(OFFSET[name]);
  }
  running[name] = p;
  every.push(p);
  return p;
}

beforeAll(async () => {
  a = await startInstance('A');
  reader = fleetReader(a.databaseUrl);
  await startInstance('B');
  await startInstance('C');
  const f = await setup(a);
  apiKey = f.apiKey;
  await relaxRateGates(a, apiKey);
  agents = [];
  for (let i = 0; i < AGENTS; i++) {
    agents.push(
      await addAgentWithMandate(a as unknown as TestServer, apiKey, `skew ${i}`, {
        perTransaction: '20.00',
        daily: `${CAP}.00`,
      }),
    );
  }
}, 180_000);

afterAll(async () => {
  await reader?.end();
  for (const p of every) if (p !== a) await p.cleanup();
  await a?.cleanup();
  await deleteStream(ENV.NATS_STREAM);
});

/** The test's own reads of the shared database. */
let reader: FleetReader;
const db = <T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> => reader.db(fn);
const leaseOwners = () => reader.leaseOwners();

/** Reads the leases table every 100 ms until stopped: one owner per (shard, epoch), epochs only up. */
function watchLeases(): { stop(): Promise<void> } {
  let stopped = false;
  const sql = postgres(a.databaseUrl, { max: 1, onnotice: () => {} });
  const loop = (async () => {
    while (!stopped) {
      const rows = await sql<{ shard: number; owner: string | null; epoch: string }[]>`
        select shard, owner, epoch from shard_leases where owner is not null`;
      samples++;
      for (const r of rows) {
        const epoch = Number(r.epoch);
        const key = `${r.shard}:${epoch}`;
        const seen = owners.get(key);
        if (seen !== undefined && seen !== r.owner) ownerConflicts++;
        owners.set(key, r.owner as string);
        if (epoch < (maxEpoch.get(r.shard) ?? 0)) epochWentDown++;
        maxEpoch.set(r.shard, Math.max(epoch, maxEpoch.get(r.shard) ?? 0));
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await sql.end({ timeout: 5 });
    },
  };
}

async function ask(via: Name, agentId: string): Promise<void> {
  const p = running[via];
  if (p === undefined || stopping.has(p)) return;
  try {
    const body = authorizeBody(agentId, { amount: `${AMOUNT}.00`, merchant_name: 'Skewed Clock Store' });
    answers.push({ via, agentId, ...(await timedAuthorize(p.url, apiKey, body)) });
  } catch (err) {
    // Only a request cut by SIGKILL may go unanswered (a client would retry elsewhere); one in
    // flight when SIGTERM came is answered by the drain.
    if (!killed.has(p)) failures.push(`${via}: ${(err as Error).message}`);
  }
}

/** Each agent asked through all three instances at once, round after round, until stopped. */
function load(): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    for (let round = 0; !stopped; round++) {
      const batch = agents.slice((round * 4) % AGENTS, ((round * 4) % AGENTS) + 4);
      await Promise.all(batch.flatMap((agentId) => (['A', 'B', 'C'] as const).map((via) => ask(via, agentId))));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

const figures: Record<string, unknown> = {};

/** Instance id → its clock offset as it measured and recorded it (instances.clock_offset_ms). */
async function offsets(): Promise<Map<string, number | null>> {
  const rows = await db(
    (sql) => sql<{ id: string; clock_offset_ms: number | null }[]>`select id, clock_offset_ms from instances`,
  );
  return new Map(rows.map((r) => [r.id, r.clock_offset_ms]));
}

/** True once `id` holds every shard under a valid lease. */
async function holdsAll(id: string): Promise<boolean> {
  return ((await leaseOwners()).get(id)?.length ?? 0) === 1024;
}

describe('clock skew: B 2 s ahead, C 2 s behind, A on time', () => {
  it('measures the skew against the database and prefers the instance on time for every shard', async () => {
    const aId = instanceIdOf(a);
    await until(() => holdsAll(aId), 20_000);
    const bId = instanceIdOf(running.B as ServiceProcess);
    const cId = instanceIdOf(running.C as ServiceProcess);
    // Each instance records its offset at a lease beat once it has round trips to measure it by.
    await until(async () => {
      const m = await offsets();
      return typeof m.get(bId) === 'number' && typeof m.get(cId) === 'number' && typeof m.get(aId) === 'number';
    }, 10_000);
    const measured = await offsets();
    const b = measured.get(bId);
    const c = measured.get(cId);
    figures.measured_offset_ms = { A: measured.get(aId), B: b, C: c };
    // Measured to within the round trip (less its uncertainty): about +2 s and -2 s.
    expect(b).toBeGreaterThan(1_500);
    expect(b).toBeLessThanOrEqual(2_100);
    expect(c).toBeLessThan(-1_500);
    expect(c).toBeGreaterThanOrEqual(-2_100);
    expect(Math.abs(measured.get(aId) ?? 0)).toBeLessThan(500);
    expect((running.B as ServiceProcess).stdout()).toContain("this instance's clock is off the database's");
  }, 60_000);

  it('keeps one owner per shard through stops, kills and takeovers, the skewed instances deciding only when alone', async () => {
    const watch = watchLeases();
    const stream = load();
    await sleep(2_000);
    for (const name of ['B', 'C'] as const) {
      // A clean stop and a kill of a skewed instance: it held nothing, nothing moves.
      const old = running[name] as ServiceProcess;
      stopping.add(old);
      if (name === 'C') killed.add(old);
      old.child.kill(name === 'B' ? 'SIGTERM' : 'SIGKILL');
      const code = await old.exited;
      if (name === 'B') expect(code).toBe(0);
      await startInstance(name);
      await sleep(2_000);
      expect(await holdsAll(instanceIdOf(a)), 'A, on time, still holds every shard').toBe(true);
    }
    // The instance on time killed: only skewed ones are left, and they take its shards over
    // (decisions go on: a skewed clock is worse than none only at a calendar boundary).
    const victim = a;
    const victimId = instanceIdOf(victim);
    stopping.add(victim);
    killed.add(victim);
    victim.child.kill('SIGKILL');
    await victim.exited;
    const killedAt = performance.now();
    await until(async () => {
      const now = await leaseOwners();
      return !now.has(victimId) && [...now.values()].flat().length === 1024;
    }, 20_000);
    figures.takeover_by_skewed_after_kill_ms = Math.round(performance.now() - killedAt);
    const aloneFrom = Date.now();
    await sleep(2_000);
    const aloneUntil = Date.now();
    // An instance on time again: the skewed ones hand it every shard.
    const back = await startInstance('A');
    const startedAt = performance.now();
    await until(() => holdsAll(instanceIdOf(back)), 30_000);
    figures.handed_back_to_on_time_ms = Math.round(performance.now() - startedAt);
    await sleep(1_500);
    await stream.stop();
    await watch.stop();
    figures.lease_samples = samples;
    figures.epochs_seen = owners.size;
    expect(samples).toBeGreaterThan(20);
    expect(ownerConflicts, 'two owners under one epoch of a shard').toBe(0);
    expect(epochWentDown, 'an epoch that went down').toBe(0);
    // Ownership really moved twice: every shard's epoch was raised by the takeover and the return.
    expect(owners.size).toBeGreaterThanOrEqual(3 * 1024);
    // Decisions were made while only the skewed instances were left.
    const alone = answers.filter((x) => x.at >= aloneFrom && x.at <= aloneUntil);
    figures.decided_by_skewed_alone = alone.filter((x) => !x.reasons.includes('system_unavailable')).length;
    expect(figures.decided_by_skewed_alone).toBeGreaterThan(0);
  }, 240_000);

  it('never committed for a lost shard, answered no 5xx nor late, and kept every agent within its cap', async () => {
    const ms = answers.map((x) => x.ms).sort((x, y) => x - y);
    Object.assign(figures, {
      answered: answers.length,
      approved: answers.filter((x) => x.decision === 'APPROVE').length,
      safe_declines: answers.filter((x) => x.reasons.includes('system_unavailable')).length,
      p99_ms: Math.round(ms[Math.floor(ms.length * 0.99)] ?? 0),
      max_ms: Math.round(ms[ms.length - 1] ?? 0),
    });
    console.log(JSON.stringify({ clock_skew: figures }));
    expect(failures).toEqual([]);
    expect(answers.length).toBeGreaterThan(300);
    expect(answers.filter((x) => x.status !== 200).slice(0, 5)).toEqual([]);
    expect(answers.filter((x) => x.ms > ANSWER_BOUND_MS).slice(0, 5)).toEqual([]);
    // The fence never had to refuse a batch: no instance decided for a shard it no longer held.
    for (const p of every) expect(p.stdout()).not.toContain('a newer owner holds the shard');
    // Every approval answered is in the audit log, and no agent is over its cap on any day
    // (UTC: the agents' time zone), whoever decided and whatever its clock said.
    const approvals = answers.filter((x) => x.decision === 'APPROVE').map((x) => x.id as string);
    const [recorded] = await db(
      (sql) => sql<{ n: number }[]>`
        select count(*)::int as n from authorizations where decision = 'APPROVE' and id in ${sql(approvals)}`,
    );
    expect(recorded?.n).toBe(approvals.length);
    const over = await db(
      (sql) => sql<{ agent_id: string; spent: string }[]>`
        select agent_id, sum(amount)::text as spent from authorizations
        where decision = 'APPROVE' and agent_id in ${sql(agents)}
        group by agent_id, (created_at at time zone 'UTC')::date having sum(amount) > ${CAP}`,
    );
    expect(over).toEqual([]);
    const [atCap] = await db(
      (sql) => sql<{ n: number }[]>`
        select count(*)::int as n from (select agent_id from authorizations
          where decision = 'APPROVE' and agent_id in ${sql(agents)}
          group by agent_id having sum(amount) = ${CAP}) t`,
    );
    expect(atCap?.n ?? 0).toBeGreaterThan(AGENTS / 2);
  }, 60_000);
});
