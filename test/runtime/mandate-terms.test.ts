// The richer mandate terms over HTTP (docs/mandate-lifecycle.md "Terms"): allowed payees and the
// merchant lock, a minimum amount, an execution window with days of the week, recurrence with a
// maximum of occurrences, on both mandate planes; enforced by /authorize with their reason
// codes, kept across an actor reload (the occurrences and the lock rebuilt from the audit log),
// shown by explain, left as decided by a backtest, amended and removed by PATCH with an event.
// The edges of the calendar periods are decided at chosen instants in test/pipeline/mandate-terms.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBody } from '../fixtures/engine-setup.js';
import { agentWith, decide, events, principal } from '../fixtures/holds.js';
import { mandateBody, onboardAgent } from '../fixtures/onboarding.js';
import { issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { withDb } from '../fixtures/test-db.js';

let server: TestServer;
let p: TestPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  p = await principal(server);
});
afterAll(async () => {
  await server?.close();
});

const WEEK = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'];
/** Today's weekday in UTC (the test Principals keep the default zone), MON..SUN. */
const today = () => WEEK[(new Date().getUTCDay() + 6) % 7] as string;

let flip = 0;
/**
 * Makes every actor of the Principal reload from the database: a thresholds change invalidates
 * them (only a change: the value alternates, so every call is one).
 */
async function reload(who: TestPrincipal): Promise<void> {
  flip++;
  const res = await request(server, 'PUT', '/api/v1/thresholds', {
    apiKey: who.apiKey,
    body: { rapid_fire_max_count: 65_534 - (flip % 2), risk_velocity_max_count: 65_534 },
  });
  expect(res.status, res.text).toBe(200);
  expect(res.body.fields_changed).toContain('rapid_fire_max_count');
}

const at = (merchantId: string | null, amount = '10.00') =>
  merchantId === null ? { amount } : { amount, merchant_id: merchantId };

describe('runtime plane: create, view, enforce', () => {
  it('shows the terms, names them in mandate_hash, and leaves a mandate without them as before', async () => {
    const plain = await agentWith(server, p, {});
    const withTerms = await agentWith(server, p, {
      min_amount_per_transaction: '2.50',
      allowed_payees: ['shop_b', 'shop_a'],
      merchant_lock: true,
      execution_window: { days_of_week: ['SUN', 'MON'] },
      recurrence: { frequency: 'MONTHLY', max_occurrences: 12 },
    });
    const a = await request(server, 'GET', `/api/v1/mandates/${plain.mandateId}`, { apiKey: p.apiKey });
    expect(a.body).toMatchObject({
      min_amount_per_transaction: null,
      allowed_payees: null,
      merchant_lock: false,
      execution_window: null,
      recurrence: null,
    });
    const b = await request(server, 'GET', `/api/v1/mandates/${withTerms.mandateId}`, { apiKey: p.apiKey });
    expect(b.body).toMatchObject({
      min_amount_per_transaction: 2.5,
      allowed_payees: ['shop_a', 'shop_b'],
      merchant_lock: true,
      execution_window: { days_of_week: ['MON', 'SUN'] },
      recurrence: { frequency: 'MONTHLY', max_occurrences: 12 },
    });
    expect(b.body.mandate_hash).not.toBe(a.body.mandate_hash);
  });

  it('refuses terms it cannot hold with field errors, and creates nothing', async () => {
    const { agentId } = await agentWith(server, p, {});
    const before = await request(server, 'GET', `/api/v1/mandates/agent/${agentId}`, { apiKey: p.apiKey });
    const bad = await request(server, 'POST', '/api/v1/mandates', {
      apiKey: p.apiKey,
      body: {
        agent_id: agentId,
        valid_until: new Date(Date.now() + 86_400_000).toISOString(),
        max_amount_per_transaction: '20.00',
        min_amount_per_transaction: '25.00',
        execution_window: {
          not_before: new Date(Date.now() + 3_600_000).toISOString(),
          not_after: new Date(Date.now() + 60_000).toISOString(),
        },
      },
    });
    const env = expectEnvelope(bad, 422, 'validation_error');
    expect((env.details ?? []).map((d) => d.field)).toEqual(
      expect.arrayContaining(['min_amount_per_transaction', 'execution_window.not_after']),
    );
    for (const body of [
      { recurrence: { frequency: 'HOURLY' } },
      { execution_window: { days_of_week: ['MONDAY'] } },
      { execution_window: {} },
      { allowed_payees: [] },
    ]) {
      const res = await request(server, 'POST', '/api/v1/mandates', {
        apiKey: p.apiKey,
        body: {
          agent_id: agentId,
          valid_until: new Date(Date.now() + 86_400_000).toISOString(),
          max_amount_per_transaction: '20.00',
          ...body,
        },
      });
      expectEnvelope(res, 422, 'validation_error');
    }
    const after = await request(server, 'GET', `/api/v1/mandates/agent/${agentId}`, { apiKey: p.apiKey });
    expect(after.body.total).toBe(before.body.total);
  });

  it('minimum amount, payees and the merchant lock, kept across a reload', async () => {
    const { agentId } = await agentWith(server, p, {
      min_amount_per_transaction: '5.00',
      allowed_payees: ['shop_a', 'shop_b'],
      merchant_lock: true,
    });
    expect((await decide(server, p, agentId, '4.99', { merchant_id: 'shop_a' })).reason_codes).toEqual([
      'amount_below_minimum',
    ]);
    const none = await decide(server, p, agentId, '5.00');
    expect(none.reason_codes).toEqual(['payee_not_allowed']);
    expect(none.gates_fired).toEqual(['mandate_terms']);
    expect(none.reason_detail).toContain('no merchant_id');
    expect((await decide(server, p, agentId, '5.00', at('shop_c', '5.00'))).reason_codes).toEqual([
      'payee_not_allowed',
    ]);
    expect((await decide(server, p, agentId, '5.00', at('shop_b', '5.00'))).decision).toBe('APPROVE');
    await reload(p);
    const locked = await decide(server, p, agentId, '5.00', at('shop_a', '5.00'));
    expect(locked.reason_codes).toEqual(['payee_locked']);
    expect(locked.reason_detail).toContain('shop_b');
    expect((await decide(server, p, agentId, '6.00', at('shop_b', '6.00'))).decision).toBe('APPROVE');
  });

  it('execution window and days of the week', async () => {
    const later = await agentWith(server, p, {
      execution_window: { not_before: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect((await decide(server, p, later.agentId, '1.00')).reason_codes).toEqual(['outside_execution_window']);
    const notToday = await agentWith(server, p, {
      execution_window: { days_of_week: WEEK.filter((d) => d !== today()) },
    });
    const res = await decide(server, p, notToday.agentId, '1.00');
    // Right at midnight UTC the day may turn between the two calls: both answers name a weekday rule.
    if (res.decision === 'DECLINE') expect(res.reason_codes).toEqual(['day_of_week_not_allowed']);
    const onlyToday = await agentWith(server, p, { execution_window: { days_of_week: [today()] } });
    const ok = await decide(server, p, onlyToday.agentId, '1.00');
    if (ok.decision !== 'APPROVE') expect(ok.reason_codes).toEqual(['day_of_week_not_allowed']);
  });

  it('recurrence: one approval per month, the previous month counted in its own period, max_occurrences over the life', async () => {
    const { agentId, mandateId } = await agentWith(server, p, {
      recurrence: { frequency: 'MONTHLY', max_occurrences: 2 },
    });
    const first = await decide(server, p, agentId, '3.00');
    expect(first.decision).toBe('APPROVE');
    const again = await decide(server, p, agentId, '3.00');
    expect(again.reason_codes).toEqual(['recurrence_period_used']);
    expect(again.gates_fired).toEqual(['mandate_terms']);
    // The first approval moved to last month (as if made then): this month's period is free.
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 3_600_000);
    await withDb(
      server,
      'live',
      (sql) => sql`update authorizations set created_at = ${lastMonth} where id = ${first.authorization_id as string}`,
    );
    await reload(p);
    const second = await decide(server, p, agentId, '3.00');
    expect(second.decision, JSON.stringify(second)).toBe('APPROVE');
    await reload(p);
    const third = await decide(server, p, agentId, '3.00');
    expect(third.reason_codes).toEqual(['recurrence_max_occurrences_reached']);
    // PATCH removes the recurrence: the next request approves, and mandate.updated names the change.
    const patched = await request(server, 'PATCH', `/api/v1/mandates/${mandateId}`, {
      apiKey: p.apiKey,
      body: { recurrence: null },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.recurrence).toBeNull();
    expect((await decide(server, p, agentId, '3.00')).decision).toBe('APPROVE');
    const updated = await events(server, 'mandate.updated', { mandate_id: mandateId });
    expect(updated.at(-1)?.changes).toEqual({
      recurrence: { from: { frequency: 'MONTHLY', max_occurrences: 2 }, to: null },
    });
  });

  it('PATCH adds, checks and removes terms; mandate_hash follows them', async () => {
    const { agentId, mandateId } = await agentWith(server, p, {});
    const original = (await request(server, 'GET', `/api/v1/mandates/${mandateId}`, { apiKey: p.apiKey })).body;
    const tooHigh = await request(server, 'PATCH', `/api/v1/mandates/${mandateId}`, {
      apiKey: p.apiKey,
      body: { min_amount_per_transaction: '20.01' },
    });
    expect(expectEnvelope(tooHigh, 422, 'validation_error').details?.[0]?.field).toBe('min_amount_per_transaction');
    const added = await request(server, 'PATCH', `/api/v1/mandates/${mandateId}`, {
      apiKey: p.apiKey,
      body: { min_amount_per_transaction: '7.00', allowed_payees: ['shop_a'] },
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toMatchObject({ min_amount_per_transaction: 7, allowed_payees: ['shop_a'] });
    expect(added.body.mandate_hash).not.toBe(original.mandate_hash);
    expect((await decide(server, p, agentId, '6.00', at('shop_a', '6.00'))).reason_codes).toEqual([
      'amount_below_minimum',
    ]);
    // Lowering max_amount_per_transaction under the minimum is refused.
    const under = await request(server, 'PATCH', `/api/v1/mandates/${mandateId}`, {
      apiKey: p.apiKey,
      body: { max_amount_per_transaction: '6.00' },
    });
    expectEnvelope(under, 422, 'validation_error');
    const removed = await request(server, 'PATCH', `/api/v1/mandates/${mandateId}`, {
      apiKey: p.apiKey,
      body: { min_amount_per_transaction: null, allowed_payees: null },
    });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.mandate_hash).toBe(original.mandate_hash);
    expect((await decide(server, p, agentId, '6.00')).decision).toBe('APPROVE');
  });
});

describe('explain and backtests', () => {
  it('explain gives the terms decision of the next /authorize; a backtest leaves term declines as they were', async () => {
    const from = new Date(Date.now() - 1000).toISOString();
    const { agentId } = await agentWith(server, p, { allowed_payees: ['shop_a'], min_amount_per_transaction: '2.00' });
    const body = authorizeBody(agentId, { amount: '1.00', merchant_id: 'shop_a' });
    const dry = await request(server, 'POST', '/api/v1/authorize/explain', { apiKey: p.apiKey, body });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.reason_codes).toEqual(['amount_below_minimum']);
    const check = (dry.body.gates as { gate: string; check: string; fired: boolean }[]).filter(
      (g) => g.gate === 'mandate_terms',
    );
    expect(check).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ check: 'min_amount_per_transaction', fired: true }),
        expect.objectContaining({ check: 'allowed_payees', fired: false }),
      ]),
    );
    expect(dry.body.terms).toMatchObject({ min_amount_per_transaction: 2, allowed_payees: ['shop_a'] });
    const real = await decide(server, p, agentId, '1.00', { merchant_id: 'shop_a' });
    expect(real.reason_codes).toEqual(dry.body.reason_codes);
    expect((await decide(server, p, agentId, '2.00', { merchant_id: 'shop_b' })).reason_codes).toEqual([
      'payee_not_allowed',
    ]);
    const bt = await request(server, 'POST', '/api/v1/thresholds/backtest', {
      apiKey: p.apiKey,
      body: { from, to: new Date(Date.now() + 1000).toISOString(), overrides: { authorize_step_up_threshold: 0.01 } },
    });
    expect(bt.status, bt.text).toBe(200);
    // The two term declines are mandate decisions no threshold acts on: neither changes.
    expect(bt.body.transitions).not.toContainEqual(expect.objectContaining({ from: 'DECLINE' }));
  });
});

describe('explain names every term as /authorize decides it', () => {
  it('execution window, merchant lock, recurrence period and max_occurrences: the same reasons, the checks fired', async () => {
    const terms = async (agentId: string, amount: string, merchantId: string) => {
      const body = authorizeBody(agentId, { amount, merchant_id: merchantId });
      const dry = await request(server, 'POST', '/api/v1/authorize/explain', { apiKey: p.apiKey, body });
      expect(dry.status, dry.text).toBe(200);
      const fired = (dry.body.gates as { gate: string; check: string; fired: boolean }[])
        .filter((g) => g.gate === 'mandate_terms')
        .map((g) => [g.check, g.fired]);
      const real = await decide(server, p, agentId, amount, { merchant_id: merchantId });
      expect(real.reason_codes, JSON.stringify(real)).toEqual(dry.body.reason_codes);
      return { reasons: dry.body.reason_codes as string[], fired: Object.fromEntries(fired) };
    };
    const later = await agentWith(server, p, {
      execution_window: { not_before: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(await terms(later.agentId, '1.00', 'shop_a')).toEqual({
      reasons: ['outside_execution_window'],
      fired: { execution_window: true },
    });
    const lock = await agentWith(server, p, { merchant_lock: true });
    expect(await terms(lock.agentId, '2.00', 'shop_a')).toEqual({
      reasons: ['approved'],
      fired: { merchant_lock: false },
    });
    expect(await terms(lock.agentId, '2.00', 'shop_b')).toEqual({
      reasons: ['payee_locked'],
      fired: { merchant_lock: true },
    });
    const daily = await agentWith(server, p, { recurrence: { frequency: 'DAILY', max_occurrences: 2 } });
    expect(await terms(daily.agentId, '2.00', 'shop_a')).toEqual({
      reasons: ['approved'],
      fired: { max_occurrences: false, recurrence_period: false },
    });
    // The day's period is taken (the second occurrence of two would still be allowed).
    expect(await terms(daily.agentId, '2.00', 'shop_a')).toEqual({
      reasons: ['recurrence_period_used'],
      fired: { max_occurrences: false, recurrence_period: true },
    });
    const once = await agentWith(server, p, { recurrence: { frequency: 'ON_DEMAND', max_occurrences: 1 } });
    expect((await terms(once.agentId, '2.00', 'shop_a')).reasons).toEqual(['approved']);
    expect(await terms(once.agentId, '2.00', 'shop_a')).toEqual({
      reasons: ['recurrence_max_occurrences_reached'],
      fired: { max_occurrences: true },
    });
  });
});

describe('onboarding plane', () => {
  it('a mandate granted by the Client carries the terms, and /authorize enforces them', async () => {
    const client = await provisionClient(server);
    const o = await onboardAgent(server, client.liveKey, client.programId, {
      mandate: mandateBody({
        limits: {
          max_amount_per_transaction: '100.00',
          max_daily_amount: '1000.00',
          currency: 'USD',
          min_amount_per_transaction: '3.00',
        },
        allowed_mccs: undefined,
        allowed_countries: undefined,
        allowed_payees: ['shop_a'],
        recurrence: { frequency: 'WEEKLY' },
      }),
    });
    const m = (o.body as { mandate: Record<string, unknown> }).mandate;
    expect(m).toMatchObject({
      limits: { min_amount_per_transaction: 3 },
      allowed_payees: ['shop_a'],
      merchant_lock: false,
      recurrence: { frequency: 'WEEKLY' },
      execution_window: null,
    });
    const { apiKey } = await issuePrincipalKey(server, o.principalId, 'live');
    const q: TestPrincipal = { ...p, principalId: o.principalId, apiKey };
    expect((await decide(server, q, o.agentId, '2.99', { merchant_id: 'shop_a' })).reason_codes).toEqual([
      'amount_below_minimum',
    ]);
    expect((await decide(server, q, o.agentId, '3.00', { merchant_id: 'shop_a' })).decision).toBe('APPROVE');
    expect((await decide(server, q, o.agentId, '3.00', { merchant_id: 'shop_a' })).reason_codes).toEqual([
      'recurrence_period_used',
    ]);
    const bad = await request(server, 'POST', `/api/v1/agents/${o.agentId}/mandates`, {
      apiKey: client.liveKey,
      body: mandateBody({
        limits: {
          max_amount_per_transaction: '10.00',
          max_daily_amount: '100.00',
          currency: 'USD',
          min_amount_per_transaction: '11.00',
        },
      }),
    });
    expect(expectEnvelope(bad, 422, 'validation_error').details?.[0]?.field).toBe('limits.min_amount_per_transaction');
  });

  it('the merchant lock and an execution window granted by the Client are enforced too', async () => {
    const client = await provisionClient(server);
    const o = await onboardAgent(server, client.liveKey, client.programId, {
      mandate: mandateBody({
        limits: { max_amount_per_transaction: '100.00', max_daily_amount: '1000.00', currency: 'USD' },
        allowed_mccs: undefined,
        allowed_countries: undefined,
        merchant_lock: true,
        execution_window: { not_after: new Date(Date.now() + 3_600_000).toISOString(), days_of_week: WEEK },
      }),
    });
    const m = (o.body as { mandate: Record<string, unknown> }).mandate;
    expect(m).toMatchObject({ merchant_lock: true, execution_window: { days_of_week: WEEK } });
    const { apiKey } = await issuePrincipalKey(server, o.principalId, 'live');
    const q: TestPrincipal = { ...p, principalId: o.principalId, apiKey };
    expect((await decide(server, q, o.agentId, '3.00', { merchant_id: 'shop_a' })).decision).toBe('APPROVE');
    expect((await decide(server, q, o.agentId, '3.00', { merchant_id: 'shop_b' })).reason_codes).toEqual([
      'payee_locked',
    ]);
    const late = await onboardAgent(server, client.liveKey, client.programId, {
      mandate: mandateBody({
        limits: { max_amount_per_transaction: '100.00', max_daily_amount: '1000.00', currency: 'USD' },
        allowed_mccs: undefined,
        allowed_countries: undefined,
        execution_window: { not_before: new Date(Date.now() + 3_600_000).toISOString() },
      }),
    });
    const { apiKey: lateKey } = await issuePrincipalKey(server, late.principalId, 'live');
    const r: TestPrincipal = { ...p, principalId: late.principalId, apiKey: lateKey };
    expect((await decide(server, r, late.agentId, '3.00', { merchant_id: 'shop_a' })).reason_codes).toEqual([
      'outside_execution_window',
    ]);
  });
});
