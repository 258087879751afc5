// The webhooks API of SPEC.md "Webhooks (Principal)" over HTTP: create (secret once), list with
// a cursor, get, patch, delete, the test send and the public catalog.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let server: TestServer;
let receiver: Receiver;
let key: string;
let otherKey: string;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  const client = await provisionClient(server);
  const prn = await insertPrincipalRow(server, 'live', client.clientId, client.programId);
  const other = await insertPrincipalRow(server, 'live', client.clientId, client.programId);
  key = (await issuePrincipalKey(server, prn, 'live')).apiKey;
  otherKey = (await issuePrincipalKey(server, other, 'live')).apiKey;
});

afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

async function create(body: Record<string, unknown>, apiKey = key) {
  return request(server, 'POST', '/api/v1/webhooks', { apiKey, body });
}

describe('POST /api/v1/webhooks', () => {
  it('creates an active webhook and returns the whsec_ secret once', async () => {
    const res = await create({
      url: `${receiver.url}/a`,
      event_types: ['gate.fired', 'kya.zone.red'],
      description: 'ops',
    });
    expect(res.status).toBe(201);
    const webhook = res.body.webhook as Record<string, unknown>;
    expect(webhook).toMatchObject({
      url: `${receiver.url}/a`,
      event_types: ['gate.fired', 'kya.zone.red'],
      description: 'ops',
      active: true,
      consecutive_failures: 0,
      last_delivery_at: null,
      last_status_code: null,
    });
    expect(webhook.id).toMatch(/^wh_/);
    expect(res.body.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const got = await request(server, 'GET', `/api/v1/webhooks/${webhook.id}`, { apiKey: key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(webhook);
    expect(got.text).not.toContain('whsec_');
  });

  it('refuses a bad body with 422 validation_error naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ url: `${receiver.url}/x`, event_types: [] }, 'event_types'],
      [{ url: `${receiver.url}/x`, event_types: ['gate.exploded'] }, 'event_types.0'],
      [{ event_types: ['*'] }, 'url'],
      [{ url: `${receiver.url}/${'a'.repeat(2048)}`, event_types: ['*'] }, 'url'],
      [{ url: `${receiver.url}/x`, event_types: ['*'], description: 'd'.repeat(256) }, 'description'],
    ];
    for (const [body, field] of cases) {
      const env = expectEnvelope(await create(body), 422, 'validation_error');
      expect(env.details?.map((d) => d.field)).toContain(field);
    }
  });

  it('refuses a URL that is not http(s) with 422 invalid_webhook_url', async () => {
    for (const url of ['ftp://example.com/x', 'not a url', 'https://user:pw@example.com/x']) {
      expectEnvelope(await create({ url, event_types: ['*'] }), 422, 'invalid_webhook_url');
    }
  });

  it('is refused without a Principal API key', async () => {
    expectEnvelope(
      await request(server, 'POST', '/api/v1/webhooks', { body: { url: receiver.url, event_types: ['*'] } }),
      401,
    );
  });
});

describe('GET /api/v1/webhooks', () => {
  it("pages with a cursor and shows only the caller's webhooks", async () => {
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await create({ url: `${receiver.url}/p${i}`, event_types: ['*'] }, otherKey);
      mine.push((res.body.webhook as { id: string }).id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const qs: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
      const res = await request<{ items: { id: string }[]; next_cursor: string | null }>(
        server,
        'GET',
        `/api/v1/webhooks${qs}`,
        { apiKey: otherKey },
      );
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((w) => w.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(seen).toEqual(mine);
    expect(pages).toBe(3);
    const foreign = await request(server, 'GET', `/api/v1/webhooks/${mine[0]}`, { apiKey: key });
    expectEnvelope(foreign, 404, 'webhook_not_found');
    expectEnvelope(await request(server, 'GET', '/api/v1/webhooks?limit=0', { apiKey: key }), 422, 'validation_error');
  });
});

describe('PATCH and DELETE /api/v1/webhooks/:id', () => {
  it('400 no_fields_to_update with an empty body; updates the given fields', async () => {
    const res = await create({ url: `${receiver.url}/patch`, event_types: ['gate.fired'] });
    const id = (res.body.webhook as { id: string }).id;
    expectEnvelope(
      await request(server, 'PATCH', `/api/v1/webhooks/${id}`, { apiKey: key, body: {} }),
      400,
      'no_fields_to_update',
    );
    const patched = await request(server, 'PATCH', `/api/v1/webhooks/${id}`, {
      apiKey: key,
      body: { event_types: ['*'], description: 'all', active: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id,
      event_types: ['*'],
      description: 'all',
      active: false,
      url: `${receiver.url}/patch`,
    });
    expectEnvelope(
      await request(server, 'PATCH', `/api/v1/webhooks/${id}`, { apiKey: otherKey, body: { active: true } }),
      404,
      'webhook_not_found',
    );
    expectEnvelope(
      await request(server, 'PATCH', `/api/v1/webhooks/${id}`, { apiKey: key, body: { url: 'gopher://x' } }),
      422,
      'invalid_webhook_url',
    );
  });

  it('DELETE answers 204 with an empty body, then 404', async () => {
    const res = await create({ url: `${receiver.url}/del`, event_types: ['*'] });
    const id = (res.body.webhook as { id: string }).id;
    const del = await request(server, 'DELETE', `/api/v1/webhooks/${id}`, { apiKey: key });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectEnvelope(await request(server, 'GET', `/api/v1/webhooks/${id}`, { apiKey: key }), 404, 'webhook_not_found');
    expectEnvelope(
      await request(server, 'DELETE', `/api/v1/webhooks/${id}`, { apiKey: key }),
      404,
      'webhook_not_found',
    );
  });
});

describe('POST /api/v1/webhooks/:id/test', () => {
  it('sends a signed sample with test: true to an active webhook', async () => {
    const res = await create({ url: `${receiver.url}/test`, event_types: ['cts.red'] });
    const id = (res.body.webhook as { id: string }).id;
    const secret = res.body.signing_secret as string;
    const before = receiver.requests.length;
    const sent = await request(server, 'POST', `/api/v1/webhooks/${id}/test?event_type=kya.zone.red`, { apiKey: key });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: 'delivered', event_type: 'kya.zone.red' });
    expect(typeof sent.body.message).toBe('string');
    const got = receiver.requests.slice(before).find((r) => r.path === '/test');
    expect(got).toBeDefined();
    const body = JSON.parse(got?.body ?? '{}');
    expect(body).toMatchObject({ event_type: 'kya.zone.red', test: true, data: { test: true, current_zone: 'RED' } });
    expect(got?.headers['x-mandate-signature']).toBe(
      createHmac('sha256', secret)
        .update(got?.body ?? '')
        .digest('hex'),
    );
    const defaulted = await request(server, 'POST', `/api/v1/webhooks/${id}/test`, { apiKey: key });
    expect(defaulted.body).toMatchObject({ status: 'delivered', event_type: 'gate.fired' });
    expectEnvelope(
      await request(server, 'POST', `/api/v1/webhooks/${id}/test?event_type=nope`, { apiKey: key }),
      422,
      'validation_error',
    );
  });

  it('reports a receiver failure, and refuses an inactive webhook with 422 webhook_inactive', async () => {
    const res = await create({ url: `${receiver.url}/fail`, event_types: ['*'] });
    const id = (res.body.webhook as { id: string }).id;
    receiver.respond = (r) => (r.path === '/fail' ? 500 : 200);
    const sent = await request(server, 'POST', `/api/v1/webhooks/${id}/test`, { apiKey: key });
    receiver.respond = () => 200;
    expect(sent.body).toMatchObject({ status: 'failed', status_code: 500 });
    await request(server, 'PATCH', `/api/v1/webhooks/${id}`, { apiKey: key, body: { active: false } });
    expectEnvelope(
      await request(server, 'POST', `/api/v1/webhooks/${id}/test`, { apiKey: key }),
      422,
      'webhook_inactive',
    );
  });
});

describe('GET /api/v1/webhooks/events', () => {
  it('is public and lists every type with a sample payload, and the wildcard', async () => {
    const res = await request<{
      event_types: { type: string; description: string; sample_payload: object }[];
      wildcard: string;
    }>(server, 'GET', '/api/v1/webhooks/events');
    expect(res.status).toBe(200);
    expect(res.body.event_types.map((e) => e.type).sort()).toEqual([
      'ap2_mandate.consumed',
      'ap2_mandate.imported',
      'ap2_mandate.refused',
      'authorization.captured',
      'authorization.decline',
      'authorization.expired',
      'authorization.refunded',
      'authorization.released',
      'authorization.voided',
      'budget.exhausted',
      'budget.threshold_reached',
      'cts.critical',
      'cts.red',
      'gate.fired',
      'mandate.revoked',
      'mandate.updated',
      'principal_budget.exhausted',
      'principal_budget.threshold_reached',
      'session.terminate',
      'step_up.confirmed',
      'step_up.created',
      'step_up.declined',
      'trust.promotion',
      'webhook.delivery_exhausted',
    ]);
    const gate = res.body.event_types.find((e) => e.type === 'gate.fired');
    expect(Object.keys(gate?.sample_payload ?? {}).sort()).toEqual([
      'agent_id',
      'amount',
      'authorization_id',
      'currency',
      'decision',
      'gate',
      'merchant',
      'risk_score',
      'trust_score',
    ]);
    expect(res.body.wildcard).toContain('*');
  });
});
