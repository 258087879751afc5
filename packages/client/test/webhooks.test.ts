// Webhook verification (@asas/client/webhooks) of real deliveries: a webhook registered through
// the client to a receiver started here, a real decision's authorization.decline event, and
// the deliveries after a secret rotation. Altered bodies, timestamps and secrets fail.
import { unwrap } from '@asas/client';
import { verifyMandateSignature, verifyWebhook, WebhookVerificationError } from '@asas/client/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/fixtures/server.js';
import { type ReceivedRequest, type Receiver, startReceiver } from '../../../test/fixtures/webhook-receiver.js';
import { groceries, type OnboardedPrincipal, onboardThroughClient } from './fixtures.js';

let server: TestServer;
let receiver: Receiver;
let principal: OnboardedPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  principal = await onboardThroughClient(server);
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

/** A real DECLINE (over the mandate's 150.00 per purchase): its authorization.decline event is delivered. */
async function decline(): Promise<string> {
  const decision = unwrap(
    await principal.asas.POST('/api/v1/authorize', { body: { ...groceries(principal.agentId), amount: '200.00' } }),
  );
  expect(decision.decision).toBe('DECLINE');
  return decision.authorization_id as string;
}

const delivery = async (path: string, authorizationId: string): Promise<ReceivedRequest> => {
  const [got] = await receiver.waitFor(1, 20_000, (r) => r.path === path && r.body.includes(authorizationId));
  return got!;
};

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  return null;
}

describe('webhook verification', () => {
  it('verifies a real delivery; an altered body, timestamp or secret, or a stale delivery, fails', async () => {
    const { webhook, signing_secret: secret } = unwrap(
      await principal.asas.POST('/api/v1/webhooks', {
        body: { url: `${receiver.url}/hook`, event_types: ['authorization.decline'] },
      }),
    );
    expect(webhook.active).toBe(true);
    const authorizationId = await decline();
    const got = await delivery('/hook', authorizationId);

    const event = verifyWebhook<{ authorization_id: string; agent_id: string }>({
      secret,
      headers: got.headers,
      body: got.body,
    });
    expect(event.event_type).toBe('authorization.decline');
    expect(event.event_id).toBe(got.headers['webhook-id']);
    expect(event.data).toMatchObject({ authorization_id: authorizationId, agent_id: principal.agentId });
    // The raw bytes and fetch Headers do as well.
    const headers = new Headers(got.headers as Record<string, string>);
    expect(verifyWebhook({ secret, headers, body: Buffer.from(got.body) }).event_id).toBe(event.event_id);
    expect(verifyMandateSignature({ secret, headers, body: got.body })).toBe(true);

    const altered = got.body.replace(authorizationId, `${authorizationId}x`);
    expect(refusal(() => verifyWebhook({ secret, headers: got.headers, body: altered }))).toBeInstanceOf(
      WebhookVerificationError,
    );
    expect(verifyMandateSignature({ secret, headers, body: altered })).toBe(false);
    const later = { ...got.headers, 'webhook-timestamp': String(Number(got.headers['webhook-timestamp']) + 1) };
    expect(refusal(() => verifyWebhook({ secret, headers: later, body: got.body }))).toBeInstanceOf(
      WebhookVerificationError,
    );
    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(refusal(() => verifyWebhook({ secret: otherSecret, headers: got.headers, body: got.body }))).toBeInstanceOf(
      WebhookVerificationError,
    );
    const stale = Date.now() + 10 * 60_000;
    expect(refusal(() => verifyWebhook({ secret, headers: got.headers, body: got.body, nowMs: stale }))).toBeInstanceOf(
      WebhookVerificationError,
    );
  });

  it('verifies a delivery with the new secret and with the previous one during a rotation', async () => {
    const { webhook, signing_secret: before } = unwrap(
      await principal.asas.POST('/api/v1/webhooks', {
        body: { url: `${receiver.url}/rotated`, event_types: ['authorization.decline'] },
      }),
    );
    const rotated = unwrap(
      await principal.asas.POST('/api/v1/webhooks/{webhook_id}/rotate-secret', {
        params: { path: { webhook_id: webhook.id } },
        body: { grace_period_seconds: 600 },
      }),
    );
    const after = rotated.signing_secret;
    expect(after).not.toBe(before);
    const got = await delivery('/rotated', await decline());
    for (const secret of [after, before]) {
      expect(verifyWebhook({ secret, headers: got.headers, body: got.body }).data).toMatchObject({
        agent_id: principal.agentId,
      });
    }
  });
});
