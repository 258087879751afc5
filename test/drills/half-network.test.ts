// Half a network (docs/scale-out.md): three service processes on one PostgreSQL database and
// one NATS server, where instance C reaches both through TCP proxies of its own, so one
// instance can be cut off while A and B keep both (the shared servers are never touched).
// First C loses PostgreSQL (a blackhole: connections accepted, no byte through; then a refusal),
// then NATS, each under traffic sent to all three for agents with tight daily caps. Whatever is
// cut: no answer is a 5xx or later than the deadline allows, no agent is approved beyond its
// cap, the cut instance gives up its shards and the others take them and decide for them, and
// every event is on the stream exactly once once C is whole again.
import { performance } from 'node:perf_hooks';
import { connect } from '@nats-io/transport-node';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, until } from '../fixtures/drills/instances.js';
import { deleteStream, storedMessages } from '../fixtures/drills/nats-stream.js';
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
import { PG_BASE_URL, type TestServer } from '../fixtures/server.js';
import { type CutMode, TcpProxy } from '../fixtures/tcp-proxy.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { shardOf } = (await import(
  `${DIST}decision/model/shard-of.js`
)) as typeof import('../../src/decision/model/shard-of.js');

const DEADLINE_MS = 1000;
const LEASE_TTL_MS = 3000;
const ENV = fleetEnv('halfnet', DEADLINE_MS, LEASE_TTL_MS);
/** Daily cap per agent and the amount of every request: 12 approvals at most per agent per day. */
const CAP = 24;
const AMOUNT = 2;
const AGENTS = 18;
/**
 * How late an answer may come, measured by the client: the deadline plus room for a machine
 * shared with other work (the service answers by the deadline; the client's own event loop,
 * the kernel and the other processes add to what the client sees).
 */
const ANSWER_BOUND_MS = DEADLINE_MS + 2000;

interface Answer extends TimedAnswer {
  readonly via: 'A' | 'B' | 'C';
  readonly agentId: string;
}

const pgProxy = new TcpProxy(hostPort(PG_BASE_URL, 5432));
const natsProxy = new TcpProxy(hostPort(ENV.NATS_URL, 4222));
let a: ServiceProcess;
let b: ServiceProcess;
let c: ServiceProcess;
let cId: string;
let apiKey: string;
const allAgents: string[] = [];
const answers: Answer[] = [];
const failures: string[] = [];

function hostPort(url: string, port: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: u.port === '' ? port : Number(u.port) };
}

beforeAll(async () => {
  await pgProxy.listen();
  await natsProxy.listen();
  a = await startServiceProcess(ENV);
  reader = fleetReader(a.databaseUrl);
  const dbName = new URL(a.databaseUrl).pathname.slice(1);
  b = await startServiceProcess({ ...ENV, ...databasesOf(a) });
  const viaProxy = new URL(a.databaseUrl);
  viaProxy.host = `127.0.0.1:${pgProxy.port}`;
  c = await startServiceProcess({
    ...ENV,
    DATABASE_URL: viaProxy.toString(),
    SANDBOX_DATABASE_URL: `${viaProxy.toString()}_sandbox`,
    NATS_URL: `nats://127.0.0.1:${natsProxy.port}`,
  });
  expect(dbName).not.toBe('');
  await until(async () => (await owners()).size === 3, 20_000);
  cId = instanceIdOf(c);
  expect((await owners()).has(cId)).toBe(true);
  const f = await setup(a);
  apiKey = f.apiKey;
  await relaxRateGates(a, apiKey);
}, 180_000);

/**
 * Fresh agents with the tight cap for one phase (so each phase pushes against its caps), a
 * third of them at least on the shards C holds now: the ones a cut of C moves.
 */
async function phaseAgents(label: string): Promise<string[]> {
  const cShards = new Set((await owners()).get(cId));
  const list: string[] = [];
  let onC = 0;
  for (let i = 0; list.length < AGENTS || onC < AGENTS / 3; i++) {
    const agentId = await addAgentWithMandate(a as unknown as TestServer, apiKey, `${label} ${i}`, {
      perTransaction: '20.00',
      daily: `${CAP}.00`,
    });
    const mine = cShards.has(shardOf(agentId, 1024));
    if (list.length >= AGENTS && !mine) continue;
    list.push(agentId);
    if (mine) onC++;
  }
  allAgents.push(...list);
  return list;
}

afterAll(async () => {
  await pgProxy.restore().catch(() => {});
  await natsProxy.restore().catch(() => {});
  await reader?.end();
  for (const p of [c, b]) await p?.cleanup();
  await a?.cleanup();
  await pgProxy.close();
  await natsProxy.close();
  await deleteStream(ENV.NATS_STREAM);
});

/** The test's own reads of the shared database. */
let reader: FleetReader;
const db = <T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> => reader.db(fn);
const owners = () => reader.leaseOwners();

async function ask(via: 'A' | 'B' | 'C', agentId: string): Promise<void> {
  const p = via === 'A' ? a : via === 'B' ? b : c;
  try {
    const body = authorizeBody(agentId, { amount: `${AMOUNT}.00`, merchant_name: 'Half Network Store' });
    answers.push({ via, agentId, ...(await timedAuthorize(p.url, apiKey, body)) });
  } catch (err) {
    failures.push(`${via}: ${(err as Error).message}`);
  }
}

/** Requests for every agent, round robin over A, B and C, `lanes` at a time, until stopped. */
function load(agents: readonly string[], lanes: number): { stop(): Promise<void> } {
  let stopped = false;
  let n = 0;
  const lane = async () => {
    while (!stopped) {
      const i = n++;
      await ask((['A', 'B', 'C'] as const)[i % 3] as 'A' | 'B' | 'C', agents[i % agents.length] as string);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const running = Promise.all(Array.from({ length: lanes }, lane));
  return {
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** Database time (the leases' clock). */
async function dbNow(): Promise<Date> {
  const [r] = await db((sql) => sql<{ now: Date }[]>`select now()`);
  return r?.now as Date;
}

function summary(list: readonly Answer[]): Record<string, unknown> {
  const ms = list.map((x) => x.ms).sort((x, y) => x - y);
  const count = (pred: (x: Answer) => boolean) => list.filter(pred).length;
  return {
    answered: list.length,
    approved: count((x) => x.decision === 'APPROVE'),
    safe_declines: count((x) => x.reasons.includes('system_unavailable')),
    safe_declines_via_c: count((x) => x.via === 'C' && x.reasons.includes('system_unavailable')),
    p50_ms: Math.round(ms[Math.floor(ms.length * 0.5)] ?? 0),
    p99_ms: Math.round(ms[Math.floor(ms.length * 0.99)] ?? 0),
    max_ms: Math.round(ms[ms.length - 1] ?? 0),
  };
}

/**
 * Cuts C off PostgreSQL with `mode` under load, until its shards are A's and B's and decided
 * there, then heals the cut. Returns the measured figures.
 */
async function cutPostgres(mode: CutMode): Promise<Record<string, unknown>> {
  const before = await owners();
  const cShards = before.get(cId) ?? [];
  expect(cShards.length).toBeGreaterThan(0);
  const agents = await phaseAgents(`pg ${mode}`);
  const onC = agents.filter((id) => cShards.includes(shardOf(id, 1024)));
  expect(onC.length).toBeGreaterThan(0);
  const from = answers.length;
  const stream = load(agents, 6);
  await sleep(1_000);
  await pgProxy.cut(mode);
  const cutAt = performance.now();
  // C's leases run out in the database and A and B claim every one of its shards.
  let takeoverMs = 0;
  await until(
    async () => {
      const now = await owners();
      const taken = cShards.every((s) => {
        const owner = [...now].find(([, shards]) => shards.includes(s))?.[0];
        return owner !== undefined && owner !== cId;
      });
      if (taken) takeoverMs = performance.now() - cutAt;
      return taken;
    },
    4 * LEASE_TTL_MS + 5_000,
  );
  const takenAt = await dbNow();
  const takenAtMs = Date.now();
  // Decisions for C's former shards, made (and committed) by A and B while C is still cut.
  const onCSet = new Set(onC);
  // C, cut off PostgreSQL, still answers its own clients for those agents: it forwards to the
  // instance that took the shard over, once it has heard who that is (over NATS; on CI's loaded
  // machine that took more than 4 s once, so it is given up to 12 s).
  const forwarded = () =>
    answers
      .slice(from)
      .filter(
        (x) =>
          x.at > takenAtMs + 500 && x.via === 'C' && onCSet.has(x.agentId) && !x.reasons.includes('system_unavailable'),
      );
  await sleep(4_000);
  for (const end = Date.now() + 8_000; forwarded().length === 0 && Date.now() < end; ) await sleep(250);
  const viaCForward = forwarded();
  const afterTakeover = answers.slice(from).filter((x) => x.at > takenAtMs + 500);
  const [made] = await db(
    (sql) => sql<{ n: number }[]>`
      select count(*)::int as n from authorizations
      where agent_id in ${sql(onC)} and recorded_at > ${takenAt}`,
  );
  const stillC = (await owners()).get(cId) ?? [];
  await pgProxy.restore();
  const healedAt = performance.now();
  // C comes back: it beats again and takes its share back.
  await until(async () => ((await owners()).get(cId)?.length ?? 0) > 0, 20_000);
  const rejoinMs = performance.now() - healedAt;
  await sleep(1_500);
  await stream.stop();
  const during = answers.slice(from);
  expect(stillC, 'C holds no lease while cut off PostgreSQL').toEqual([]);
  expect(made?.n ?? 0, "decisions recorded for C's former shards by A and B").toBeGreaterThan(0);
  expect(takeoverMs).toBeLessThan(4 * LEASE_TTL_MS);
  expect(c.stdout()).toContain('shard lease beat failed');
  expect(viaCForward.length, "C forwards its former shards' requests to their new owners").toBeGreaterThan(0);
  return {
    mode,
    c_shards: cShards.length,
    takeover_ms: Math.round(takeoverMs),
    decisions_for_c_shards_by_a_b: made?.n ?? 0,
    rejoin_ms: Math.round(rejoinMs),
    ...summary(during),
    after_takeover_via_a_b: summary(afterTakeover.filter((x) => x.via !== 'C')),
    after_takeover_via_c: summary(afterTakeover.filter((x) => x.via === 'C')),
    after_takeover_via_c_for_c_shards_decided: viaCForward.length,
  };
}

const figures: Record<string, unknown>[] = [];

describe('half a network: three instances, C cut off one dependency', () => {
  it('C cut off PostgreSQL (blackhole): C gives up its shards, A and B take them and decide for them', async () => {
    figures.push(await cutPostgres('blackhole'));
  }, 120_000);

  it('C cut off PostgreSQL (refused connections): the same', async () => {
    await until(async () => (await owners()).size === 3, 20_000);
    figures.push(await cutPostgres('refuse'));
  }, 120_000);

  it('C cut off NATS: C hands its shards to A and B, decisions go on, events wait in the outbox', async () => {
    await until(async () => (await owners()).size === 3, 20_000);
    const cShards = (await owners()).get(cId) ?? [];
    const agents = await phaseAgents('nats');
    const onC = new Set(agents.filter((id) => cShards.includes(shardOf(id, 1024))));
    const from = answers.length;
    const stream = load(agents, 6);
    await sleep(1_000);
    await natsProxy.cut('blackhole');
    const cutAt = performance.now();
    // C still reaches PostgreSQL and could renew its leases, but nobody can forward to it: it
    // hands its shards over and A and B take them.
    let takeoverMs = 0;
    await until(
      async () => {
        const now = await owners();
        const taken =
          (now.get(cId)?.length ?? 0) === 0 && cShards.every((s) => [...now.values()].some((l) => l.includes(s)));
        if (taken) takeoverMs = performance.now() - cutAt;
        return taken;
      },
      4 * LEASE_TTL_MS + 10_000,
    );
    const takenAt = Date.now();
    const takenAtDb = await dbNow();
    await sleep(4_000);
    const [made] = await db(
      (sql) => sql<{ n: number }[]>`
        select count(*)::int as n from authorizations
        where agent_id in ${sql([...onC])} and recorded_at > ${takenAtDb}`,
    );
    const stillC = (await owners()).get(cId) ?? [];
    const afterTakeover = answers.slice(from).filter((x) => x.at > takenAt + 500);
    const forCViaAB = afterTakeover.filter((x) => x.via !== 'C' && onC.has(x.agentId));
    await natsProxy.restore();
    const healedAt = performance.now();
    await until(async () => ((await owners()).get(cId)?.length ?? 0) > 0, 20_000);
    const rejoinMs = performance.now() - healedAt;
    await sleep(1_500);
    await stream.stop();
    figures.push({
      mode: 'nats blackhole',
      c_shards: cShards.length,
      takeover_ms: Math.round(takeoverMs),
      decisions_for_c_shards_by_a_b: made?.n ?? 0,
      rejoin_ms: Math.round(rejoinMs),
      ...summary(answers.slice(from)),
      after_takeover_via_a_b: summary(afterTakeover.filter((x) => x.via !== 'C')),
      after_takeover_via_c: summary(afterTakeover.filter((x) => x.via === 'C')),
    });
    expect(stillC, 'C holds no lease while cut off NATS').toEqual([]);
    expect(made?.n ?? 0, "decisions recorded for C's former shards by A and B").toBeGreaterThan(0);
    // A and B decide C's former agents themselves: no forward to an instance they cannot reach.
    const decided = forCViaAB.filter((x) => !x.reasons.includes('system_unavailable'));
    expect(decided.length).toBeGreaterThan(0);
    expect(decided.length).toBeGreaterThan(forCViaAB.length / 2);
    expect(c.stdout()).toContain('cluster transport disconnected from NATS');
  }, 120_000);

  it('never answered a 5xx or late, kept every agent within its cap, lost and doubled no event', async () => {
    console.log(JSON.stringify({ half_network: figures }));
    expect(failures).toEqual([]);
    expect(answers.length).toBeGreaterThan(300);
    const bad = answers.filter((x) => x.status !== 200);
    expect(bad.slice(0, 5)).toEqual([]);
    const late = answers.filter((x) => x.ms > ANSWER_BOUND_MS);
    expect(late.slice(0, 5)).toEqual([]);
    const over = await db(
      (sql) => sql<{ agent_id: string; spent: string }[]>`
        select agent_id, sum(amount)::text as spent from authorizations
        where decision = 'APPROVE' and agent_id in ${sql(allAgents)}
        group by agent_id having sum(amount) > ${CAP}`,
    );
    expect(over).toEqual([]);
    // The caps were reached: the drill pushed the agents against their limits.
    const [atCap] = await db(
      (sql) => sql<{ n: number }[]>`
        select count(*)::int as n from (select agent_id from authorizations
          where decision = 'APPROVE' and agent_id in ${sql(allAgents)}
          group by agent_id having sum(amount) = ${CAP}) t`,
    );
    expect(atCap?.n ?? 0).toBeGreaterThan(0);

    // Every event recorded is on the stream exactly once, C's included.
    await until(
      async () =>
        (
          await db(
            (sql) => sql<{ n: number }[]>`select count(*)::int as n from outbox_batches where published_at is null`,
          )
        )[0]?.n === 0,
      30_000,
    );
    const events = await db((sql) => sql<{ event_id: string }[]>`select event_id from outbox_events`);
    const nc = await connect({ servers: ENV.NATS_URL });
    const counts = new Map<string, number>();
    try {
      for (const m of await storedMessages(nc, ENV.NATS_STREAM)) {
        const id = m.header.get('Nats-Msg-Id');
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
    } finally {
      await nc.close();
    }
    expect(events.length).toBeGreaterThan(100);
    expect(events.filter((e) => counts.get(e.event_id) !== 1).slice(0, 5)).toEqual([]);
    expect(counts.size).toBe(events.length);
  }, 120_000);
});
