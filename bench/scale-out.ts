// `npm run bench -- scale-out [--duration <s>] [--connections <n>] [--agents <n>]`: what a
// second instance on the same PostgreSQL and NATS costs and gives (docs/scale-out.md).
//   1. one instance, saturated with `connections` keep-alive connections;
//   2. a second instance joins the same database; once the shards are shared, both are
//      saturated at once with half of the connections each (a load balancer's even split,
//      so about half of the requests reach an instance that does not own the agent and are
//      forwarded to the owner over NATS);
//   3. the hop: one request at a time to the owner of an agent, and to the other instance,
//      whose extra latency is the cost of one forward.
// Prints a table and writes JSON under bench/results/.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { shardOf } from '../src/decision/model/shard-of.js';
import { buildRequest } from './load/connection.js';
import { type LatencySummary, type LoadResult, newHistogram, runLoad, summarise } from './load/run-load.js';
import {
  type ApiTarget,
  createAgentWithMandate,
  mapLimit,
  onboardPrincipal,
  provisionClient,
  putThresholds,
} from './provision.js';
import { commit, machine, table, writeResult } from './report/results.js';
import { type Started, startService } from './servers/processes.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'scale-out'),
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    agents: { type: 'string', default: '400' },
    'hop-requests': { type: 'string', default: '2000' },
    out: { type: 'string', default: 'bench/results' },
  },
  strict: false,
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const AGENTS = Number(values.agents);
const HOPS = Number(values['hop-requests']);
const PG = process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/postgres';
const NATS = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const say = (s: string) => process.stderr.write(`${s}\n`);

function body(agentId: string, i: number): string {
  return JSON.stringify({
    agent_id: agentId,
    amount: `${1 + (i % 40)}.00`,
    currency: 'USD',
    merchant_name: 'Corner Grocery',
    merchant_id: 'mer_corner_grocery',
    mcc: '5411',
    country: 'US',
    intent_context: { intent_type: 'purchase', task_reference: 'weekly-groceries', confidence: 0.9 },
  });
}

function generator(target: Started, key: string, agents: readonly string[]) {
  const host = new URL(target.url).host;
  const pool = agents.map((a, i) => ({
    kind: 'authorize',
    bytes: buildRequest('POST', host, '/api/v1/authorize', { 'x-api-key': key }, body(a, i)),
  }));
  let n = 0;
  return () => pool[n++ % pool.length] as (typeof pool)[number];
}

function saturate(target: Started, key: string, agents: readonly string[], connections: number): Promise<LoadResult> {
  const u = new URL(target.url);
  return runLoad({
    host: u.hostname,
    port: Number(u.port),
    mode: 'saturation',
    rate: 0,
    connections,
    pipelining: 1,
    durationSeconds: DURATION,
    warmupSeconds: 2,
    next: generator(target, key, agents),
    keepBodies: false,
  });
}

/** Latency of one request at a time to `target` for `agents`, in milliseconds. */
async function sequential(target: Started, key: string, agents: readonly string[], n: number): Promise<LatencySummary> {
  const h = newHistogram();
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(`${target.url}/api/v1/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: body(agents[i % agents.length] as string, i),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`authorize answered ${res.status}`);
    h.recordValue(Math.round((performance.now() - started) * 1000));
  }
  return summarise(h);
}

async function ownersOf(databaseUrl: string): Promise<Map<number, string>> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ shard: number; owner: string }[]>`
      select shard, owner from shard_leases where owner is not null and expires_at > now()`;
    return new Map(rows.map((r) => [r.shard, r.owner]));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const secretsKey = randomBytes(32).toString('base64');
say('starting instance A (PostgreSQL + NATS)');
const a = await startService({ databaseUrl: PG, natsUrl: NATS, workers: null, extraEnv: { SECRETS_KEY: secretsKey } });
let b: Started | null = null;
try {
  const t: ApiTarget = { url: a.url, adminKey: a.adminKey };
  const client = await provisionClient(t, `scale-out ${new Date().toISOString()}`);
  const p = await onboardPrincipal(t, client, 'scale');
  await putThresholds(t, p, { rapid_fire_max_count: 65_535, risk_velocity_max_count: 65_535 });
  say(`provisioning ${AGENTS} agents`);
  const agents = await mapLimit(
    Array.from({ length: AGENTS }, (_, i) => i),
    8,
    (i) => createAgentWithMandate(t, p, `scale ${i}`, { maxPerTransaction: '100.00', maxDaily: '100000000.00' }),
  );
  say(`1/3 one instance, ${CONNECTIONS} connections, ${DURATION} s`);
  const one = await saturate(a, p.principalKey, agents, CONNECTIONS);
  say(`    ${Math.round(one.throughputPerSecond)} decisions/s, p99 ${one.latencyMs.p99} ms`);

  say('starting instance B on the same database');
  b = await startService({
    databaseUrl: null,
    natsUrl: NATS,
    workers: null,
    extraEnv: { SECRETS_KEY: secretsKey, DATABASE_URL: a.databaseUrl as string },
  });
  const liveUrl = a.databaseUrl as string;
  // Until the shards are shared out (a joining instance takes them over a few beats).
  for (let i = 0; i < 150; i++) {
    const held = new Map<string, number>();
    for (const owner of (await ownersOf(liveUrl)).values()) held.set(owner, (held.get(owner) ?? 0) + 1);
    if (held.size === 2 && Math.min(...held.values()) > 400) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  say(`2/3 two instances, ${CONNECTIONS / 2} connections each, ${DURATION} s`);
  const [twoA, twoB] = await Promise.all([
    saturate(a, p.principalKey, agents, CONNECTIONS / 2),
    saturate(b, p.principalKey, agents, CONNECTIONS / 2),
  ]);
  const twoThroughput = twoA.throughputPerSecond + twoB.throughputPerSecond;
  say(`    ${Math.round(twoThroughput)} decisions/s`);

  // The same two instances, each sent only the agents whose shards it owns (what a balancer
  // that hashes the agent would do): no request is forwarded, so the difference from the run
  // above is the cost of forwarding, and from one instance the cost of a second process.
  say(`2b  two instances, each asked only for its own agents, ${CONNECTIONS / 2} connections each, ${DURATION} s`);
  const shardOwners = await ownersOf(liveUrl);
  const registry = postgres(liveUrl, { max: 1, onnotice: () => {} });
  const [oldest] = await registry<{ id: string }[]>`select id from instances order by started_at limit 1`;
  await registry.end({ timeout: 5 });
  const ofA = agents.filter((x) => shardOwners.get(shardOf(x, 1024)) === oldest?.id);
  const ofB = agents.filter((x) => shardOwners.get(shardOf(x, 1024)) !== oldest?.id);
  const [ownA, ownB] = await Promise.all([
    saturate(a, p.principalKey, ofA, CONNECTIONS / 2),
    saturate(b, p.principalKey, ofB, CONNECTIONS / 2),
  ]);
  const ownThroughput = ownA.throughputPerSecond + ownB.throughputPerSecond;
  say(`    ${Math.round(ownThroughput)} decisions/s`);

  say(`3/3 the hop: ${HOPS} requests one at a time, to the owner and to the other instance`);
  const owners = await ownersOf(liveUrl);
  // Instance A started first: the older row of the instance registry.
  const sql = postgres(liveUrl, { max: 1, onnotice: () => {} });
  const [first] = await sql<{ id: string }[]>`select id from instances order by started_at limit 1`;
  await sql.end({ timeout: 5 });
  const ownedByA = agents.filter((x) => owners.get(shardOf(x, 1024)) === first?.id);
  const local = await sequential(a, p.principalKey, ownedByA, HOPS);
  const forwarded = await sequential(b, p.principalKey, ownedByA, HOPS);
  const result = {
    scenario: 'scale-out',
    machine: machine(),
    commit: commit(process.cwd()),
    at: new Date().toISOString(),
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    agents: AGENTS,
    oneInstance: { throughputPerSecond: one.throughputPerSecond, latencyMs: one.latencyMs, byStatus: one.byStatus },
    twoInstances: {
      throughputPerSecond: twoThroughput,
      a: { throughputPerSecond: twoA.throughputPerSecond, latencyMs: twoA.latencyMs, byStatus: twoA.byStatus },
      b: { throughputPerSecond: twoB.throughputPerSecond, latencyMs: twoB.latencyMs, byStatus: twoB.byStatus },
    },
    twoInstancesOwnAgents: { throughputPerSecond: ownThroughput, a: ownA.latencyMs, b: ownB.latencyMs },
    hop: {
      local,
      forwarded,
      addedP50Ms: forwarded.p50 - local.p50,
      addedP99Ms: forwarded.p99 - local.p99,
    },
  };
  process.stdout.write(
    `${table(
      ['run', 'decisions/s', 'p50 ms', 'p99 ms', 'p99.9 ms'],
      [
        ['one instance', Math.round(one.throughputPerSecond), one.latencyMs.p50, one.latencyMs.p99, one.latencyMs.p999],
        [
          'two instances: A',
          Math.round(twoA.throughputPerSecond),
          twoA.latencyMs.p50,
          twoA.latencyMs.p99,
          twoA.latencyMs.p999,
        ],
        [
          'two instances: B',
          Math.round(twoB.throughputPerSecond),
          twoB.latencyMs.p50,
          twoB.latencyMs.p99,
          twoB.latencyMs.p999,
        ],
        ['two instances: total', Math.round(twoThroughput), '', '', ''],
        ['two, each its own agents: total', Math.round(ownThroughput), '', '', ''],
        ['one at a time, owner', '', local.p50, local.p99, local.p999],
        ['one at a time, forwarded', '', forwarded.p50, forwarded.p99, forwarded.p999],
      ],
    )}\n` +
      `two instances / one: ${(twoThroughput / one.throughputPerSecond).toFixed(2)}x ` +
      `(${(ownThroughput / one.throughputPerSecond).toFixed(2)}x when each is asked only for its own agents); ` +
      `one hop adds ${(forwarded.p50 - local.p50).toFixed(3)} ms at p50, ${(forwarded.p99 - local.p99).toFixed(3)} ms at p99\n`,
  );
  const written = writeResult(values.out as string, 'scale-out', result, null);
  say(`written ${written.json}`);
} finally {
  if (b !== null) await b.stop();
  await a.stop();
}
