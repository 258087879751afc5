// NATS stopped in the middle of a stream of decisions and started again: POST /authorize keeps
// deciding, events wait in the outbox, and once NATS is back every event is on the stream
// exactly once (Nats-Msg-Id = event_id) and reaches the webhook. Uses a private nats-server on
// a free port with its own JetStream store; the shared server is never stopped.
import { performance } from 'node:perf_hooks';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import { type PrivateNats, startPrivateNats } from '../fixtures/nats-server.js';
import { outboxCounts } from '../fixtures/outbox.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let nats: PrivateNats;
let server: TestServer;
let receiver: Receiver;
let fx: EngineFixture;

beforeAll(async () => {
  nats = await startPrivateNats();
  server = await startTestServer({ NATS_URL: nats.url });
  receiver = await startReceiver();
  fx = await setup(server);
  await relaxRateGates(server, fx.apiKey);
  const hook = await request(server, 'POST', '/api/v1/webhooks', {
    apiKey: fx.apiKey,
    body: { url: `${receiver.url}/outage`, event_types: ['*'] },
  });
  expect(hook.status).toBe(201);
});

afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await nats?.dispose();
});

interface Decided {
  readonly over: boolean;
  readonly status: number;
  readonly decision: unknown;
  readonly reasons: unknown;
  readonly ms: number;
}

async function decide(n: number): Promise<Decided[]> {
  const answers: Decided[] = [];
  let started = 0;
  const lanes = Array.from({ length: 4 }, async () => {
    while (started < n) {
      // Every sixth is over the mandate's per-transaction limit (a decline with gate events for
      // the webhook); the others, 1.00 each, stay inside its daily limit: approvable.
      const over = ++started % 6 === 0;
      const sentAt = performance.now();
      const res = await authorize(server, fx.apiKey, authorizeBody(fx.agentId, { amount: over ? '400.00' : '1.00' }));
      answers.push({
        over,
        status: res.status,
        decision: res.body.decision,
        reasons: res.body.reason_codes,
        ms: performance.now() - sentAt,
      });
    }
  });
  await Promise.all(lanes);
  return answers;
}

async function readiness(): Promise<number> {
  return (await request(server, 'GET', '/ready')).status;
}

async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('NATS outage', () => {
  it('loses no event and duplicates none on the stream', async () => {
    await until('bus ready', async () => (await readiness()) === 200);
    const first = await decide(60);
    await nats.stop();
    await until('bus not ready', async () => (await readiness()) === 503, 10_000);
    const during = await decide(60);
    expect((await outboxCounts(server.dbUrls.live)).unpublished).toBeGreaterThan(0);
    await nats.start();
    const after = await decide(60);
    // Decisions go on while NATS is away: approved and recorded as usual, not safe declines,
    // and answered well inside the answer deadline (1 s; slack for a loaded machine).
    for (const a of [...first, ...during, ...after]) {
      expect(a.status).toBe(200);
      expect(a.decision).toBe(a.over ? 'DECLINE' : 'APPROVE');
      expect(a.reasons).not.toContain('system_unavailable');
    }
    expect(during.filter((a) => a.ms > 1000)).toEqual([]);

    await until('outbox drained', async () => (await outboxCounts(server.dbUrls.live)).unpublished === 0);
    const sql = postgres(server.dbUrls.live, { max: 1, onnotice: () => {} });
    const rows = await sql<{ event_id: string; event_type: string }[]>`select event_id, event_type from outbox_events`;
    await sql.end();
    expect(rows.filter((r) => r.event_type === 'authorization.decided')).toHaveLength(180);

    const nc: NatsConnection = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info('MANDATE_EVENTS');
      const ids: string[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
        const m = await jsm.streams.getMessage('MANDATE_EVENTS', { seq });
        if (m === null) throw new Error(`no message at seq ${seq} of MANDATE_EVENTS`);
        ids.push(m.header?.get('Nats-Msg-Id') ?? '');
      }
      expect(ids.length).toBe(rows.length);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(new Set(rows.map((r) => r.event_id)));
    } finally {
      await nc.close();
    }

    // Webhooks: every non-decided event arrives (at least once; receivers dedupe on event_id).
    const expected = new Set(rows.filter((r) => r.event_type !== 'authorization.decided').map((r) => r.event_id));
    expect(expected.size).toBeGreaterThan(0);
    await until('webhook deliveries', async () => {
      const got = new Set(receiver.requests.filter((r) => r.path === '/outage').map((r) => r.headers['webhook-id']));
      return [...expected].every((id) => got.has(id));
    });
  });
});
