// Two instances on one PostgreSQL database and one NATS server (docs/scale-out.md): every
// shard has one owner, the other instance forwards to it, so each agent's caps hold whichever
// instance is asked, one at a time or both at once; a mandate change made through either
// instance reaches the owner before its next decision; an instance that stops hands its
// shards over and the other answers for all agents at once.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOwners, startPairWithFleet, until } from '../fixtures/drills/instances.js';
import { deleteStream, ownStream } from '../fixtures/drills/nats-stream.js';
import { addAgentWithMandate, authorize, authorizeBody } from '../fixtures/engine-setup.js';
import { request, type TestServer } from '../fixtures/server.js';

const tag = randomBytes(4).toString('hex');
const ENV = {
  ...ownStream('scale'),
  SECRETS_KEY: randomBytes(32).toString('base64'),
};
const AGENTS = 8;

let a: TestServer;
let b: TestServer | null = null;
let apiKey: string;
let agents: string[];

beforeAll(async () => {
  ({ a, b, apiKey, agents } = await startPairWithFleet(ENV, AGENTS, { perTransaction: '20.00', daily: '50.00' }));
}, 60_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
  await deleteStream(ENV.NATS_STREAM);
});

async function approvedSum(agentId: string): Promise<number> {
  const sql = postgres(a.dbUrls.live, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ total: string }[]>`
      select coalesce(sum(amount), 0)::text as total from authorizations
      where agent_id = ${agentId} and decision = 'APPROVE'`;
    return Number(row?.total ?? 0);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

describe('two instances, one budget', () => {
  it('shares the 1,024 shards between the two instances, each owned once', async () => {
    const held = await shardOwners(a.dbUrls.live);
    expect([...held.values()].reduce((x, y) => x + y, 0)).toBe(1024);
    // Rendezvous hashing splits them about evenly.
    for (const n of held.values()) expect(n).toBeGreaterThan(400);
  });

  it('keeps every agent within its daily cap when requests alternate between the instances', async () => {
    const servers = [a, b as TestServer];
    for (const agentId of agents.slice(0, AGENTS / 2)) {
      let approved = 0;
      for (let i = 0; i < 8; i++) {
        const res = await authorize(servers[i % 2] as TestServer, apiKey, authorizeBody(agentId));
        expect(res.status, res.text).toBe(200);
        if (res.body.decision === 'APPROVE') approved += 10;
      }
      expect(approved).toBe(50);
      expect(await approvedSum(agentId)).toBe(50);
    }
  });

  it('keeps every agent within its daily cap when both instances are asked at once', async () => {
    const servers = [a, b as TestServer];
    await Promise.all(
      agents.slice(AGENTS / 2).map(async (agentId) => {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => authorize(servers[i % 2] as TestServer, apiKey, authorizeBody(agentId))),
        );
        for (const res of answers) expect(res.status, res.text).toBe(200);
        const approved = answers.filter((r) => r.body.decision === 'APPROVE').length * 10;
        expect(approved).toBeLessThanOrEqual(50);
        expect(await approvedSum(agentId)).toBe(approved);
      }),
    );
  });

  it('reports the shards each instance owns and how authorizations were routed in /metrics', async () => {
    const value = (text: string, series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? 0 : Number(line.slice(series.length + 1));
    };
    let owned = 0;
    let forwarded = 0;
    let local = 0;
    for (const s of [a, b as TestServer]) {
      const res = await request(s, 'GET', '/metrics', { adminKey: s.adminKey });
      expect(res.status).toBe(200);
      const text = res.text;
      owned += value(text, 'asas_cluster_shards_owned');
      forwarded += value(text, 'asas_cluster_authorizations_total{route="forwarded"}');
      local += value(text, 'asas_cluster_authorizations_total{route="local"}');
    }
    expect(owned).toBe(1024);
    expect(forwarded).toBeGreaterThan(0);
    // Every decision is taken by an owner, forwarded ones included.
    expect(local).toBeGreaterThanOrEqual(forwarded);
  });

  it('replays an idempotency key whichever instance is asked', async () => {
    const agentId = await addAgentWithMandate(a, apiKey, 'replay', { perTransaction: '20.00', daily: '1000.00' });
    const body = authorizeBody(agentId, { idempotency_key: `idem-${tag}` });
    const first = await authorize(a, apiKey, body);
    expect(first.body.decision, first.text).toBe('APPROVE');
    const again = await authorize(b as TestServer, apiKey, body);
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.authorization_id).toBe(first.body.authorization_id);
    expect(await approvedSum(agentId)).toBe(10);
  });

  it('applies a status change made through either instance before the next decision', async () => {
    const agentId = await addAgentWithMandate(a, apiKey, 'changed', { perTransaction: '20.00', daily: '1000.00' });
    const both = [a, b as TestServer];
    const status = async (via: TestServer, value: string) => {
      const res = await request(via, 'PATCH', `/api/v1/agents/${agentId}/status`, {
        apiKey,
        body: { status: value, reason: 'scale-out test' },
      });
      expect(res.status, res.text).toBe(200);
    };
    for (const via of both) {
      for (const s of both) expect((await authorize(s, apiKey, authorizeBody(agentId))).body.decision).toBe('APPROVE');
      await status(via, 'SUSPENDED');
      for (const s of both) {
        const res = await authorize(s, apiKey, authorizeBody(agentId));
        expect(res.body.decision, res.text).toBe('DECLINE');
      }
      await status(via, 'ACTIVE');
    }
  });

  it('hands every shard to the other instance on a clean stop, which then answers for all agents', async () => {
    const fresh = await addAgentWithMandate(a, apiKey, 'after stop', { perTransaction: '20.00', daily: '50.00' });
    await (b as TestServer).close();
    b = null;
    await until(async () => {
      const held = await shardOwners(a.dbUrls.live);
      return held.size === 1 && [...held.values()][0] === 1024;
    }, 10_000);
    const res = await authorize(a, apiKey, authorizeBody(fresh));
    expect(res.body.decision, res.text).toBe('APPROVE');
  });
});
