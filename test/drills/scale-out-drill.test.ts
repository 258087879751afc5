// Scale-out drill (docs/scale-out.md): three service processes on one PostgreSQL database and
// one NATS server, each agent's requests spread over all of them, one at a time and at once;
// then one owner is killed with SIGKILL in the middle of the stream, and then every instance is
// restarted in turn under load (a rolling deploy). Whatever happens: no 5xx, every answered
// approval is in the audit log, no agent is ever approved beyond its daily cap, every event is
// on the stream exactly once and reaches the webhook.
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../fixtures/drills/instances.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';
import { addAgentWithMandate, authorizeBody, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import type { TestServer } from '../fixtures/server.js';
import { request } from '../fixtures/server.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { shardOf } = (await import(
  `${DIST}decision/model/shard-of.js`
)) as typeof import('../../src/decision/model/shard-of.js');

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const tag = randomBytes(4).toString('hex');
const ENV = {
  NATS_URL,
  NATS_STREAM: `T_DRILL_${tag}`,
  NATS_SUBJECT_PREFIX: `d${tag}`,
  SECRETS_KEY: randomBytes(32).toString('base64'),
  // Three processes at once: one shard worker each keeps the connection count modest.
  WORKERS: '1',
  // A rolling restart waits for each stop: keep the keep-alive drain short.
  SHUTDOWN_TIMEOUT_MS: '3000',
  WEBHOOK_URL_POLICY: 'any',
};
const CAP = 60;
const AMOUNT = '5.00';
const AGENTS = 20;

interface Answer {
  agentId: string;
  status: number;
  decision: string | null;
  id: string | null;
  amount: number;
  at: number;
}

let first: ServiceProcess;
const instances: (ServiceProcess | null)[] = [null, null, null];
const retired: ServiceProcess[] = [];
let apiKey: string;
let agents: string[];
const answers: Answer[] = [];
let receiver: Receiver;
let killedAt = 0;
const transportErrors: number[] = [];

async function startInstance(): Promise<ServiceProcess> {
  return startServiceProcess({
    ...ENV,
    DATABASE_URL: first.databaseUrl,
    SANDBOX_DATABASE_URL: `${first.databaseUrl}_sandbox`,
  });
}

beforeAll(async () => {
  first = await startServiceProcess(ENV);
  instances[0] = first;
  instances[1] = await startInstance();
  instances[2] = await startInstance();
  const target = first as unknown as TestServer;
  const f = await setup(first);
  apiKey = f.apiKey;
  await relaxRateGates(first, apiKey);
  receiver = await startReceiver(() => 200);
  const hook = await request(first, 'POST', '/api/v1/webhooks', {
    apiKey,
    body: { url: `${receiver.url}/hook`, event_types: ['*'] },
  });
  expect(hook.status, hook.text).toBe(201);
  agents = [];
  for (let i = 0; i < AGENTS; i++) {
    agents.push(
      await addAgentWithMandate(target, apiKey, `drill ${i}`, { perTransaction: '20.00', daily: `${CAP}.00` }),
    );
  }
  await until(async () => (await owners()).size === 3, 15_000);
}, 120_000);

afterAll(async () => {
  for (const p of [...instances, ...retired]) if (p !== null && p !== first) await p.cleanup();
  await receiver?.close();
  await first?.cleanup();
  const nc = await connect({ servers: NATS_URL });
  await (await jetstreamManager(nc)).streams.delete(ENV.NATS_STREAM).catch(() => {});
  await nc.close();
});

async function db<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(first.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Instance id → shards it holds under a lease that has not expired. */
async function owners(): Promise<Map<string, number[]>> {
  const rows = await db(
    (sql) => sql<{ shard: number; owner: string }[]>`
      select shard, owner from shard_leases where owner is not null and expires_at > now()`,
  );
  const out = new Map<string, number[]>();
  for (const r of rows) out.set(r.owner, [...(out.get(r.owner) ?? []), r.shard]);
  return out;
}

async function ask(p: ServiceProcess, agentId: string): Promise<void> {
  try {
    const res = await fetch(`${p.url}/api/v1/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(authorizeBody(agentId, { amount: AMOUNT })),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    answers.push({
      agentId,
      status: res.status,
      decision: typeof body.decision === 'string' ? body.decision : null,
      id: typeof body.authorization_id === 'string' ? body.authorization_id : null,
      amount: Number(AMOUNT),
      at: Date.now(),
    });
  } catch {
    // The instance was killed or is restarting: a client would retry elsewhere.
    transportErrors.push(Date.now());
  }
}

function live(): ServiceProcess[] {
  return instances.filter((p): p is ServiceProcess => p !== null && p.child.exitCode === null);
}

/** Requests for every agent, over the live instances, until stopped. */
function load(perRound: number): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    let round = 0;
    while (!stopped) {
      const targets = live();
      if (targets.length === 0) break;
      await Promise.all(
        Array.from({ length: perRound }, (_, i) => {
          const agentId = agents[(round * perRound + i) % agents.length] as string;
          return ask(targets[(round + i) % targets.length] as ServiceProcess, agentId);
        }),
      );
      round++;
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

describe('three instances, one database, one NATS', () => {
  it('spreads each agent over all three, one request at a time', async () => {
    for (let i = 0; i < 3; i++) {
      for (const agentId of agents) await ask(instances[i] as ServiceProcess, agentId);
    }
    expect(answers.filter((a) => a.decision === 'APPROVE').length).toBeGreaterThan(AGENTS);
  });

  it('and three at once, one to each instance', async () => {
    await Promise.all(agents.map((agentId) => Promise.all(live().map((p) => ask(p, agentId)))));
  });

  it('survives SIGKILL of an owner mid-stream: its agents are decided again by the others', async () => {
    const victim = instances[1] as ServiceProcess;
    const held = await owners();
    const victimId = [...held.keys()].find((id) => victim.stdout().includes(id));
    expect(victimId, 'the victim logs its instance id').toBeDefined();
    const victimShards = new Set(held.get(victimId as string));
    const orphan = await addAgentWithMandate(first as unknown as TestServer, apiKey, 'orphan', {
      perTransaction: '20.00',
      daily: '100000.00',
    });
    // An agent whose shard the victim owns (one new agent per try until one lands there).
    let probe = orphan;
    for (let i = 0; !victimShards.has(shardOf(probe, 1024)) && i < 50; i++) {
      probe = await addAgentWithMandate(first as unknown as TestServer, apiKey, `orphan ${i}`, {
        perTransaction: '20.00',
        daily: '100000.00',
      });
    }
    expect(victimShards.has(shardOf(probe, 1024))).toBe(true);
    const stream = load(6);
    await new Promise((r) => setTimeout(r, 500));
    victim.child.kill('SIGKILL');
    killedAt = Date.now();
    await victim.exited;
    retired.push(victim);
    instances[1] = null;
    // The probe agent is approved again through a surviving instance once its lease is taken.
    let approvedAt = 0;
    while (approvedAt === 0 && Date.now() - killedAt < 15_000) {
      const res = await fetch(`${first.url}/api/v1/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify(authorizeBody(probe, { amount: '0.01' })),
      });
      expect(res.status).toBeLessThan(500);
      const body = (await res.json()) as { decision: string };
      if (body.decision === 'APPROVE') approvedAt = Date.now();
      else await new Promise((r) => setTimeout(r, 100));
    }
    await stream.stop();
    const takeoverMs = approvedAt - killedAt;
    console.log(JSON.stringify({ takeover_ms: takeoverMs }));
    expect(approvedAt, 'the orphaned agent is approved again').toBeGreaterThan(0);
    expect(takeoverMs).toBeLessThan(15_000);
  }, 60_000);

  it('fences an owner paused beyond its lease: after SIGCONT it commits nothing for the shards it lost', async () => {
    instances[1] = await startInstance();
    await until(async () => (await owners()).size === 3, 15_000);
    const paused = instances[2] as ServiceProcess;
    const stream = load(6);
    await new Promise((r) => setTimeout(r, 500));
    paused.child.kill('SIGSTOP');
    // Longer than the 3 s lease: the others claim its shards and raise their epochs.
    await new Promise((r) => setTimeout(r, 5_000));
    paused.child.kill('SIGCONT');
    await new Promise((r) => setTimeout(r, 2_000));
    await stream.stop();
    expect(paused.stdout()).toContain('shard leases lost to another instance');
    await until(async () => (await owners()).size === 3, 15_000);
  }, 60_000);

  it('keeps answering through a rolling restart of every instance', async () => {
    const startedAt = Date.now();
    const stream = load(6);
    for (let i = 0; i < 3; i++) {
      const old = instances[i] as ServiceProcess;
      old.child.kill('SIGTERM');
      expect(await old.exited).toBe(0);
      if (old !== first) retired.push(old);
      instances[i] = null;
      instances[i] = await startInstance();
      await new Promise((r) => setTimeout(r, 1_000));
    }
    await stream.stop();
    // No pause of the whole service: decisions were answered in every second of the deploy.
    const seconds = Math.floor((Date.now() - startedAt) / 1000);
    const silent: number[] = [];
    for (let s = 0; s < seconds; s++) {
      const from = startedAt + s * 1000;
      if (!answers.some((x) => x.status === 200 && x.at >= from && x.at < from + 1000)) silent.push(s);
    }
    expect(silent, 'seconds without an answered decision').toEqual([]);
  }, 180_000);

  it('never answered a 5xx, recorded every approval, and kept every agent within its cap', async () => {
    expect(answers.length).toBeGreaterThan(200);
    const fiveXX = answers.filter((a) => a.status >= 500);
    expect(fiveXX, JSON.stringify(fiveXX.slice(0, 3))).toEqual([]);
    const approvals = answers.filter((a) => a.decision === 'APPROVE');
    const recorded = await db(
      (sql) => sql<{ id: string; agent_id: string; amount: string }[]>`
        select id, agent_id, amount::text from authorizations where decision = 'APPROVE'`,
    );
    const ids = new Set(recorded.map((r) => r.id));
    expect(approvals.filter((a) => !ids.has(a.id as string))).toEqual([]);
    for (const agentId of agents) {
      const answered = approvals.filter((a) => a.agentId === agentId).reduce((n, a) => n + a.amount, 0);
      const inLog = recorded.filter((r) => r.agent_id === agentId).reduce((n, r) => n + Number(r.amount), 0);
      expect(answered, agentId).toBeLessThanOrEqual(CAP);
      expect(inLog, agentId).toBeLessThanOrEqual(CAP);
    }
    // The caps were reached: the drill really pushed every agent against its limit.
    const atCap = agents.filter(
      (agentId) => approvals.filter((a) => a.agentId === agentId).reduce((n, a) => n + a.amount, 0) === CAP,
    );
    expect(atCap.length).toBeGreaterThan(AGENTS / 2);
  });
});

describe('events of the drill', () => {
  it('put every event on the stream exactly once and delivered every webhook event', async () => {
    const events = await db(
      (sql) => sql<{ event_id: string; event_type: string }[]>`
      select event_id, event_type from outbox_events`,
    );
    // The survivors relay what the killed and paused instances left.
    await until(
      async () =>
        (
          await db(
            (sql) => sql<{ n: number }[]>`
          select count(*)::int as n from outbox_batches where published_at is null`,
          )
        )[0]?.n === 0,
      20_000,
    );
    const nc = await connect({ servers: NATS_URL });
    const counts = new Map<string, number>();
    try {
      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info(ENV.NATS_STREAM);
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const m = await jsm.streams.getMessage(ENV.NATS_STREAM, { seq });
        if (m === null) throw new Error(`no message at seq ${seq} of ${ENV.NATS_STREAM}`);
        const id = m.header.get('Nats-Msg-Id');
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
    } finally {
      await nc.close();
    }
    expect(events.length).toBeGreaterThan(100);
    expect(events.filter((e) => counts.get(e.event_id) !== 1)).toEqual([]);
    expect(counts.size).toBe(events.length);

    const forHooks = events.filter((e) => e.event_type !== 'authorization.decided').map((e) => e.event_id);
    const received = new Map<string, number>();
    await until(async () => {
      received.clear();
      for (const r of receiver.requests) {
        const id = String(r.headers['webhook-id']);
        received.set(id, (received.get(id) ?? 0) + 1);
      }
      return forHooks.every((id) => received.has(id));
    }, 60_000);
    // Once; twice only for an attempt cut by the SIGKILL before it was recorded (the receiver
    // has it, the database does not): at most the attempts in flight at that instant.
    const twice = [...received.values()].filter((n) => n > 1).length;
    expect(twice).toBeLessThanOrEqual(3);
  }, 90_000);
});
