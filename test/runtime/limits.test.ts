// The richer limits over HTTP on real PostgreSQL (docs/holds.md "Limits"): each new cap at its
// edge with exact decimals (exactly at the cap approves, one cent over declines), holds counting,
// the sums surviving an actor reload, count caps, the Principal's time zone, and the budget
// events (threshold once per window, exhausted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWith, approve, decide, events, op, principal, usage } from '../fixtures/holds.js';
import { onboardAgent } from '../fixtures/onboarding.js';
import { issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let p: TestPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  p = await principal(server);
});
afterAll(async () => {
  await server?.close();
});

/** Makes every actor of the Principal reload from PostgreSQL (a thresholds change invalidates them). */
async function reload(who: TestPrincipal): Promise<void> {
  const res = await request(server, 'PUT', '/api/v1/thresholds', {
    apiKey: who.apiKey,
    body: { rapid_fire_max_count: 65_534, risk_velocity_max_count: 65_534 },
  });
  expect(res.status, res.text).toBe(200);
}

describe('amount caps at their edge', () => {
  for (const [field, reason] of [
    ['max_weekly_amount', 'weekly_limit_exceeded'],
    ['max_monthly_amount', 'monthly_limit_exceeded'],
    ['max_yearly_amount', 'yearly_limit_exceeded'],
    ['max_total_amount', 'total_limit_exceeded'],
  ] as const) {
    it(`${field}: exactly at the cap approves, one cent over declines (${reason}); holds count; reload keeps it`, async () => {
      const { agentId, mandateId } = await agentWith(server, p, { [field]: '25.53' });
      await approve(server, p, agentId, '10.00');
      const hold = await approve(server, p, agentId, '10.00', true);
      // The actor is rebuilt from the audit log and the holds: the sums are the same.
      await reload(p);
      await approve(server, p, agentId, '5.52');
      const over = await decide(server, p, agentId, '0.02');
      expect(over.decision).toBe('DECLINE');
      expect(over.reason_codes).toContain(reason);
      await approve(server, p, agentId, '0.01');
      expect((await decide(server, p, agentId, '0.01')).reason_codes).toContain(reason);
      const u = (await usage(server, p, mandateId))[field];
      expect(u).toMatchObject({ limit: 25.53, used: 15.53, held: 10, remaining: 0 });
      // Releasing the hold gives its 10.00 back, also after another reload.
      expect((await op(server, p, hold, 'release')).status).toBe(200);
      await reload(p);
      await approve(server, p, agentId, '10.00');
      expect((await decide(server, p, agentId, '0.01')).reason_codes).toContain(reason);
    });
  }

  it('rejects bad limits with a clear error', async () => {
    const { agentId } = await agentWith(server, p, {});
    const bad = await request(server, 'POST', '/api/v1/mandates', {
      apiKey: p.apiKey,
      body: {
        agent_id: agentId,
        valid_until: new Date(Date.now() + 86_400_000).toISOString(),
        max_amount_per_transaction: '20.00',
        max_weekly_amount: '1.001',
        max_daily_count: 0,
        budget_alert_share: 1.5,
      },
    });
    const env = expectEnvelope(bad, 422, 'validation_error');
    const fields = (env.details ?? []).map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['max_daily_count', 'budget_alert_share']));
  });
});

describe('count caps', () => {
  for (const [field, reason] of [
    ['max_daily_count', 'daily_count_exceeded'],
    ['max_monthly_count', 'monthly_count_exceeded'],
  ] as const) {
    it(`${field}: the last allowed approves, the next declines (${reason}); a released hold gives its count back`, async () => {
      const { agentId, mandateId } = await agentWith(server, p, { [field]: 3 });
      await approve(server, p, agentId, '1.00');
      const hold = await approve(server, p, agentId, '1.00', true);
      await reload(p);
      await approve(server, p, agentId, '1.00');
      expect((await decide(server, p, agentId, '1.00')).reason_codes).toContain(reason);
      expect((await usage(server, p, mandateId))[field]).toMatchObject({ limit: 3, used: 2, held: 1, remaining: 0 });
      expect((await op(server, p, hold, 'release')).status).toBe(200);
      await approve(server, p, agentId, '1.00');
      expect((await decide(server, p, agentId, '1.00')).reason_codes).toContain(reason);
    });
  }
});

describe('onboarding plane', () => {
  it('accepts the new limits inside `limits` and enforces them', async () => {
    const client = await provisionClient(server);
    const o = await onboardAgent(server, client.liveKey, client.programId, {
      mandate: {
        rails: ['card'],
        limits: {
          max_amount_per_transaction: '20.00',
          max_daily_amount: '1000.00',
          currency: 'USD',
          max_weekly_amount: '15.00',
          max_daily_count: 5,
          hold_expiry_seconds: 3600,
        },
      },
    });
    const { apiKey } = await issuePrincipalKey(server, o.principalId, 'live');
    const who = { ...p, principalId: o.principalId, apiKey };
    await reload(who);
    const m = await request(server, 'GET', `/api/v1/mandates/${o.mandateId}`, { apiKey });
    expect(m.body).toMatchObject({ max_weekly_amount: 15, max_daily_count: 5, hold_expiry_seconds: 3600 });
    const held = await decide(server, who, o.agentId, '10.00', { capture_method: 'manual' });
    expect(held.status).toBe('HELD');
    expect(Math.abs(Date.parse(held.hold_expires_at as string) - (Date.now() + 3_600_000))).toBeLessThan(60_000);
    await approve(server, who, o.agentId, '5.00');
    expect((await decide(server, who, o.agentId, '0.01')).reason_codes).toContain('weekly_limit_exceeded');
  });
});

describe("the Principal's time zone", () => {
  it('is UTC by default, settable to an IANA zone, refused otherwise; day windows start at local midnight', async () => {
    const who = await principal(server);
    const path = `/api/v1/principals/${who.principalId}/timezone`;
    expect((await request(server, 'GET', path, { apiKey: who.apiKey })).body).toEqual({
      principal_id: who.principalId,
      timezone: 'UTC',
    });
    expectEnvelope(
      await request(server, 'PUT', path, { apiKey: who.apiKey, body: { timezone: 'Mars/Olympus' } }),
      422,
      'invalid_timezone',
    );
    expectEnvelope(
      await request(server, 'PUT', `/api/v1/principals/${p.principalId}/timezone`, {
        apiKey: who.apiKey,
        body: { timezone: 'UTC' },
      }),
      404,
      'principal_not_found',
    );
    const { agentId, mandateId } = await agentWith(server, who, { max_daily_amount: '30.00', max_weekly_amount: '50' });
    await approve(server, who, agentId, '10.00');
    const utc = await usage(server, who, mandateId);
    expect(utc.max_daily_amount?.window_start).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);

    // UTC+14 all year (no daylight saving): local midnight is 10:00 UTC of the day before.
    const set = await request(server, 'PUT', path, { apiKey: who.apiKey, body: { timezone: 'Pacific/Kiritimati' } });
    expect(set.status, set.text).toBe(200);
    const local = new Date(Date.now() + 14 * 3_600_000).toISOString().slice(0, 10);
    const expected = new Date(Date.parse(`${local}T00:00:00.000Z`) - 14 * 3_600_000).toISOString();
    const kiritimati = await usage(server, who, mandateId);
    expect(kiritimati.max_daily_amount?.window_start).toBe(expected);
    // The agent's next decision counts in the new zone's windows (the actor reloaded).
    const res = await decide(server, who, agentId, '10.00');
    expect(res.decision).toBe('APPROVE');
    expect(kiritimati.max_weekly_amount?.window).toBe('week');
  });

  it('caps count in the local calendar day, also after a reload (sums read from the audit log)', async () => {
    const who = await principal(server);
    const path = `/api/v1/principals/${who.principalId}/timezone`;
    expect((await request(server, 'PUT', path, { apiKey: who.apiKey, body: { timezone: 'Asia/Tokyo' } })).status).toBe(
      200,
    );
    const { agentId } = await agentWith(server, who, { max_daily_amount: '30.00', max_daily_count: 4 });
    await approve(server, who, agentId, '10.00');
    await approve(server, who, agentId, '10.00', true);
    await reload(who);
    await approve(server, who, agentId, '9.99');
    await approve(server, who, agentId, '0.01');
    const over = await decide(server, who, agentId, '0.01');
    expect(over.reason_codes).toContain('daily_limit_exceeded');
    expect(over.reason_detail).toContain('Asia/Tokyo');
  });
});

describe('budget events', () => {
  it('budget.threshold_reached once per cap and window at the alert share; budget.exhausted when used up', async () => {
    const { agentId, mandateId } = await agentWith(server, p, {
      max_daily_amount: '30.00',
      max_daily_count: 10,
      budget_alert_share: 0.5,
    });
    await approve(server, p, agentId, '10.00');
    expect(await events(server, 'budget.threshold_reached', { mandate_id: mandateId })).toHaveLength(0);
    await approve(server, p, agentId, '5.00', true);
    let reached = await events(server, 'budget.threshold_reached', { mandate_id: mandateId });
    expect(reached).toHaveLength(1);
    expect(reached[0]).toMatchObject({
      cap: 'max_daily_amount',
      window: 'day',
      limit: '30',
      used: '15',
      remaining: '15',
      share: 0.5,
    });
    await reload(p);
    await approve(server, p, agentId, '10.00');
    reached = await events(server, 'budget.threshold_reached', { mandate_id: mandateId });
    expect(reached).toHaveLength(1);
    await approve(server, p, agentId, '5.00');
    const exhausted = await events(server, 'budget.exhausted', { mandate_id: mandateId });
    expect(exhausted).toHaveLength(1);
    expect(exhausted[0]).toMatchObject({ cap: 'max_daily_amount', used: '30', remaining: '0' });
    await decide(server, p, agentId, '1.00');
    expect(await events(server, 'budget.exhausted', { mandate_id: mandateId })).toHaveLength(1);
    // Webhook catalog lists the new types.
    const catalog = await request(server, 'GET', '/api/v1/webhooks/events');
    const types = JSON.stringify(catalog.body);
    for (const t of [
      'authorization.captured',
      'authorization.released',
      'authorization.expired',
      'authorization.refunded',
      'budget.threshold_reached',
      'budget.exhausted',
    ]) {
      expect(types).toContain(t);
    }
  });
});
