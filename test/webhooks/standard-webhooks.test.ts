// Standard Webhooks, all the way (issue 17), over HTTP on real PostgreSQL with real decisions:
// - deliveries verify with the official `standardwebhooks` package, as a receiver would;
// - POST /webhooks/{id}/rotate-secret: during the grace period both the new and the previous
//   secret verify (two `v1,` entries), and the previous one no longer does afterwards;
// - a delivery that runs out of retries is announced by webhook.delivery_exhausted (to the
//   webhooks subscribed to it, and in the outbox that feeds NATS), never for that event itself;
// - POST /webhooks/{id}/redeliver {from, to}: the receiver that was down gets the failed
//   deliveries of the range again, bounded per call.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, query, setup } from '../fixtures/engine-setup.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { type ReceivedRequest, type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let server: TestServer;
let receiver: Receiver;
/** Paths whose receiver is down (answers 503). */
const down = new Set<string>();

beforeAll(async () => {
  server = await startTestServer({
    // Three attempts, quickly; the failing webhook is never disabled in these tests.
    WEBHOOK_RETRY_SCHEDULE_MS: '150,150',
    WEBHOOK_DISABLE_AFTER: '1000',
    WEBHOOK_TIMEOUT_MS: '3000',
  });
  receiver = await startReceiver((r) => (down.has(r.path) ? 503 : 200));
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const LIMITS = { limits: { max_amount_per_transaction: '20.00', max_daily_amount: '1000.00', currency: 'USD' } };

async function webhook(fx: EngineFixture, path: string, eventTypes: string[]): Promise<{ id: string; secret: string }> {
  const res = await request(server, 'POST', '/api/v1/webhooks', {
    apiKey: fx.apiKey,
    body: { url: `${receiver.url}${path}`, event_types: eventTypes },
  });
  expect(res.status, res.text).toBe(201);
  return { id: (res.body.webhook as { id: string }).id, secret: res.body.signing_secret as string };
}

/** A real DECLINE (over the per-transaction limit): its events go out through the outbox. */
async function decline(fx: EngineFixture): Promise<string> {
  const res = await authorize(server, fx.apiKey, authorizeBody(fx.agentId, { amount: 25 }));
  expect(res.body.decision).toBe('DECLINE');
  return res.body.authorization_id as string;
}

const headersOf = (r: ReceivedRequest) => r.headers as Record<string, string>;
const at = (path: string, type?: string) => (r: ReceivedRequest) =>
  r.path === path &&
  (type === undefined || (r.headers['webhook-id'] !== undefined && JSON.parse(r.body).event_type === type));

function verifies(secret: string, r: ReceivedRequest): boolean {
  try {
    new Webhook(secret).verify(r.body, headersOf(r));
    return true;
  } catch {
    return false;
  }
}

describe('Standard Webhooks signatures', () => {
  it('a delivery verifies with the official standardwebhooks package', async () => {
    const fx = await setup(server, LIMITS);
    const hook = await webhook(fx, '/std-a', ['authorization.decline']);
    const authorizationId = await decline(fx);
    const [got] = await receiver.waitFor(1, 10_000, at('/std-a'));
    const r = got as ReceivedRequest;
    const payload = new Webhook(hook.secret).verify(r.body, headersOf(r)) as Record<string, unknown>;
    expect(payload.event_type).toBe('authorization.decline');
    expect(payload.event_id).toBe(r.headers['webhook-id']);
    expect((payload.data as { authorization_id: string }).authorization_id).toBe(authorizationId);
    // Another secret does not verify it, nor does an altered body.
    expect(verifies('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', r)).toBe(false);
    expect(verifies(hook.secret, { ...r, body: `${r.body} ` })).toBe(false);
  });

  it('across a secret rotation: both secrets verify during the grace period, the old one not after', async () => {
    const fx = await setup(server, LIMITS);
    const hook = await webhook(fx, '/std-rot', ['authorization.decline']);
    const rotated = await request(server, 'POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, {
      apiKey: fx.apiKey,
      body: { grace_period_seconds: 5 },
    });
    expect(rotated.status, rotated.text).toBe(200);
    const fresh = rotated.body.signing_secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(hook.secret);
    const until = Date.parse(rotated.body.previous_secret_expires_at as string);
    expect(until - Date.now()).toBeGreaterThan(1_000);
    expect(until - Date.now()).toBeLessThanOrEqual(5_500);

    await decline(fx);
    const [during] = (await receiver.waitFor(1, 10_000, at('/std-rot'))) as ReceivedRequest[];
    const entries = String(during?.headers['webhook-signature']).split(' ');
    expect(entries).toHaveLength(2);
    for (const e of entries) expect(e).toMatch(/^v1,/);
    expect(verifies(fresh, during as ReceivedRequest)).toBe(true);
    expect(verifies(hook.secret, during as ReceivedRequest)).toBe(true);

    await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now()) + 300));
    await decline(fx);
    const after = (await receiver.waitFor(2, 10_000, at('/std-rot')))[1] as ReceivedRequest;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(fresh, after)).toBe(true);
    expect(verifies(hook.secret, after)).toBe(false);
    // The legacy X-Mandate-Signature follows the new secret.
    const security = await query(
      server,
      'live',
      (sql) => sql<{ action: string }[]>`select action from security_log where target_id = ${hook.id} order by id`,
    );
    expect(security.map((s) => s.action)).toContain('webhook.secret_rotated');
  });

  it('rotate-secret: the default grace is 24 h, and bad input or another Principal’s webhook is refused', async () => {
    const fx = await setup(server, LIMITS);
    const hook = await webhook(fx, '/std-def', ['authorization.decline']);
    const res = await request(server, 'POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, { apiKey: fx.apiKey });
    expect(res.status, res.text).toBe(200);
    const left = Date.parse(res.body.previous_secret_expires_at as string) - Date.now();
    expect(Math.abs(left - 86_400_000)).toBeLessThan(60_000);
    expectEnvelope(
      await request(server, 'POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, {
        apiKey: fx.apiKey,
        body: { grace_period_seconds: -1 },
      }),
      422,
      'validation_error',
    );
    const other = await setup(server, LIMITS);
    expectEnvelope(
      await request(server, 'POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, { apiKey: other.apiKey }),
      404,
      'webhook_not_found',
    );
  });
});

describe('exhausted deliveries and redelivery of a time range', () => {
  let fx: EngineFixture;
  let failing: { id: string; secret: string };
  let ops: { id: string; secret: string };
  let from: string;

  async function deliveries(webhookId: string): Promise<{ event_type: string; status: string }[]> {
    return query(
      server,
      'live',
      (sql) =>
        sql<{ event_type: string; status: string }[]>`
        select event_type, status from webhook_deliveries where webhook_id = ${webhookId} order by id`,
    );
  }

  async function settled(webhookId: string, count: number): Promise<{ event_type: string; status: string }[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const rows = await deliveries(webhookId);
      if (rows.length >= count && rows.every((r) => r.status !== 'pending')) return rows;
      if (Date.now() > deadline) throw new Error(`deliveries not settled: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('a delivery out of retries is announced once, to the subscribers and the outbox; its own announcement is not', async () => {
    fx = await setup(server, LIMITS);
    from = new Date(Date.now() - 1_000).toISOString();
    down.add('/down');
    // The failing webhook takes every event type, webhook.delivery_exhausted included.
    failing = await webhook(fx, '/down', ['*']);
    ops = await webhook(fx, '/ops', ['webhook.delivery_exhausted']);
    await decline(fx);
    await decline(fx);
    // The webhook events the two declines recorded (each decline and its gates): the failing
    // webhook gets every one of them, and each runs out of retries.
    const recorded = await query(
      server,
      'live',
      (sql) =>
        sql<{ event_type: string }[]>`select event_type from outbox_events where principal_id = ${fx.principalId}
        and event_type not in ('authorization.decided', 'webhook.delivery_exhausted')`,
    );
    expect(recorded.filter((e) => e.event_type === 'authorization.decline')).toHaveLength(2);
    const originals = recorded;
    const announced = await receiver.waitFor(originals.length, 15_000, at('/ops'));
    for (const r of announced) {
      const payload = new Webhook(ops.secret).verify(r.body, headersOf(r)) as {
        event_type: string;
        data: Record<string, unknown>;
      };
      expect(payload.event_type).toBe('webhook.delivery_exhausted');
      expect(payload.data).toMatchObject({
        webhook_id: failing.id,
        url: `${receiver.url}/down`,
        attempts: 3,
        last_status_code: 503,
        reason: 'retries_exhausted',
      });
      expect(originals.map((o) => o.event_type)).toContain(payload.data.event_type);
    }
    // The failing webhook got the announcements too (it subscribes to *), and they failed as
    // well: everything settles with one announcement per original, none for an announcement.
    const all = await settled(failing.id, originals.length * 2);
    expect(all.filter((d) => d.event_type === 'webhook.delivery_exhausted')).toHaveLength(originals.length);
    expect(all.every((d) => d.status === 'failed')).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    const outbox = await query(
      server,
      'live',
      (sql) =>
        sql<{ n: number }[]>`select count(*)::int as n from outbox_events
        where principal_id = ${fx.principalId} and event_type = 'webhook.delivery_exhausted'`,
    );
    expect(outbox[0]?.n).toBe(originals.length);
    expect(receiver.requests.filter(at('/ops'))).toHaveLength(originals.length);
  });

  it('redelivers the failed deliveries of a time range once the receiver is back, bounded per call', async () => {
    const failed = (await deliveries(failing.id)).filter((d) => d.status === 'failed');
    expect(failed.length).toBeGreaterThanOrEqual(4);
    down.delete('/down');
    const before = receiver.requests.filter(at('/down')).length;
    const to = new Date(Date.now() + 1_000).toISOString();
    const first = await request(server, 'POST', `/api/v1/webhooks/${failing.id}/redeliver`, {
      apiKey: fx.apiKey,
      body: { from, to, limit: 2 },
    });
    expect(first.status, first.text).toBe(202);
    expect(first.body).toMatchObject({ status: 'queued', webhook_id: failing.id, queued: 2, more: true });
    const next = first.body.next_from as string;
    expect(Date.parse(next)).toBeGreaterThanOrEqual(Date.parse(from));
    const rest = await request(server, 'POST', `/api/v1/webhooks/${failing.id}/redeliver`, {
      apiKey: fx.apiKey,
      body: { from: next, to },
    });
    expect(rest.status, rest.text).toBe(202);
    expect(rest.body).toMatchObject({ queued: failed.length - 2, more: false, next_from: null });
    const got = (await receiver.waitFor(before + failed.length, 15_000, at('/down'))).slice(before);
    for (const r of got) expect(verifies(failing.secret, r)).toBe(true);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(failed.length);
    const after = await settled(failing.id, failed.length);
    expect(after.every((d) => d.status === 'succeeded')).toBe(true);
    // A range with nothing failed in it queues nothing.
    const none = await request(server, 'POST', `/api/v1/webhooks/${failing.id}/redeliver`, {
      apiKey: fx.apiKey,
      body: { from, to },
    });
    expect(none.body).toMatchObject({ queued: 0, more: false, next_from: null });
  });

  it('keeps the single-event form, and refuses a body that is neither or both', async () => {
    const path = `/api/v1/webhooks/${failing.id}/redeliver`;
    const [one] = await query(
      server,
      'live',
      (sql) =>
        sql<{ event_id: string }[]>`select event_id from webhook_deliveries where webhook_id = ${failing.id} limit 1`,
    );
    const single = await request(server, 'POST', path, { apiKey: fx.apiKey, body: { event_id: one?.event_id } });
    expect(single.status, single.text).toBe(202);
    expect(single.body).toMatchObject({ status: 'queued', event_id: one?.event_id, queued: 1 });
    const missing = expectEnvelope(
      await request(server, 'POST', path, { apiKey: fx.apiKey, body: {} }),
      422,
      'validation_error',
    );
    expect(missing.details?.map((d) => d.field).sort()).toEqual(['from', 'to']);
    const both = expectEnvelope(
      await request(server, 'POST', path, { apiKey: fx.apiKey, body: { event_id: 'evt_x', from, to: from } }),
      422,
      'validation_error',
    );
    expect(both.details?.map((d) => d.field)).toEqual(['event_id']);
    const backwards = expectEnvelope(
      await request(server, 'POST', path, { apiKey: fx.apiKey, body: { from: new Date().toISOString(), to: from } }),
      422,
      'validation_error',
    );
    expect(backwards.details?.map((d) => d.field)).toEqual(['to']);
    expectEnvelope(
      await request(server, 'POST', path, {
        apiKey: fx.apiKey,
        body: { from, to: new Date().toISOString(), limit: 1001 },
      }),
      422,
      'validation_error',
    );
  });
});
