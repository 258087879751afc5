// Money in API responses (README "Amounts", docs/api.md "Amounts"): SPEC.md says "Amounts in
// responses are numbers". This walks the answers of the main endpoints (onboarding, mandates and
// their usage, decisions and the decision log, idempotent replays, holds) and checks every
// amount field is a JSON number, never a string, and is the exact decimal: made from decimal
// text, so 10.10 + 20.20 used today reads 30.3, not 30.299999999999997. The signed receipt is
// the documented exception (its amount is signed as text).
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relaxRateGates } from '../fixtures/engine-setup.js';
import { onboardAgent } from '../fixtures/onboarding.js';
import { issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { type HttpResult, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** Field names that carry money, wherever they appear (count caps' limit/used are integers). */
const AMOUNT_KEY = /(^|_)amount(_|$)|^max_transfer$|^effective_limit$|^(limit|used|held|remaining)$/;
/** Subtrees that hold scores and ratios, not money (the decision explanation). */
const NOT_MONEY = new Set(['explanation', 'thresholds']);
/** What an exact decimal of at most 8 places prints as in JSON: no float residue, no exponent. */
const DECIMAL = /^(0|[1-9]\d*)(\.\d{1,8})?$/;

interface Found {
  path: string;
  value: unknown;
}

/** Every amount field of a JSON value, with its path. */
function amounts(value: unknown, path = '', out: Found[] = []): Found[] {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) amounts(v, `${path}[${i}]`, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (NOT_MONEY.has(k)) continue;
      const p = path === '' ? k : `${path}.${k}`;
      if (AMOUNT_KEY.test(k) && (v === null || typeof v !== 'object')) out.push({ path: p, value: v });
      else amounts(v, p, out);
    }
  }
  return out;
}

const seen: Found[] = [];

/** Asserts the answer's status and that each of its amounts is a number (or null) printing as an exact decimal. */
function check(label: string, res: HttpResult, status = 200): Record<string, unknown> {
  expect(res.status, `${label}: ${res.text}`).toBe(status);
  for (const f of amounts(res.body)) {
    seen.push({ path: `${label} ${f.path}`, value: f.value });
    if (f.value === null) continue;
    expect(typeof f.value, `${label} ${f.path} = ${JSON.stringify(f.value)}`).toBe('number');
    expect(String(f.value), `${label} ${f.path}`).toMatch(DECIMAL);
  }
  return res.body;
}

describe('amounts in API responses', () => {
  it('are JSON numbers carrying the exact decimal, on every main endpoint', async () => {
    const client = await provisionClient(server);
    const onboarded = await onboardAgent(server, client.liveKey, client.programId, {
      mandate: {
        rails: ['card'],
        limits: { max_amount_per_transaction: '250.25', max_daily_amount: '300.10', currency: 'USD' },
        allowed_mccs: ['5411'],
        allowed_countries: ['US'],
      },
    });
    const onboard = check('POST /onboard', { status: 201, body: onboarded.body } as HttpResult, 201);
    expect(onboard.mandate).toMatchObject({ limits: { max_amount_per_transaction: 250.25, max_daily_amount: 300.1 } });

    const { apiKey } = await issuePrincipalKey(server, onboarded.principalId, 'live');
    await relaxRateGates(server, apiKey);
    // A new agent spending near its limit is stepped up by default; this test is about the
    // shape of the answers, so only the mandate decides.
    const relaxed = await request(server, 'PUT', '/api/v1/thresholds', {
      apiKey,
      body: { authorize_step_up_threshold: 0.98, risk_score_hard_decline: 0.99 },
    });
    expect(relaxed.status, relaxed.text).toBe(200);
    const agentId = onboarded.agentId;
    const mandateId = onboarded.mandateId;
    const authorize = (amount: string, over: Record<string, unknown> = {}) =>
      request(server, 'POST', '/api/v1/authorize', {
        apiKey,
        body: {
          agent_id: agentId,
          amount,
          currency: 'USD',
          mcc: '5411',
          country: 'US',
          merchant_name: 'Corner Grocer',
          intent_context: { intent_type: 'purchase', task_reference: 'weekly groceries' },
          ...over,
        },
      });

    // Runtime-plane mandate (another currency, so it never covers the USD purchases below).
    const created = check(
      'POST /mandates',
      await request(server, 'POST', '/api/v1/mandates', {
        apiKey,
        body: {
          agent_id: agentId,
          currency: 'EUR',
          valid_until: new Date(Date.now() + 86_400_000).toISOString(),
          max_amount_per_transaction: '0.30',
          max_daily_amount: '70.70',
          max_weekly_amount: '80.80',
          max_total_amount: '90.90',
          max_daily_count: 3,
        },
      }),
      201,
    );
    expect(created).toMatchObject({
      max_amount_per_transaction: 0.3,
      max_daily_amount: 70.7,
      max_weekly_amount: 80.8,
      max_total_amount: 90.9,
      max_daily_count: 3,
    });

    const first = check('authorize 10.10', await authorize('10.10', { idempotency_key: 'amounts-first' }));
    expect(first).toMatchObject({
      decision: 'APPROVE',
      amount: 10.1,
      daily_amount_used: 10.1,
      effective_limit: 250.25,
    });
    // 10.10 + 20.20 in binary floats is 30.299999999999997; the answer is the decimal sum.
    const second = check('authorize 20.20', await authorize('20.20'));
    expect(second).toMatchObject({ decision: 'APPROVE', amount: 20.2, daily_amount_used: 30.3 });
    // The receipt signs the amount as text with the currency's minor units (documented exception).
    expect(decodeJwt(second.receipt as string).amount).toBe('20.20');
    // An idempotent replay answers the stored decision: the same numbers.
    const replay = check('authorize replay', await authorize('10.10', { idempotency_key: 'amounts-first' }));
    expect(replay).toMatchObject({ authorization_id: first.authorization_id, amount: 10.1, daily_amount_used: 10.1 });
    // A DECLINE over the per-transaction limit still answers numbers.
    const over = check('authorize over limit', await authorize('250.26'));
    expect(over).toMatchObject({ decision: 'DECLINE', amount: 250.26 });

    // Holds: capture part, refund part; release another.
    const held = check('authorize hold', await authorize('0.30', { capture_method: 'manual' }));
    expect(held).toMatchObject({ status: 'HELD', amount: 0.3, daily_amount_used: 30.6 });
    const op = (id: unknown, action: string, body: Record<string, unknown>, key: string) =>
      request(server, 'POST', `/api/v1/authorizations/${String(id)}/${action}`, {
        apiKey,
        body,
        headers: { 'Idempotency-Key': key },
      });
    expect(check('capture', await op(held.authorization_id, 'capture', { amount: '0.10' }, 'amt-cap'))).toMatchObject({
      captured_amount: 0.1,
      released_amount: 0.2,
    });
    expect(check('refund', await op(held.authorization_id, 'refund', { amount: '0.05' }, 'amt-ref'))).toMatchObject({
      refund_amount: 0.05,
      refunded_amount: 0.05,
      captured_amount: 0.1,
    });
    const held2 = check('authorize hold 2', await authorize('0.70', { capture_method: 'manual' }));
    expect(check('release', await op(held2.authorization_id, 'release', {}, 'amt-rel'))).toMatchObject({
      released_amount: 0.7,
    });

    // Reads: the decision log, the mandate with its usage, the agent's mandates.
    const entry = check(
      'GET log entry',
      await request(server, 'GET', `/api/v1/authorize/log/${second.authorization_id}`, { apiKey }),
    );
    expect(entry.amount).toBe(20.2);
    const page = check(
      'GET log page',
      await request(server, 'GET', `/api/v1/authorize/log/agent/${agentId}`, { apiKey }),
    );
    expect((page.items as { amount: number }[]).map((i) => i.amount)).toEqual([0.7, 0.3, 250.26, 20.2, 10.1]);
    const mandate = check('GET mandate', await request(server, 'GET', `/api/v1/mandates/${mandateId}`, { apiKey }));
    // Used today: 10.10 + 20.20 + 0.10 captured - 0.05 refunded = 30.35; nothing held.
    expect(mandate).toMatchObject({
      max_amount_per_transaction: 250.25,
      max_daily_amount: 300.1,
      usage: { max_daily_amount: { limit: 300.1, used: 30.35, held: 0, remaining: 269.75 } },
    });
    const eur = check(
      'GET EUR mandate',
      await request(server, 'GET', `/api/v1/mandates/${String(created.id)}`, { apiKey }),
    );
    expect(eur.usage).toMatchObject({
      max_daily_amount: { limit: 70.7, used: 0, remaining: 70.7 },
      max_daily_count: { limit: 3, used: 0, remaining: 3 },
    });
    check('GET agent mandates', await request(server, 'GET', `/api/v1/mandates/agent/${agentId}`, { apiKey }));

    // The walk found the amounts it is about (so it cannot pass by finding none).
    const paths = seen.map((s) => s.path);
    for (const p of [
      'POST /onboard mandate.limits.max_daily_amount',
      'authorize 20.20 daily_amount_used',
      'capture captured_amount',
      'GET log page items[0].amount',
      'GET mandate usage.max_daily_amount.remaining',
    ]) {
      expect(paths).toContain(p);
    }
    expect(seen.filter((s) => typeof s.value === 'number').length).toBeGreaterThan(60);
  });
});
