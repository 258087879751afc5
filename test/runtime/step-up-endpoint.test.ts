// The Principal's other confirmation channel (docs/step-up-confirmation.md): a notification
// endpoint instead of an e-mail address. The notifier POSTs the link and the one-time code there,
// signed with the Standard Webhooks headers under the whsec_ secret the PUT answered once; the
// link opens the confirmation page, and the person's answer reaches the agent.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../fixtures/engine-setup.js';
import { agentWith, principal } from '../fixtures/holds.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { answerOnPage, decide } from '../fixtures/step-up-mail.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let server: TestServer;
let endpoint: Receiver;
let p: TestPrincipal;

/** What a Standard Webhooks receiver checks: v1 HMAC of "<id>.<timestamp>.<body>" under the secret. */
function verified(secret: string, headers: Record<string, unknown>, body: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key)
    .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
    .digest('base64');
  return String(headers['webhook-signature']).split(' ').includes(`v1,${mac}`);
}

function channel(body: unknown) {
  return request(server, 'PUT', `/api/v1/principals/${p.principalId}/confirmation-channel`, {
    apiKey: p.apiKey,
    body,
  });
}

beforeAll(async () => {
  endpoint = await startReceiver();
  server = await startTestServer({ STEP_UP_NOTIFY_INTERVAL_MS: '100' });
  p = await principal(server);
  for (const [path, body] of [
    ['/api/v1/thresholds', { authorize_step_up_threshold: 0 }],
    [`/api/v1/principals/${p.principalId}/step-up-policy`, { confirmation: 'principal' }],
  ] as const) {
    const res = await request(server, 'PUT', path, { apiKey: p.apiKey, body });
    expect(res.status, res.text).toBe(200);
  }
}, 60_000);
afterAll(async () => {
  await server?.close();
  await endpoint?.close();
});

describe('a notification endpoint as the confirmation channel', () => {
  it('is one channel or the other, checked, and its secret is shown once', async () => {
    expectEnvelope(await channel({ email: 'pat@example.test', notify_url: endpoint.url }), 422, 'validation_error');
    expectEnvelope(await channel({ email: null, notify_url: 'ftp://example.test/x' }), 422, 'validation_error');
    const set = await channel({ email: null, notify_url: endpoint.url });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ email: null, notify_url: endpoint.url });
    expect(set.body.notify_secret).toMatch(/^whsec_/);
    const read = await request(server, 'GET', `/api/v1/principals/${p.principalId}/confirmation-channel`, {
      apiKey: p.apiKey,
    });
    expect(read.body.notify_url).toBe(endpoint.url);
    expect(read.body).not.toHaveProperty('notify_secret');
    // The same URL again keeps its secret (none shown); the secret is stored sealed only.
    const again = await channel({ email: null, notify_url: endpoint.url });
    expect(again.body).not.toHaveProperty('notify_secret');
    const [row] = await query(
      server,
      'live',
      (sql) => sql<{ sealed: string }[]>`select confirmation_notify_secret_sealed as sealed from principals
        where id = ${p.principalId}`,
    );
    expect(row?.sealed.startsWith('asas1.')).toBe(true);
    expect(row?.sealed).not.toContain((set.body.notify_secret as string).slice(6));
  });

  it('receives the link and code, signed; the link confirms and the agent is approved', async () => {
    const set = await channel({ email: null, notify_url: `${endpoint.url}/asas` });
    const secret = set.body.notify_secret as string;
    const { agentId } = await agentWith(server, p, {});
    const res = await decide(server, p, agentId, '12.00');
    expect(res.decision, JSON.stringify(res.reason_codes)).toBe('STEP_UP');
    const id = res.step_up_id as string;
    const [posted] = await endpoint.waitFor(1, 10_000, (r) => r.body.includes(id));
    expect(posted?.path).toBe('/asas');
    const headers = posted?.headers as Record<string, unknown>;
    expect(verified(secret, headers, posted?.body as string)).toBe(true);
    expect(verified(`whsec_${Buffer.from('another secret').toString('base64')}`, headers, posted?.body as string)).toBe(
      false,
    );
    const message = JSON.parse(posted?.body as string);
    expect(message).toMatchObject({
      type: 'step_up.confirmation_requested',
      step_up_id: id,
      agent_id: agentId,
      amount: '12.00',
      currency: 'USD',
      merchant_name: 'Corner Grocery',
    });
    expect(message.code).toMatch(/^[2-9A-HJKMNP-Z]{10}$/);
    expect(message.link).toMatch(new RegExp(`^${server.url}/step-up/live\\.[A-Za-z0-9_-]{43}$`));
    const answered = await answerOnPage(message.link, 'approve');
    expect(answered.status).toBe(200);
    const approved = await decide(server, p, agentId, '12.00', { step_up_confirmed: true });
    expect(approved).toMatchObject({ decision: 'APPROVE', reason_codes: ['step_up_confirmed'], step_up_id: id });
  });

  it('retries an endpoint that fails, with a new link and code that replace the first', async () => {
    await channel({ email: null, notify_url: `${endpoint.url}/flaky` });
    let calls = 0;
    endpoint.respond = (r) => (r.path === '/flaky' && calls++ === 0 ? 503 : 200);
    const { agentId } = await agentWith(server, p, {});
    const id = (await decide(server, p, agentId, '13.00')).step_up_id as string;
    const posts = await endpoint.waitFor(2, 15_000, (r) => r.path === '/flaky' && r.body.includes(id));
    const [first, second] = posts.map((r) => JSON.parse(r.body));
    expect(first.code).not.toBe(second.code);
    expect(first.link).not.toBe(second.link);
    // The first link no longer opens the page; the second does.
    expect((await fetch(first.link)).status).toBe(404);
    expect((await fetch(second.link)).status).toBe(200);
    const status = await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: p.apiKey });
    expect(status.body.notification).toBe('sent');
    endpoint.respond = () => 200;
  });
});
