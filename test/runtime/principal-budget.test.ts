// The Principal budget over HTTP (docs/principal-budget.md): one budget for all of a Principal's
// agents, set and read at /api/v1/principals/{principal_id}/budget; exact to the cent across
// agents (exactly at the budget approves, one cent over declines principal_budget_exhausted);
// holds count; release, partial capture, refund and expiry give budget back; other currencies do
// not count; a change of amount applies at once; the Principal-level events; bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBody, query } from '../fixtures/engine-setup.js';
import { agentWith, approve, decide, op, principal } from '../fixtures/holds.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectSchema } from '../fixtures/schemas.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ HOLD_EXPIRY_SWEEP_MS: '200' });
});
afterAll(async () => {
  await server?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function put(p: TestPrincipal, body: Record<string, unknown>, principalId = p.principalId) {
  return request(server, 'PUT', `/api/v1/principals/${principalId}/budget`, { apiKey: p.apiKey, body });
}

async function budget(p: TestPrincipal): Promise<Record<string, unknown>> {
  const res = await request(server, 'GET', `/api/v1/principals/${p.principalId}/budget`, { apiKey: p.apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function declined(p: TestPrincipal, agentId: string, amount: string): Promise<void> {
  const res = await decide(server, p, agentId, amount);
  expect(res.decision, JSON.stringify(res)).toBe('DECLINE');
  expect(res.reason_codes).toEqual(['principal_budget_exhausted']);
  expect(res.gates_fired).toEqual(['principal_budget']);
}

/** Three agents of a new Principal with a monthly budget of `amount` USD. */
async function fleet(amount: string, n = 3): Promise<{ p: TestPrincipal; agents: string[] }> {
  const p = await principal(server);
  const set = await put(p, { amount, currency: 'USD', window: 'month' });
  expect(set.status, set.text).toBe(200);
  const agents: string[] = [];
  for (let i = 0; i < n; i++) agents.push((await agentWith(server, p, {})).agentId);
  return { p, agents };
}

describe('setting and reading the budget', () => {
  it('GET before any PUT is 404; PUT answers the budget with its usage; GET reads it back', async () => {
    const p = await principal(server);
    expectEnvelope(
      await request(server, 'GET', `/api/v1/principals/${p.principalId}/budget`, { apiKey: p.apiKey }),
      404,
      'principal_budget_not_found',
    );
    const res = await put(p, { amount: '5000.00', currency: 'EUR', window: 'month' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      principal_id: p.principalId,
      amount: 5000,
      currency: 'EUR',
      window: 'month',
      alert_share: 0.8,
      usage: { window: 'month', limit: 5000, used: 0, held: 0, remaining: 0 + 5000, escrowed: 0 },
    });
    const start = new Date();
    expect((res.body.usage as { window_start: string }).window_start).toBe(
      new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1)).toISOString(),
    );
    expectSchema('PrincipalBudget', res.body);
    expect(await budget(p)).toEqual(res.body);
  });

  it('refuses bad input with field errors, and another Principal`s budget is not found', async () => {
    const p = await principal(server);
    const other = await principal(server);
    for (const [body, field] of [
      [{ amount: '10.001', currency: 'USD', window: 'month' }, 'amount'],
      [{ amount: '0', currency: 'USD', window: 'month' }, 'amount'],
      [{ amount: '10', currency: 'usd', window: 'month' }, 'currency'],
      [{ amount: '10', currency: 'XYZ', window: 'month' }, 'currency'],
      [{ amount: '10', currency: 'USD', window: 'hour' }, 'window'],
      [{ amount: '10', currency: 'USD', window: 'day', alert_share: 1.5 }, 'alert_share'],
      [{ amount: '10', currency: 'USD' }, 'window'],
    ] as const) {
      const res = await put(p, body);
      expectEnvelope(res, 422, 'validation_error');
      expect(JSON.stringify(res.body), JSON.stringify(body)).toContain(field);
    }
    expectEnvelope(
      await put(p, { amount: '10', currency: 'USD', window: 'day' }, other.principalId),
      404,
      'principal_not_found',
    );
    expectEnvelope(
      await request(server, 'DELETE', `/api/v1/principals/${p.principalId}/budget`, { apiKey: p.apiKey }),
      404,
      'principal_budget_not_found',
    );
  });
});

describe('exact to the cent across agents', () => {
  it('exactly at the budget approves, one cent over declines; holds count; usage adds up', async () => {
    const { p, agents } = await fleet('25.53');
    const [a, b, c] = agents as [string, string, string];
    await approve(server, p, a, '10.00');
    // A's slice got what it needed plus a speculative 1/64 of the budget (0.39): still the fleet's.
    expect((await budget(p)).usage).toMatchObject({ used: 10, held: 0, remaining: 15.53, escrowed: 0.39 });
    await approve(server, p, b, '10.00', true);
    await approve(server, p, c, '5.52');
    await declined(p, a, '0.02');
    await declined(p, c, '0.02');
    await approve(server, p, b, '0.01');
    await declined(p, a, '0.01');
    await declined(p, b, '0.01');
    const view = await budget(p);
    expectSchema('PrincipalBudget', view);
    expect(view.usage).toMatchObject({ limit: 25.53, used: 15.53, held: 10, remaining: 0, escrowed: 0 });
    // Another currency does not count (no conversion), and its mandates still apply.
    const eur = await agentWith(server, p, { currency: 'EUR' });
    expect((await decide(server, p, eur.agentId, '15.00', { currency: 'EUR' })).decision).toBe('APPROVE');
    const [row] = await query(
      server,
      'live',
      (sql) =>
        sql<{ approved: string }[]>`
        select coalesce(sum(amount), 0)::text as approved from authorizations
        where principal_id = ${p.principalId} and decision = 'APPROVE' and currency = 'USD'`,
    );
    expect(row?.approved).toBe('25.53');
  });

  it('raising the amount applies at the next decision; lowering stops approvals at the new amount', async () => {
    const { p, agents } = await fleet('10.00');
    const [a, b] = agents as [string, string];
    await approve(server, p, a, '6.00');
    await approve(server, p, b, '4.00');
    await declined(p, a, '0.01');
    expect((await put(p, { amount: '12.50', currency: 'USD', window: 'month' })).status).toBe(200);
    await approve(server, p, b, '2.50');
    await declined(p, a, '0.01');
    expect((await put(p, { amount: '11.00', currency: 'USD', window: 'month' })).status).toBe(200);
    await declined(p, b, '0.01');
    expect((await budget(p)).usage).toMatchObject({ limit: 11, used: 12.5, remaining: 0 });
    // Removing the budget leaves the agents to their mandates.
    const del = await request(server, 'DELETE', `/api/v1/principals/${p.principalId}/budget`, { apiKey: p.apiKey });
    expect(del.status, del.text).toBe(204);
    await approve(server, p, a, '1.00');
  });
});

describe('settlements give budget back', () => {
  it('release, the rest of a partial capture and a refund come back to the whole fleet', async () => {
    const { p, agents } = await fleet('30.00');
    const [a, b, c] = agents as [string, string, string];
    const h1 = await approve(server, p, a, '10.00', true);
    const h2 = await approve(server, p, b, '10.00', true);
    const paid = await approve(server, p, c, '10.00');
    await declined(p, c, '0.01');
    expect((await op(server, p, h1, 'release')).status).toBe(200);
    await approve(server, p, c, '10.00');
    await declined(p, a, '0.01');
    expect((await op(server, p, h2, 'capture', { amount: '7.25' })).status).toBe(200);
    await approve(server, p, a, '2.75');
    await declined(p, b, '0.01');
    expect((await op(server, p, paid, 'refund', { amount: '0.01' })).status).toBe(200);
    await approve(server, p, b, '0.01');
    await declined(p, c, '0.01');
    expect((await budget(p)).usage).toMatchObject({ limit: 30, used: 30, held: 0, remaining: 0 });
  });

  it('an expired hold gives its amount back to the fleet', async () => {
    const p = await principal(server);
    expect((await put(p, { amount: '8.00', currency: 'USD', window: 'day' })).status).toBe(200);
    const a = await agentWith(server, p, { hold_expiry_seconds: 1 });
    const b = await agentWith(server, p, {});
    await approve(server, p, a.agentId, '8.00', true);
    await declined(p, b.agentId, '0.01');
    const end = Date.now() + 15_000;
    for (;;) {
      const res = await decide(server, p, b.agentId, '8.00');
      if (res.decision === 'APPROVE') break;
      expect(res.reason_codes).toEqual(['principal_budget_exhausted']);
      if (Date.now() > end) throw new Error('the expired hold never came back');
      await sleep(250);
    }
    await declined(p, a.agentId, '0.01');
  });
});

describe('Principal-level events', () => {
  it('principal_budget.threshold_reached and principal_budget.exhausted, once per window each', async () => {
    const { p, agents } = await fleet('10.00', 2);
    const [a, b] = agents as [string, string];
    await approve(server, p, a, '5.00');
    await approve(server, p, b, '4.00');
    await declined(p, a, '2.00');
    await declined(p, b, '2.00');
    await approve(server, p, a, '1.00');
    await declined(p, b, '0.01');
    const rows = await query(
      server,
      'live',
      (sql) =>
        sql<{ type: string; data: Record<string, unknown> }[]>`
        select event_type as type, payload->'data' as data from outbox_events
        where principal_id = ${p.principalId} and event_type like 'principal_budget.%' order by seq, position`,
    );
    expect(rows.map((r) => r.type)).toEqual(['principal_budget.threshold_reached', 'principal_budget.exhausted']);
    expect(rows[0]?.data).toMatchObject({ principal_id: p.principalId, window: 'month', limit: '10', currency: 'USD' });
    expect(rows[1]?.data).toMatchObject({
      principal_id: p.principalId,
      window: 'month',
      limit: '10',
      currency: 'USD',
      declined_amount: '2',
      available: '1',
    });
  });
});

describe('a dry run under the Principal budget', () => {
  async function explain(p: TestPrincipal, agentId: string, amount: string): Promise<Record<string, unknown>> {
    const res = await request(server, 'POST', '/api/v1/authorize/explain', {
      apiKey: p.apiKey,
      body: authorizeBody(agentId, { amount }),
    });
    expect(res.status, res.text).toBe(200);
    return res.body;
  }

  it('answers as the decision would, grows no slice and takes nothing from a sibling buying meanwhile', async () => {
    const { p, agents } = await fleet('50.00', 2);
    const [a, b] = agents as [string, string];
    // A explains 15.00 over and over while B buys 4 x 12.00: each explain answers APPROVE while
    // the pool has 15.00 to give, and none moves budget into A's slice, so all of B's purchases
    // are approved. (Before, each explain grew A's escrowed slice and B was declined.)
    const first = await explain(p, a, '15.00');
    expect(first.decision, JSON.stringify(first)).toBe('APPROVE');
    const explains = (async () => {
      const out: Record<string, unknown>[] = [];
      for (let i = 0; i < 20; i++) out.push(await explain(p, a, '15.00'));
      return out;
    })();
    const bought: Record<string, unknown>[] = [];
    for (let i = 0; i < 4; i++) bought.push(await decide(server, p, b, '12.00'));
    const answers = await explains;
    expect(bought.map((r) => r.decision)).toEqual(['APPROVE', 'APPROVE', 'APPROVE', 'APPROVE']);
    // What the pool can give A shrinks while B buys: 15.00 fits until B's slice passes 35.00.
    for (const r of answers) {
      if (r.decision !== 'APPROVE') expect(r.reason_codes).toEqual(['principal_budget_exhausted']);
    }
    expect((await explain(p, a, '15.00')).reason_codes).toEqual(['principal_budget_exhausted']);
    expect(((await budget(p)).usage as Record<string, number>).used).toBe(48);
    // Only B has a slice: A's dry runs were given none.
    const slices = await query(
      server,
      'live',
      (sql) => sql<{ agent_id: string }[]>`
        select agent_id from principal_budget_slices where principal_id = ${p.principalId}`,
    );
    expect(slices.map((s) => s.agent_id)).toEqual([b]);
    // B's last 2.00 fits the budget exactly; A's explain of 1.00 then finds nothing to give.
    expect((await decide(server, p, b, '2.00')).decision).toBe('APPROVE');
    const last = await explain(p, a, '1.00');
    expect(last.decision).toBe('DECLINE');
    expect(last.reason_codes).toEqual(['principal_budget_exhausted']);
    // No budget alert on account of a dry run: B never ran short, A never asked for real.
    const events = await query(
      server,
      'live',
      (sql) => sql<{ type: string }[]>`
        select event_type as type from outbox_events
        where principal_id = ${p.principalId} and event_type = 'principal_budget.exhausted'`,
    );
    expect(events).toEqual([]);
  });
});
