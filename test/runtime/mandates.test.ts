import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearerFor,
  createAgent,
  inDays,
  newPrincipal,
  type TestPrincipal,
  withDb,
} from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let alice: TestPrincipal;
let bob: TestPrincipal;
let agentId: string;

beforeAll(async () => {
  server = await startTestServer();
  alice = await newPrincipal(server);
  bob = await newPrincipal(server);
  agentId = (await createAgent(server, alice)).id as string;
});
afterAll(async () => {
  await server?.close();
});

async function createMandate(p: TestPrincipal, body: Record<string, unknown>) {
  return request(server, 'POST', '/api/v1/mandates', { apiKey: p.apiKey, body });
}

describe('POST /api/v1/mandates', () => {
  it('creates an ACTIVE mandate in the flat runtime shape with amounts as numbers', async () => {
    const validUntil = inDays(30);
    const res = await createMandate(alice, {
      agent_id: agentId,
      valid_until: validUntil,
      max_amount_per_transaction: '250.50',
      max_daily_amount: 1000,
      max_monthly_amount: '5000.00',
      allowed_mccs: ['5411', '5812', '5411'],
      blocked_mccs: ['7995'],
      allowed_countries: ['us', 'GBR'],
      blocked_countries: ['KP'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^mnd_[0-9A-Za-z]{24}$/),
      agent_id: agentId,
      principal_id: alice.principalId,
      status: 'ACTIVE',
      valid_from: expect.stringMatching(/Z$/),
      valid_until: validUntil,
      max_amount_per_transaction: 250.5,
      currency: 'USD',
      max_daily_amount: 1000,
      max_monthly_amount: 5000,
      allowed_mccs: ['5411', '5812'],
      blocked_mccs: ['7995'],
      allowed_countries: ['USA', 'GBR'],
      blocked_countries: ['PRK'],
      allowed_chains: null,
      allowed_assets: null,
      allowed_counterparties: null,
      // The later limits (docs/holds.md): null when not set.
      max_weekly_amount: null,
      max_yearly_amount: null,
      max_total_amount: null,
      max_daily_count: null,
      max_monthly_count: null,
      hold_expiry_seconds: null,
      budget_alert_share: null,
      min_amount_per_transaction: null,
      allowed_payees: null,
      merchant_lock: false,
      execution_window: null,
      recurrence: null,
      mandate_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      created_at: expect.stringMatching(/Z$/),
      updated_at: null,
      revoked_at: null,
      revocation_reason: null,
    });
    expect(Date.parse(res.body.valid_from as string)).toBeLessThanOrEqual(Date.now());
  });

  it('stores crypto permissions and the currency as given', async () => {
    const res = await createMandate(alice, {
      agent_id: agentId,
      valid_until: inDays(10),
      max_amount_per_transaction: 0.01,
      currency: 'EUR',
      allowed_chains: ['base', 'solana'],
      allowed_assets: ['USDC'],
      allowed_counterparties: ['0xabc'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      max_amount_per_transaction: 0.01,
      currency: 'EUR',
      max_daily_amount: null,
      allowed_chains: ['base', 'solana'],
      allowed_assets: ['USDC'],
      allowed_counterparties: ['0xabc'],
    });
  });

  it('gives mandates with the same terms the same hash and different terms a different one', async () => {
    const terms = {
      agent_id: agentId,
      valid_from: '2030-01-01T00:00:00.000Z',
      valid_until: '2031-01-01T00:00:00.000Z',
      max_amount_per_transaction: '10',
    };
    const a = await createMandate(alice, terms);
    const b = await createMandate(alice, { ...terms, max_amount_per_transaction: 10.0 });
    const c = await createMandate(alice, { ...terms, max_amount_per_transaction: '10.01' });
    expect(a.body.mandate_hash).toBe(b.body.mandate_hash);
    expect(c.body.mandate_hash).not.toBe(a.body.mandate_hash);
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('rejects bad amounts, dates, currencies and countries with the offending fields', async () => {
    const base = { agent_id: agentId, valid_until: inDays(5), max_amount_per_transaction: '10.00' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, max_amount_per_transaction: '10.001' }, 'max_amount_per_transaction'],
      [{ ...base, max_amount_per_transaction: 0 }, 'max_amount_per_transaction'],
      [{ ...base, max_amount_per_transaction: '0.00' }, 'max_amount_per_transaction'],
      [{ ...base, max_amount_per_transaction: -5 }, 'max_amount_per_transaction'],
      [{ ...base, max_amount_per_transaction: 'ten' }, 'max_amount_per_transaction'],
      [{ ...base, max_daily_amount: '0' }, 'max_daily_amount'],
      [{ ...base, max_monthly_amount: 1.234 }, 'max_monthly_amount'],
      [{ ...base, valid_until: inDays(-1) }, 'valid_until'],
      [{ ...base, valid_until: 'tomorrow' }, 'valid_until'],
      [{ ...base, valid_from: inDays(6) }, 'valid_from'],
      [{ ...base, currency: 'usd' }, 'currency'],
      [{ ...base, currency: 'XYZ' }, 'currency'],
      [{ ...base, allowed_countries: ['US', 'ZZ'] }, 'allowed_countries.1'],
      [{ ...base, blocked_countries: ['QQQ'] }, 'blocked_countries.0'],
      [{ ...base, allowed_mccs: ['54'] }, 'allowed_mccs.0'],
      [{ agent_id: agentId, max_amount_per_transaction: '1' }, 'valid_until'],
      [{ agent_id: agentId, valid_until: inDays(1) }, 'max_amount_per_transaction'],
      [{ ...base, limit: 5 }, 'limit'],
    ];
    for (const [body, field] of cases) {
      const env = expectEnvelope(await createMandate(alice, body), 422, 'validation_error');
      expect(
        env.details?.map((d) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
  });

  it("refuses another Principal's agent with 404 and creates nothing", async () => {
    const res = await createMandate(bob, { agent_id: agentId, valid_until: inDays(5), max_amount_per_transaction: 5 });
    expectEnvelope(res, 404, 'agent_not_found');
    const count = await withDb(
      server,
      'live',
      (sql) => sql`select count(*)::int as n from mandates where principal_id = ${bob.principalId}`,
    );
    expect(count[0]?.n).toBe(0);
  });

  it('refuses a REVOKED agent', async () => {
    const agent = await createAgent(server, alice);
    await request(server, 'PATCH', `/api/v1/agents/${agent.id}/status`, {
      apiKey: alice.apiKey,
      body: { status: 'REVOKED', reason: 'gone' },
    });
    const res = await createMandate(alice, {
      agent_id: agent.id,
      valid_until: inDays(5),
      max_amount_per_transaction: 5,
    });
    const env = expectEnvelope(res, 422, 'validation_error');
    expect(env.details?.[0]?.field).toBe('agent_id');
  });
});

describe('GET /api/v1/mandates/:mandate_id and /api/v1/mandates/agent/:agent_id', () => {
  let agent: string;
  let active: string;
  let expired: string;
  let revoked: string;
  beforeAll(async () => {
    agent = (await createAgent(server, alice)).id as string;
    const make = async () =>
      (await createMandate(alice, { agent_id: agent, valid_until: inDays(3), max_amount_per_transaction: 20 })).body
        .id as string;
    revoked = await make();
    expired = await make();
    active = await make();
    // Time passing and revocation have no public endpoint: set them in the database.
    await withDb(server, 'live', async (sql) => {
      await sql`update mandates set valid_from = now() - interval '2 days', valid_until = now() - interval '1 minute' where id = ${expired}`;
      await sql`update mandates set status = 'REVOKED' where id = ${revoked}`;
    });
  });

  it('reads a mandate and reports one past valid_until as EXPIRED', async () => {
    const one = await request(server, 'GET', `/api/v1/mandates/${active}`, { apiKey: alice.apiKey });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: active, agent_id: agent, status: 'ACTIVE', max_amount_per_transaction: 20 });
    const old = await request(server, 'GET', `/api/v1/mandates/${expired}`, { apiKey: alice.apiKey });
    expect(old.body.status).toBe('EXPIRED');
  });

  it('lists the agent mandates newest first, filtered by status', async () => {
    const all = await request<{ mandates: { id: string; status: string }[]; total: number }>(
      server,
      'GET',
      `/api/v1/mandates/agent/${agent}`,
      { apiKey: alice.apiKey },
    );
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.mandates.map((m) => [m.id, m.status])).toEqual([
      [active, 'ACTIVE'],
      [expired, 'EXPIRED'],
      [revoked, 'REVOKED'],
    ]);
    for (const [status, id] of [
      ['ACTIVE', active],
      ['EXPIRED', expired],
      ['REVOKED', revoked],
    ] as const) {
      const res = await request<{ mandates: { id: string }[]; total: number }>(
        server,
        'GET',
        `/api/v1/mandates/agent/${agent}?status=${status}`,
        { apiKey: alice.apiKey },
      );
      expect(res.body.total).toBe(1);
      expect(res.body.mandates.map((m) => m.id)).toEqual([id]);
    }
    const bad = await request(server, 'GET', `/api/v1/mandates/agent/${agent}?status=PAUSED`, { apiKey: alice.apiKey });
    expectEnvelope(bad, 422, 'validation_error');
  });

  it('answers an agent without mandates with an empty list', async () => {
    const empty = (await createAgent(server, alice)).id as string;
    const res = await request(server, 'GET', `/api/v1/mandates/agent/${empty}`, { apiKey: alice.apiKey });
    expect(res.body).toEqual({ mandates: [], total: 0 });
  });

  it("hides another Principal's mandates and agents (404, never data)", async () => {
    const one = await request(server, 'GET', `/api/v1/mandates/${active}`, { apiKey: bob.apiKey });
    expectEnvelope(one, 404, 'mandate_not_found');
    const list = await request(server, 'GET', `/api/v1/mandates/agent/${agent}`, { apiKey: bob.apiKey });
    expectEnvelope(list, 404, 'agent_not_found');
    expectEnvelope(
      await request(server, 'GET', '/api/v1/mandates/mnd_unknown', { apiKey: alice.apiKey }),
      404,
      'mandate_not_found',
    );
  });

  it('works with a Bearer token', async () => {
    const token = await bearerFor(server, alice);
    const created = await request(server, 'POST', '/api/v1/mandates', {
      bearer: token,
      body: { agent_id: agent, valid_until: inDays(2), max_amount_per_transaction: '1.50' },
    });
    expect(created.status).toBe(201);
    const read = await request(server, 'GET', `/api/v1/mandates/${created.body.id}`, { bearer: token });
    expect(read.body.max_amount_per_transaction).toBe(1.5);
  });
});
