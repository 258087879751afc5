// Holds over HTTP on real PostgreSQL (docs/holds.md): a manual APPROVE is HELD and counts against
// the caps at once; capture (full and partial), release and refund give budget back as
// documented; only the owning Principal may act; Idempotency-Key replays; a capture racing a
// release has exactly one winner; the events reach the outbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../fixtures/engine-setup.js';
import { agentWith, approve, decide, events, op, principal, usage } from '../fixtures/holds.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let server: TestServer;
let p: TestPrincipal;
let receiver: Receiver;

beforeAll(async () => {
  // The expiry sweep runs only at start here: a hold past its expiry stays HELD until then
  // (test/drills/holds-expiry.test.ts runs the sweep).
  server = await startTestServer({ HOLD_EXPIRY_SWEEP_MS: '3600000' });
  p = await principal(server);
  receiver = await startReceiver();
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe('holds', () => {
  it('a manual APPROVE is HELD, in the log and the response; capture takes all of it by default', async () => {
    const { agentId } = await agentWith(server, p, { max_daily_amount: '100.00' });
    const res = await decide(server, p, agentId, '10.00', { capture_method: 'manual' });
    expect(res).toMatchObject({ decision: 'APPROVE', capture_method: 'manual', status: 'HELD' });
    const expires = Date.parse(res.hold_expires_at as string);
    // Default expiry: 7 days.
    expect(Math.abs(expires - (Date.now() + 7 * 86_400_000))).toBeLessThan(60_000);
    const id = res.authorization_id as string;
    let log = await request(server, 'GET', `/api/v1/authorize/log/${id}`, { apiKey: p.apiKey });
    expect(log.body).toMatchObject({ status: 'HELD', capture_method: 'manual' });

    const cap = await op(server, p, id, 'capture');
    expect(cap.status, cap.text).toBe(200);
    expect(cap.body).toEqual({ authorization_id: id, status: 'CAPTURED', captured_amount: 10, released_amount: 0 });
    log = await request(server, 'GET', `/api/v1/authorize/log/${id}`, { apiKey: p.apiKey });
    expect(log.body.status).toBe('CAPTURED');
    // A second capture, a release after it: the hold is no longer HELD.
    expectEnvelope(await op(server, p, id, 'capture'), 409, 'hold_not_active');
    expectEnvelope(await op(server, p, id, 'release'), 409, 'hold_not_active');
    const [captured] = await events(server, 'authorization.captured', { authorization_id: id });
    expect(captured).toMatchObject({ agent_id: agentId, captured_amount: '10', released_amount: '0', currency: 'USD' });

    // An automatic APPROVE is CAPTURED and is not a hold.
    const auto = await approve(server, p, agentId, '5.00');
    expectEnvelope(await op(server, p, auto, 'capture'), 409, 'authorization_not_held');
    log = await request(server, 'GET', `/api/v1/authorize/log/${auto}`, { apiKey: p.apiKey });
    expect(log.body).toMatchObject({ status: 'CAPTURED', capture_method: 'automatic' });
  });

  it('a partial capture releases the rest to the budget; usage shows used, held and remaining', async () => {
    const { agentId, mandateId } = await agentWith(server, p, { max_daily_amount: '30.00' });
    const a = await approve(server, p, agentId, '10.00', true);
    const b = await approve(server, p, agentId, '12.50', true);
    let u = await usage(server, p, mandateId);
    expect(u.max_daily_amount).toMatchObject({ window: 'day', limit: 30, used: 0, held: 22.5, remaining: 7.5 });

    const cap = await op(server, p, a, 'capture', { amount: '3.99' });
    expect(cap.body).toEqual({ authorization_id: a, status: 'CAPTURED', captured_amount: 3.99, released_amount: 6.01 });
    u = await usage(server, p, mandateId);
    expect(u.max_daily_amount).toMatchObject({ used: 3.99, held: 12.5, remaining: 13.51 });
    expectEnvelope(await op(server, p, b, 'capture', { amount: '12.51' }), 422, 'amount_exceeds_hold');
    expectEnvelope(await op(server, p, b, 'capture', { amount: '0' }), 422, 'validation_error');
    expectEnvelope(await op(server, p, b, 'capture', { amount: '1.001' }), 422, 'validation_error');

    // The 6.01 released counts at once: 3.99 + 12.50 + 13.51 = 30.00 exactly is approved...
    await approve(server, p, agentId, '13.51', true);
    // ...and one cent more is declined.
    const over = await decide(server, p, agentId, '0.01', { capture_method: 'manual' });
    expect(over).toMatchObject({ decision: 'DECLINE', status: null });
    expect(over.reason_codes).toContain('daily_limit_exceeded');
  });

  it('holds at two merchants share one daily cap; a release gives its whole amount back', async () => {
    const { agentId } = await agentWith(server, p, { max_daily_amount: '30.00' });
    const first = await decide(server, p, agentId, '15.00', { capture_method: 'manual', merchant_name: 'Shop A' });
    const second = await decide(server, p, agentId, '15.00', { capture_method: 'manual', merchant_name: 'Shop B' });
    expect([first.status, second.status]).toEqual(['HELD', 'HELD']);
    const third = await decide(server, p, agentId, '0.01', { merchant_name: 'Shop C' });
    expect(third.reason_codes).toContain('daily_limit_exceeded');

    expect((await op(server, p, first.authorization_id as string, 'capture')).status).toBe(200);
    const rel = await op(server, p, second.authorization_id as string, 'release');
    expect(rel.body).toEqual({ authorization_id: second.authorization_id, status: 'RELEASED', released_amount: 15 });
    const [released] = await events(server, 'authorization.released', {
      authorization_id: second.authorization_id as string,
    });
    expect(released).toMatchObject({ released_amount: '15', status: 'RELEASED' });
    // 15 captured + 15 free again: exactly 15.00 more is approved, then the cap is full.
    await approve(server, p, agentId, '15.00');
    expect((await decide(server, p, agentId, '0.01')).reason_codes).toContain('daily_limit_exceeded');
  });

  it('refunds are recorded, bounded by what was captured, and give the budget back in the original window', async () => {
    const { agentId } = await agentWith(server, p, { max_daily_amount: '30.00' });
    const auto = await approve(server, p, agentId, '10.00');
    const held = await approve(server, p, agentId, '10.00', true);
    expectEnvelope(await op(server, p, held, 'refund', {}), 409, 'authorization_not_refundable');
    await approve(server, p, agentId, '10.00');
    expect((await decide(server, p, agentId, '0.01')).reason_codes).toContain('daily_limit_exceeded');

    const r1 = await op(server, p, auto, 'refund', { amount: '4.00' });
    expect(r1.status, r1.text).toBe(200);
    expect(r1.body).toMatchObject({ authorization_id: auto, status: 'CAPTURED', refund_amount: 4, refunded_amount: 4 });
    expect(String(r1.body.refund_id)).toMatch(/^rfd_/);
    expectEnvelope(await op(server, p, auto, 'refund', { amount: '6.01' }), 422, 'amount_exceeds_captured');
    const r2 = await op(server, p, auto, 'refund');
    expect(r2.body).toMatchObject({ refund_amount: 6, refunded_amount: 10, captured_amount: 10 });
    expectEnvelope(await op(server, p, auto, 'refund'), 422, 'amount_exceeds_captured');
    const rows = await query(
      server,
      'live',
      (sql) =>
        sql<{ kind: string; amount: string }[]>`select kind, amount::text from budget_credits
        where authorization_id = ${auto} order by created_at`,
    );
    expect(rows.map((r) => [r.kind, Number(r.amount)])).toEqual([
      ['refund', 4],
      ['refund', 6],
    ]);
    expect(await events(server, 'authorization.refunded', { authorization_id: auto })).toHaveLength(2);
    // The 10.00 refunded is spendable again today: exactly 10.00 more, then nothing.
    await approve(server, p, agentId, '10.00');
    expect((await decide(server, p, agentId, '0.01')).reason_codes).toContain('daily_limit_exceeded');
    // A captured hold can be refunded too.
    expect((await op(server, p, held, 'capture', { amount: '7.00' })).status).toBe(200);
    expectEnvelope(await op(server, p, held, 'refund', { amount: '7.01' }), 422, 'amount_exceeds_captured');
    expect((await op(server, p, held, 'refund', { amount: '7' })).status).toBe(200);
  });

  it('only the owning Principal may act: anyone else gets 404', async () => {
    const { agentId } = await agentWith(server, p, {});
    const id = await approve(server, p, agentId, '10.00', true);
    const other = await principal(server);
    for (const action of ['capture', 'release', 'refund'] as const) {
      expectEnvelope(await op(server, other, id, action), 404, 'authorization_not_found');
    }
    expectEnvelope(await op(server, p, 'auth_doesnotexist000000000000', 'capture'), 404, 'authorization_not_found');
    // Still HELD: the owner can release it.
    expect((await op(server, p, id, 'release')).status).toBe(200);
  });

  it('each operation is idempotent with Idempotency-Key', async () => {
    const { agentId } = await agentWith(server, p, {});
    const id = await approve(server, p, agentId, '10.00', true);
    const key = { 'idempotency-key': `cap-${id}` };
    const first = await op(server, p, id, 'capture', { amount: '4' }, key);
    const again = await op(server, p, id, 'capture', { amount: '4' }, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectEnvelope(await op(server, p, id, 'capture', { amount: '5' }, key), 422, 'idempotency_key_reuse');
    // Only one capture happened: one credit of the 6.00 released, one event.
    expect(await events(server, 'authorization.captured', { authorization_id: id })).toHaveLength(1);
    const auto = await approve(server, p, agentId, '10.00');
    const rkey = { 'idempotency-key': `ref-${auto}` };
    const r1 = await op(server, p, auto, 'refund', { amount: '2' }, rkey);
    const r2 = await op(server, p, auto, 'refund', { amount: '2' }, rkey);
    expect(r2.body).toEqual(r1.body);
    expect(r2.body.refunded_amount).toBe(2);
  });

  it('a capture racing a release has exactly one winner, every time', async () => {
    const { agentId } = await agentWith(server, p, { max_amount_per_transaction: '1000.00' });
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await approve(server, p, agentId, '10.00', true));
    const outcomes = await Promise.all(
      ids.map(async (id, i) => {
        // Half the pairs send the capture first, half the release.
        let c: ReturnType<typeof op>;
        let r: ReturnType<typeof op>;
        if (i % 2 === 0) {
          c = op(server, p, id, 'capture', { amount: '4' });
          r = op(server, p, id, 'release');
        } else {
          r = op(server, p, id, 'release');
          c = op(server, p, id, 'capture', { amount: '4' });
        }
        const [cr, rr] = await Promise.all([c, r]);
        return { id, capture: cr.status, release: rr.status, c: cr.body, r: rr.body };
      }),
    );
    for (const o of outcomes) {
      const winners = [o.capture, o.release].filter((s) => s === 200).length;
      expect(winners, JSON.stringify(o)).toBe(1);
      const loser = o.capture === 200 ? o.r : o.c;
      expect((loser as { error: string }).error).toBe('hold_not_active');
    }
    const rows = await query(
      server,
      'live',
      (sql) =>
        sql<{ status: string; credits: number; events: number }[]>`
        select h.status, (select count(*)::int from budget_credits c where c.authorization_id = h.authorization_id) as credits,
          (select count(*)::int from outbox_events e where e.authorization_id = h.authorization_id
             and e.event_type in ('authorization.captured', 'authorization.released')) as events
        from holds h where h.authorization_id in ${sql(ids)}`,
    );
    expect(rows).toHaveLength(25);
    for (const r of rows) {
      expect(['CAPTURED', 'RELEASED']).toContain(r.status);
      // One credit (the 6.00 rest of a capture of 4, or the whole release) and one event each.
      expect(r.credits).toBe(1);
      expect(r.events).toBe(1);
    }
  });

  it('hold events reach webhooks through the outbox', async () => {
    const who = await principal(server);
    const hook = await request(server, 'POST', '/api/v1/webhooks', {
      apiKey: who.apiKey,
      body: {
        url: `${receiver.url}/holds`,
        event_types: ['authorization.captured', 'authorization.released', 'authorization.refunded', 'budget.exhausted'],
      },
    });
    expect(hook.status, hook.text).toBe(201);
    const { agentId } = await agentWith(server, who, { max_daily_amount: '20.00' });
    const a = await approve(server, who, agentId, '10.00', true);
    const b = await approve(server, who, agentId, '10.00', true);
    expect((await op(server, who, a, 'capture', { amount: '2.50' })).status).toBe(200);
    expect((await op(server, who, b, 'release')).status).toBe(200);
    expect((await op(server, who, a, 'refund')).status).toBe(200);
    const got = await receiver.waitFor(4, 15_000, (r) => r.path === '/holds');
    const byType = new Map(
      got.map((r) => {
        const e = JSON.parse(r.body) as { event_type: string; data: Record<string, unknown> };
        return [e.event_type, e.data] as const;
      }),
    );
    expect(byType.get('authorization.captured')).toMatchObject({
      authorization_id: a,
      captured_amount: '2.5',
      released_amount: '7.5',
    });
    expect(byType.get('authorization.released')).toMatchObject({ authorization_id: b, released_amount: '10' });
    expect(byType.get('authorization.refunded')).toMatchObject({ authorization_id: a, refund_amount: '2.5' });
    // The second hold used the daily cap up exactly.
    expect(byType.get('budget.exhausted')).toMatchObject({ cap: 'max_daily_amount', authorization_id: b });
  });

  it('a hold past its expiry can be neither captured nor released, and keeps counting until the sweep', async () => {
    const { agentId, mandateId } = await agentWith(server, p, { max_daily_amount: '10.00', hold_expiry_seconds: 1 });
    const res = await decide(server, p, agentId, '10.00', { capture_method: 'manual' });
    expect(res.status).toBe('HELD');
    expect(Date.parse(res.hold_expires_at as string) - Date.parse(res.timestamp as string)).toBe(1000);
    await new Promise((r) => setTimeout(r, 1_200));
    const id = res.authorization_id as string;
    expectEnvelope(await op(server, p, id, 'capture'), 409, 'hold_expired');
    expectEnvelope(await op(server, p, id, 'release'), 409, 'hold_expired');
    // Not expired by anyone yet: still held, so the cap stays used (the strict side).
    expect((await usage(server, p, mandateId)).max_daily_amount).toMatchObject({ held: 10, remaining: 0 });
    expect((await decide(server, p, agentId, '0.01')).reason_codes).toContain('daily_limit_exceeded');
  });
});
