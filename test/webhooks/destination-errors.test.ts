// Issue 11 "Webhooks": what a Principal sees of a refused or failed destination never reveals an
// internal address or what a name resolved to ("destination not allowed"), and under
// WEBHOOK_URL_POLICY=public only port 443 is allowed unless WEBHOOK_ALLOWED_PORTS lists more,
// both when a URL is registered and at every delivery (a stored URL is re-checked).
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, insertOutbox } from '../fixtures/outbox.js';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { withDb } from '../fixtures/test-db.js';

interface Delivery {
  status: string;
  attempts: number;
  last_error: string | null;
  attempt_log: { error: string | null }[];
}

interface Tenant {
  server: TestServer;
  clientId: string;
  prn: string;
  key: string;
}

async function tenant(server: TestServer): Promise<Tenant> {
  const client = await provisionClient(server);
  const prn = await insertPrincipalRow(server, 'live', client.clientId, client.programId);
  const key = (await issuePrincipalKey(server, prn, 'live')).apiKey;
  return { server, clientId: client.clientId, prn, key };
}

/** A webhook row written behind the API's back, as if registered before the policy narrowed. */
async function storedWebhook(t: Tenant, url: string): Promise<string> {
  const id = `wh_dst${Math.random().toString(36).slice(2, 10)}`;
  await withDb(
    t.server,
    'live',
    (sql) => sql`insert into webhooks (id, principal_id, client_id, url, event_types, secret)
      values (${id}, ${t.prn}, ${t.clientId}, ${url}, ${['*']}, 'whsec_dGVzdA==')`,
  );
  return id;
}

/** Waits until the webhook's one delivery has failed for good, and returns it with the raw JSON. */
async function failedDelivery(t: Tenant, id: string): Promise<{ delivery: Delivery; text: string }> {
  let res = await request<{ items: Delivery[] }>(t.server, 'GET', `/api/v1/webhooks/${id}/deliveries`, {
    apiKey: t.key,
  });
  for (let i = 0; i < 200 && res.body.items[0]?.status !== 'failed'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    res = await request<{ items: Delivery[] }>(t.server, 'GET', `/api/v1/webhooks/${id}/deliveries`, { apiKey: t.key });
  }
  const delivery = res.body.items[0] as Delivery;
  expect(delivery).toMatchObject({ status: 'failed', attempts: 2 });
  return { delivery, text: res.text };
}

describe('under WEBHOOK_URL_POLICY=public with the default ports', () => {
  let server: TestServer;
  let t: Tenant;
  beforeAll(async () => {
    server = await startTestServer({
      WEBHOOK_URL_POLICY: 'public',
      WEBHOOK_RETRY_SCHEDULE_MS: '50',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    t = await tenant(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('registers https on port 443 only', async () => {
    const create = (url: string) =>
      request(server, 'POST', '/api/v1/webhooks', { apiKey: t.key, body: { url, event_types: ['*'] } });
    expect((await create('https://hooks.example.com/mandate')).status).toBe(201);
    expect((await create('https://hooks.example.com:443/mandate')).status).toBe(201);
    for (const port of [8443, 80, 22, 6379]) {
      const env = expectEnvelope(await create(`https://hooks.example.com:${port}/mandate`), 422, 'invalid_webhook_url');
      expect(env.message).toContain(`port ${port} is not allowed`);
    }
  });

  it('refuses an internal destination saying only "destination not allowed"', async () => {
    for (const url of [
      'https://10.0.0.5/h',
      'https://169.254.169.254/latest',
      'https://[fd00::5]/h',
      'https://db.internal/h',
    ]) {
      const res = await request(server, 'POST', '/api/v1/webhooks', {
        apiKey: t.key,
        body: { url, event_types: ['*'] },
      });
      const env = expectEnvelope(res, 422, 'invalid_webhook_url');
      expect(env.message).toBe('url: destination not allowed.');
      expect(env.details).toEqual([{ field: 'url', message: 'destination not allowed' }]);
    }
  });

  it('records a delivery to a name resolving inward as "destination not allowed", never the address', async () => {
    // localhost resolves (through /etc/hosts) to 127.0.0.1 and ::1: the delivery-time check
    // after DNS refuses it, and neither the attempts nor the test endpoint name the answer.
    const id = await storedWebhook(t, 'https://localhost/hook');
    await insertOutbox(server.dbUrls.live, t.clientId, t.prn, [envelope('gate.fired', { agent_id: 'agt_dst' })]);
    const { delivery, text } = await failedDelivery(t, id);
    expect(delivery.last_error).toBe('destination not allowed');
    expect(delivery.attempt_log.map((a) => a.error)).toEqual(['destination not allowed', 'destination not allowed']);
    expect(text).not.toMatch(/127\.0\.0\.1|::1|resolves/);

    const test = await request(server, 'POST', `/api/v1/webhooks/${id}/test`, { apiKey: t.key });
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({
      status: 'failed',
      message: 'Test event not delivered: destination not allowed.',
    });
    expect(test.text).not.toMatch(/127\.0\.0\.1|::1|resolves/);
  });

  it('re-checks the port at delivery: a stored URL on a port no longer allowed is never reached', async () => {
    // A Principal of its own: the dispatcher caches each Principal's webhooks.
    const t2 = await tenant(server);
    const id = await storedWebhook(t2, 'https://hooks.example.com:8443/hook');
    await insertOutbox(server.dbUrls.live, t2.clientId, t2.prn, [envelope('gate.fired', { agent_id: 'agt_port' })]);
    const { delivery } = await failedDelivery(t2, id);
    expect(delivery.attempt_log.map((a) => a.error)).toEqual(['destination not allowed', 'destination not allowed']);
  });
});

describe('under WEBHOOK_URL_POLICY=public with WEBHOOK_ALLOWED_PORTS=443,8443', () => {
  let server: TestServer;
  let t: Tenant;
  beforeAll(async () => {
    server = await startTestServer({ WEBHOOK_URL_POLICY: 'public', WEBHOOK_ALLOWED_PORTS: '443,8443' });
    t = await tenant(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('registers the listed ports and refuses the others', async () => {
    const create = (url: string) =>
      request(server, 'POST', '/api/v1/webhooks', { apiKey: t.key, body: { url, event_types: ['*'] } });
    expect((await create('https://hooks.example.com:8443/mandate')).status).toBe(201);
    expect((await create('https://hooks.example.com/mandate')).status).toBe(201);
    const env = expectEnvelope(await create('https://hooks.example.com:8080/mandate'), 422, 'invalid_webhook_url');
    expect(env.message).toBe('url must use port 443 or 8443 (port 8080 is not allowed).');
  });
});

describe('under WEBHOOK_URL_POLICY=any (development)', () => {
  let server: TestServer;
  let t: Tenant;
  beforeAll(async () => {
    server = await startTestServer({ WEBHOOK_RETRY_SCHEDULE_MS: '50', WEBHOOK_TIMEOUT_MS: '2000' });
    t = await tenant(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('allows any port, and records a refused connection without the address', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r)); // nothing listens there any more
    const res = await request(server, 'POST', '/api/v1/webhooks', {
      apiKey: t.key,
      body: { url: `http://localhost:${port}/hook`, event_types: ['*'] },
    });
    expect(res.status).toBe(201);
    const id = (res.body.webhook as { id: string }).id;
    await insertOutbox(server.dbUrls.live, t.clientId, t.prn, [envelope('gate.fired', { agent_id: 'agt_refused' })]);
    const { delivery, text } = await failedDelivery(t, id);
    expect(delivery.attempt_log.map((a) => a.error)).toEqual(['connection refused', 'connection refused']);
    expect(text).not.toMatch(/127\.0\.0\.1|::1|ECONNREFUSED/);
  });
});
