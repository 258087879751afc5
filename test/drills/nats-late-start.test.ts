// Regression: the relay stalled for good when NATS became reachable only after the service
// started (a sleep that lost a race cancelled the timer of the next one). Starting with NATS
// down, deciding, then starting NATS must publish everything.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import { type PrivateNats, startPrivateNats } from '../fixtures/nats-server.js';
import { outboxCounts } from '../fixtures/outbox.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let nats: PrivateNats;
let server: TestServer;
let fx: EngineFixture;

beforeAll(async () => {
  nats = await startPrivateNats();
  await nats.stop();
  server = await startTestServer({ NATS_URL: nats.url });
  fx = await setup(server);
  await relaxRateGates(server, fx.apiKey);
});

afterAll(async () => {
  await server?.close();
  await nats?.dispose();
});

describe('NATS down at start', () => {
  it('decides while NATS is down and publishes every event once it comes up', async () => {
    expect((await request(server, 'GET', '/ready')).status).toBe(503);
    for (let i = 0; i < 20; i++) {
      expect((await authorize(server, fx.apiKey, authorizeBody(fx.agentId))).status).toBe(200);
    }
    const waiting = await outboxCounts(server.dbUrls.live);
    expect(waiting.unpublished).toBe(waiting.total);
    await nats.start();
    const deadline = Date.now() + 15_000;
    while ((await outboxCounts(server.dbUrls.live)).unpublished > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await outboxCounts(server.dbUrls.live)).unpublished).toBe(0);
    const nc = await connect({ servers: nats.url });
    try {
      const info = await (await jetstreamManager(nc)).streams.info('MANDATE_EVENTS');
      expect(info.state.messages).toBe(waiting.total);
    } finally {
      await nc.close();
    }
  });
});
