// Webhook delivery end to end on the in-process bus (no NATS_URL): outbox rows, as the decision
// engine writes them, reach a real HTTP receiver signed, filtered by subscription, retried on
// schedule with the same event_id, and a receiver that keeps failing disables its webhook.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, insertOutbox, type OutboxEvent } from '../fixtures/outbox.js';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { type ReceivedRequest, type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

const SCHEDULE = [300, 600, 900];
let server: TestServer;
let receiver: Receiver;
let clientId: string;
let programId: string;

beforeAll(async () => {
  server = await startTestServer({
    WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(','),
    WEBHOOK_DISABLE_AFTER: '3',
    WEBHOOK_TIMEOUT_MS: '1000',
  });
  receiver = await startReceiver();
  const client = await provisionClient(server);
  clientId = client.clientId;
  programId = client.programId;
});

afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

async function principalWithWebhook(
  path: string,
  eventTypes: string[],
): Promise<{ prn: string; key: string; webhookId: string; secret: string }> {
  const prn = await insertPrincipalRow(server, 'live', clientId, programId);
  const key = (await issuePrincipalKey(server, prn, 'live')).apiKey;
  const res = await request(server, 'POST', '/api/v1/webhooks', {
    apiKey: key,
    body: { url: `${receiver.url}${path}`, event_types: eventTypes },
  });
  expect(res.status).toBe(201);
  return { prn, key, webhookId: (res.body.webhook as { id: string }).id, secret: res.body.signing_secret as string };
}

const at = (path: string) => (r: ReceivedRequest) => r.path === path;

function expectSigned(r: ReceivedRequest, secret: string): void {
  expect(r.headers['x-mandate-signature']).toBe(createHmac('sha256', secret).update(r.body).digest('hex'));
  const id = r.headers['webhook-id'] as string;
  const ts = r.headers['webhook-timestamp'] as string;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${ts}.${r.body}`).digest('base64');
  expect(r.headers['webhook-signature']).toBe(`v1,${mac}`);
  expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(30);
}

const SAMPLES: Record<string, Record<string, unknown>> = {
  'gate.fired': {
    agent_id: 'agt_1',
    authorization_id: 'auth_1',
    gate: 'mandate_exceeded',
    decision: 'DECLINE',
    amount: '12.50',
    currency: 'USD',
    merchant: 'Shop',
    trust_score: 0.8,
    risk_score: 0.1,
  },
  'authorization.decline': {
    agent_id: 'agt_1',
    authorization_id: 'auth_1',
    amount: '12.50',
    currency: 'USD',
    merchant: 'Shop',
    gates_fired: ['mandate_exceeded'],
    trust_score: 0.8,
    risk_score: 0.1,
    recommendations: [],
  },
  'cts.red': {
    agent_id: 'agt_1',
    previous_zone: 'AMBER',
    current_zone: 'RED',
    trust_score: 0.4,
    cognitive_limit_multiplier: 0.5,
    dimensions: {},
  },
  'cts.critical': {
    agent_id: 'agt_1',
    previous_zone: 'RED',
    current_zone: 'CRITICAL',
    trust_score: 0.2,
    cognitive_limit_multiplier: 0,
    dimensions: {},
  },
  'session.terminate': {
    agent_id: 'agt_1',
    session_id: 's1',
    reason: 'consecutive_denials',
    consecutive_denials: 3,
    final_trust_score: 0.3,
  },
  'trust.promotion': {
    agent_id: 'agt_1',
    previous_tier: 'new',
    new_tier: 'verified',
    trust_score: 0.9,
    successful_txns: 20,
    age_hours: 30,
  },
  'step_up.created': { agent_id: 'agt_1', authorization_id: 'auth_1', amount: '12.50', currency: 'USD' },
};

describe('delivery', () => {
  it('delivers every webhook event type, signed, byte for byte, to a "*" webhook', async () => {
    const hook = await principalWithWebhook('/all', ['*']);
    const events: OutboxEvent[] = Object.entries(SAMPLES).map(([t, d]) => envelope(t, d));
    const decided = envelope('authorization.decided', { id: 'auth_1', decision: 'APPROVE' });
    await insertOutbox(server.dbUrls.live, clientId, hook.prn, [...events, decided]);
    const got = await receiver.waitFor(events.length, 10_000, at('/all'));
    for (const e of events) {
      const r = got.find((x) => JSON.parse(x.body).event_id === e.event_id);
      expect(r, e.event_type).toBeDefined();
      const req = r as ReceivedRequest;
      expect(JSON.parse(req.body)).toEqual(e);
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['webhook-id']).toBe(e.event_id);
      expectSigned(req, hook.secret);
    }
    // authorization.decided is NATS-only: never posted to webhooks, not even to "*".
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests.filter(at('/all')).map((r) => JSON.parse(r.body).event_type)).not.toContain(
      'authorization.decided',
    );
  });

  it("delivers only subscribed types (aliases included) and only the Principal's own events", async () => {
    const hook = await principalWithWebhook('/crit', ['kya.zone.critical']);
    const other = await principalWithWebhook('/other', ['*']);
    const crit = envelope('cts.critical', SAMPLES['cts.critical'] as Record<string, unknown>);
    const red = envelope('cts.red', SAMPLES['cts.red'] as Record<string, unknown>);
    await insertOutbox(server.dbUrls.live, clientId, hook.prn, [red, crit]);
    const got = await receiver.waitFor(1, 10_000, at('/crit'));
    expect(JSON.parse((got[0] as ReceivedRequest).body).event_id).toBe(crit.event_id);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter(at('/crit'))).toHaveLength(1);
    expect(receiver.requests.filter(at('/other'))).toHaveLength(0);
    void other;
  });

  it('retries a failing receiver at the scheduled delays with the same event_id', async () => {
    const hook = await principalWithWebhook('/flaky', ['gate.fired']);
    let calls = 0;
    const previous = receiver.respond;
    receiver.respond = (r, i) => (r.path === '/flaky' ? (++calls <= 2 ? 503 : 200) : previous(r, i));
    const e = envelope('gate.fired', SAMPLES['gate.fired'] as Record<string, unknown>);
    await insertOutbox(server.dbUrls.live, clientId, hook.prn, [e]);
    const got = await receiver.waitFor(3, 10_000, at('/flaky'));
    receiver.respond = previous;
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([e.event_id, e.event_id, e.event_id]);
    expect(got.map((r) => r.body)).toEqual([got[0]?.body, got[0]?.body, got[0]?.body]);
    for (const r of got) expectSigned(r, hook.secret);
    const gaps = [
      (got[1] as ReceivedRequest).at - (got[0] as ReceivedRequest).at,
      (got[2] as ReceivedRequest).at - (got[1] as ReceivedRequest).at,
    ];
    // Jitter only ever adds up to 10%; the rest is scheduling slack.
    expect(gaps[0]).toBeGreaterThanOrEqual(SCHEDULE[0] as number);
    expect(gaps[0]).toBeLessThan((SCHEDULE[0] as number) * 1.1 + 250);
    expect(gaps[1]).toBeGreaterThanOrEqual(SCHEDULE[1] as number);
    expect(gaps[1]).toBeLessThan((SCHEDULE[1] as number) * 1.1 + 250);
    await new Promise((r) => setTimeout(r, 200));
    const wh = await request(server, 'GET', `/api/v1/webhooks/${hook.webhookId}`, { apiKey: hook.key });
    expect(wh.body).toMatchObject({ active: true, consecutive_failures: 0, last_status_code: 200 });
    expect(typeof wh.body.last_delivery_at).toBe('string');
    const log = await request<{ items: Record<string, unknown>[] }>(
      server,
      'GET',
      `/api/v1/webhooks/${hook.webhookId}/deliveries`,
      { apiKey: hook.key },
    );
    expect(log.body.items[0]).toMatchObject({
      event_id: e.event_id,
      status: 'succeeded',
      attempts: 3,
      last_status_code: 200,
    });
    expect(log.body.items[0]?.attempt_log).toHaveLength(3);
  });

  it('disables a webhook after WEBHOOK_DISABLE_AFTER consecutive failures; PATCH active: true re-enables it', async () => {
    const hook = await principalWithWebhook('/dead', ['*']);
    const previous = receiver.respond;
    receiver.respond = (r, i) => (r.path === '/dead' ? 500 : previous(r, i));
    const e = envelope('authorization.decline', SAMPLES['authorization.decline'] as Record<string, unknown>);
    await insertOutbox(server.dbUrls.live, clientId, hook.prn, [e]);
    await receiver.waitFor(3, 10_000, at('/dead'));
    let wh = await request(server, 'GET', `/api/v1/webhooks/${hook.webhookId}`, { apiKey: hook.key });
    for (let i = 0; i < 50 && wh.body.active !== false; i++) {
      await new Promise((r) => setTimeout(r, 50));
      wh = await request(server, 'GET', `/api/v1/webhooks/${hook.webhookId}`, { apiKey: hook.key });
    }
    expect(wh.body).toMatchObject({ active: false, consecutive_failures: 3, last_status_code: 500 });
    // The schedule has a fourth slot, but a disabled webhook gets no more attempts.
    await new Promise((r) => setTimeout(r, (SCHEDULE[2] as number) * 1.1 + 300));
    expect(receiver.requests.filter(at('/dead'))).toHaveLength(3);
    // Events while disabled are not delivered.
    const missed = envelope('gate.fired', SAMPLES['gate.fired'] as Record<string, unknown>);
    // Relayed (an idle embedded relay polls once a second), then given time to be delivered.
    const relay = server.app.services.events.relays.live;
    const published = relay.published;
    await insertOutbox(server.dbUrls.live, clientId, hook.prn, [missed]);
    for (let i = 0; i < 100 && relay.published === published; i++) await new Promise((r) => setTimeout(r, 50));
    expect(relay.published).toBe(published + 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter(at('/dead'))).toHaveLength(3);

    receiver.respond = previous;
    const patched = await request(server, 'PATCH', `/api/v1/webhooks/${hook.webhookId}`, {
      apiKey: hook.key,
      body: { active: true },
    });
    expect(patched.body).toMatchObject({ active: true, consecutive_failures: 0 });
    // The delivery that ran out can be redelivered; a new event is delivered.
    const re = await request(server, 'POST', `/api/v1/webhooks/${hook.webhookId}/deliveries/${e.event_id}/redeliver`, {
      apiKey: hook.key,
    });
    expect(re.status).toBe(202);
    const fresh = envelope('gate.fired', SAMPLES['gate.fired'] as Record<string, unknown>);
    await insertOutbox(server.dbUrls.live, clientId, hook.prn, [fresh]);
    const after = await receiver.waitFor(5, 10_000, at('/dead'));
    expect(
      after
        .slice(3)
        .map((r) => r.headers['webhook-id'])
        .sort(),
    ).toEqual([e.event_id, fresh.event_id].sort());
    const unknown = await request(server, 'POST', `/api/v1/webhooks/${hook.webhookId}/deliveries/evt_nope/redeliver`, {
      apiKey: hook.key,
    });
    expect(unknown.status).toBe(404);
  });

  it('a receiver that never answers does not delay other webhooks', async () => {
    const slow = await principalWithWebhook('/hang', ['*']);
    const fast = await principalWithWebhook('/fast', ['*']);
    const previous = receiver.respond;
    receiver.respond = (r, i) => (r.path === '/hang' ? 'hang' : previous(r, i));
    const slowEvents = Array.from({ length: 30 }, () =>
      envelope('gate.fired', SAMPLES['gate.fired'] as Record<string, unknown>),
    );
    await insertOutbox(server.dbUrls.live, clientId, slow.prn, slowEvents);
    await receiver.waitFor(1, 5_000, at('/hang'));
    const started = Date.now();
    const quick = envelope('gate.fired', SAMPLES['gate.fired'] as Record<string, unknown>);
    await insertOutbox(server.dbUrls.live, clientId, fast.prn, [quick]);
    await receiver.waitFor(1, 5_000, at('/fast'));
    // Well under the 1 s receiver timeout the hanging lane is stuck on.
    expect(Date.now() - started).toBeLessThan(700);
    receiver.respond = previous;
  });
});
