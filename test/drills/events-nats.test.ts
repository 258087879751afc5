// Outbox to the shared NATS JetStream (127.0.0.1:4222): every event lands on the stream on the
// subject of CONTRACT.md with Nats-Msg-Id = event_id and the envelope as body, and reaches
// webhooks through the durable consumer. Each test server gets its own stream and subject
// prefix so parallel test files never share a stream.
import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WatchedStream, watchOwnStream } from '../fixtures/drills/nats-stream.js';
import { envelope, insertOutbox, outboxCounts } from '../fixtures/outbox.js';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let stream: WatchedStream;
let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  stream = await watchOwnStream('events');
  server = await startTestServer(stream.env);
  receiver = await startReceiver();
});

afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await stream?.close();
});

describe('events on NATS JetStream', () => {
  it('is ready with the bus connected, and created the stream over <prefix>.>', async () => {
    // The bus connects in the background: ready within moments of start.
    let ready = await request(server, 'GET', '/ready');
    for (let i = 0; i < 100 && ready.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ready = await request(server, 'GET', '/ready');
    }
    expect(ready.status, ready.text).toBe(200);
    expect(ready.body).toMatchObject({ checks: { events: true } });
    const jsm = await jetstreamManager(stream.nc);
    const info = await jsm.streams.info(stream.name);
    expect(info.config.subjects).toContain(`${stream.subjectPrefix}.>`);
  });

  it('publishes every outbox event with its subject, body and Nats-Msg-Id, and delivers webhooks', async () => {
    const client = await provisionClient(server);
    const prn = await insertPrincipalRow(server, 'sandbox', client.clientId, client.programId);
    const key = (await issuePrincipalKey(server, prn, 'sandbox')).apiKey;
    const hook = await request(server, 'POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: `${receiver.url}/nats`, event_types: ['*'] },
    });
    expect(hook.status).toBe(201);
    const types = [
      'gate.fired',
      'authorization.decline',
      'cts.red',
      'cts.critical',
      'session.terminate',
      'trust.promotion',
      'step_up.created',
      'authorization.decided',
    ];
    const events = types.map((t) => envelope(t, { agent_id: 'agt_x', n: t }));
    await insertOutbox(server.dbUrls.sandbox, client.clientId, prn, events);
    const deadline = Date.now() + 10_000;
    while ((await outboxCounts(server.dbUrls.sandbox)).unpublished > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const msgs = await stream.messages();
    for (const e of events) {
      const m = msgs.find((x) => x.header?.get('Nats-Msg-Id') === e.event_id);
      expect(m, e.event_type).toBeDefined();
      expect(m?.subject).toBe(`${stream.subjectPrefix}.sandbox.${client.clientId}.${prn}.${e.event_type}`);
      expect(JSON.parse(new TextDecoder().decode(m?.data))).toEqual(e);
    }
    // Webhooks get every type but authorization.decided, through the durable consumer.
    const got = await receiver.waitFor(types.length - 1, 10_000, (r) => r.path === '/nats');
    expect(got.map((r) => JSON.parse(r.body).event_type).sort()).toEqual(
      types.filter((t) => t !== 'authorization.decided').sort(),
    );
    const jsm = await jetstreamManager(stream.nc);
    const consumer = await jsm.consumers.info(stream.name, `${stream.name}_webhooks`);
    expect(consumer.config.durable_name).toBe(`${stream.name}_webhooks`);
  });

  it('drops a re-published event inside the duplicate window (same Nats-Msg-Id)', async () => {
    const client = await provisionClient(server);
    const prn = await insertPrincipalRow(server, 'live', client.clientId, client.programId);
    const e = envelope('gate.fired', { agent_id: 'agt_dup' });
    await insertOutbox(server.dbUrls.live, client.clientId, prn, [e]);
    const deadline = Date.now() + 10_000;
    while ((await outboxCounts(server.dbUrls.live)).unpublished > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const before = (await stream.messages()).length;
    // What a relay crash between publish and mark looks like: the batch is unpublished again.
    const postgres = (await import('postgres')).default;
    const sql = postgres(server.dbUrls.live, { max: 1, onnotice: () => {} });
    await sql`
      update outbox_batches set published_at = null
      where seq = (select seq from outbox_events where event_id = ${e.event_id})`;
    while ((await sql`select 1 from outbox_batches where published_at is null`).length > 0) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await sql.end();
    const after = await stream.messages();
    expect(after.length).toBe(before);
    expect(after.filter((m) => m.header?.get('Nats-Msg-Id') === e.event_id)).toHaveLength(1);
  });

  it('recreates a stream deleted under it and publishes what waited (the server answers no responders)', async () => {
    const client = await provisionClient(server);
    const prn = await insertPrincipalRow(server, 'live', client.clientId, client.programId);
    const jsm = await jetstreamManager(stream.nc);
    await jsm.streams.delete(stream.name);
    const e = envelope('gate.fired', { agent_id: 'agt_gone' });
    await insertOutbox(server.dbUrls.live, client.clientId, prn, [e]);
    const deadline = Date.now() + 15_000;
    while ((await outboxCounts(server.dbUrls.live)).unpublished > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await outboxCounts(server.dbUrls.live)).unpublished).toBe(0);
    const msgs = await stream.messages();
    expect(msgs.filter((m) => m.header?.get('Nats-Msg-Id') === e.event_id)).toHaveLength(1);
    const ready = await request(server, 'GET', '/ready');
    expect(ready.status).toBe(200);
  });
});
