// webhook.delivery_exhausted on the shared NATS JetStream (127.0.0.1:4222): a real decision's
// delivery to a receiver that is down runs out of retries, and the announcement lands on the
// stream under the Principal's subject with Nats-Msg-Id = its event_id (issue 17).
import type { StoredMsg } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WatchedStream, watchOwnStream } from '../fixtures/drills/nats-stream.js';
import { authorize, authorizeBody, setup } from '../fixtures/engine-setup.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let stream: WatchedStream;
let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  stream = await watchOwnStream('exhausted');
  server = await startTestServer({
    ...stream.env,
    WEBHOOK_RETRY_SCHEDULE_MS: '100',
    WEBHOOK_DISABLE_AFTER: '1000',
    WEBHOOK_TIMEOUT_MS: '3000',
  });
  receiver = await startReceiver(() => 503);
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await stream?.close();
});

async function exhaustedOnStream(): Promise<StoredMsg[]> {
  return (await stream.messages()).filter((m) => m.subject.endsWith('.webhook.delivery_exhausted'));
}

describe('webhook.delivery_exhausted on NATS', () => {
  it('is published for a delivery out of retries, on the Principal subject, with its event_id', async () => {
    const fx = await setup(server, {
      limits: { max_amount_per_transaction: '20.00', max_daily_amount: '1000.00', currency: 'USD' },
    });
    const hook = await request(server, 'POST', '/api/v1/webhooks', {
      apiKey: fx.apiKey,
      body: { url: `${receiver.url}/down`, event_types: ['authorization.decline'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const webhookId = (hook.body.webhook as { id: string }).id;
    const res = await authorize(server, fx.apiKey, authorizeBody(fx.agentId, { amount: 25 }));
    expect(res.body.decision).toBe('DECLINE');

    let found: StoredMsg[] = [];
    for (let i = 0; i < 150 && found.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      found = await exhaustedOnStream();
    }
    expect(found).toHaveLength(1);
    const msg = found[0] as StoredMsg;
    expect(msg.subject).toBe(
      `${stream.subjectPrefix}.live.${fx.client.clientId}.${fx.principalId}.webhook.delivery_exhausted`,
    );
    const body = JSON.parse(new TextDecoder().decode(msg.data)) as {
      event_type: string;
      event_id: string;
      data: Record<string, unknown>;
    };
    expect(msg.header?.get('Nats-Msg-Id')).toBe(body.event_id);
    expect(body.event_type).toBe('webhook.delivery_exhausted');
    expect(body.data).toMatchObject({
      webhook_id: webhookId,
      event_type: 'authorization.decline',
      attempts: 2,
      last_status_code: 503,
      reason: 'retries_exhausted',
    });
    // The receiver saw both attempts of the original delivery and nothing else.
    expect(receiver.requests.filter((r) => r.path === '/down')).toHaveLength(2);
  });
});
