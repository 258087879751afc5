// POST /authorize over HTTP on the real decision core: the response carries every SPEC.md
// field, the request is normalised (exact amount, alpha-3 country, agent_did), cross-field
// rules answer 422 with the offending field, and another Principal's agent is a 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorize,
  authorizeBody,
  type EngineFixture,
  query,
  RESPONSE_FIELDS,
  setup,
} from '../fixtures/engine-setup.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let a: EngineFixture;
let b: EngineFixture;

beforeAll(async () => {
  server = await startTestServer();
  a = await setup(server, {
    limits: { max_amount_per_transaction: '250.00', max_daily_amount: '1000.00', currency: 'USD' },
  });
  b = await setup(server);
});
afterAll(async () => {
  await server?.close();
});

describe('POST /api/v1/authorize', () => {
  it('refuses a Client key with 401, even one whose Client owns exactly one Principal (SPEC rule 1)', async () => {
    const res = await authorize(server, a.client.liveKey, authorizeBody(a.agentId));
    expectEnvelope(res, 401, 'unauthorized');
  });

  it('approves within the mandate and answers every SPEC.md response field', async () => {
    const res = await authorize(server, a.apiKey, authorizeBody(a.agentId, { amount: '12.5', country: 'us' }));
    expect(res.status).toBe(200);
    for (const field of RESPONSE_FIELDS) expect(res.body, field).toHaveProperty(field);
    expect(res.body.decision).toBe('APPROVE');
    expect(res.body.agent_id).toBe(a.agentId);
    expect(res.body.mandate_id).toBe(a.mandateId);
    expect(res.body.amount).toBe(12.5);
    expect(res.body.currency).toBe('USD');
    expect(String(res.body.authorization_id)).toMatch(/^auth_/);
    expect(typeof res.body.processing_time_ms).toBe('number');
    expect(res.body.processing_time_ms as number).toBeGreaterThan(0);
    const [row] = await query(
      server,
      'live',
      (sql) =>
        sql<{ amount: string; country: string; decision: string }[]>`
        select amount::text, country, decision from authorizations where id = ${res.body.authorization_id as string}`,
    );
    expect(row).toEqual({ amount: '12.5', country: 'USA', decision: 'APPROVE' });
  });

  it('accepts agent_did instead of agent_id and the alternative intent names', async () => {
    const [agent] = await query(
      server,
      'live',
      (sql) => sql<{ did: string }[]>`select did from agents where id = ${a.agentId}`,
    );
    const body = authorizeBody(a.agentId, {
      intent_context: { task: 'weekly groceries 0', reasoning: 'the fridge is empty', confidence: 0.9 },
    });
    delete body.agent_id;
    body.agent_did = agent?.did;
    const res = await authorize(server, a.apiKey, body);
    expect(res.status).toBe(200);
    expect(res.body.agent_id).toBe(a.agentId);
    expect(res.body.decision).toBe('APPROVE');
  });

  it('answers 404 agent_not_found for another Principal’s agent, by id and by DID, recording nothing', async () => {
    expectEnvelope(await authorize(server, b.apiKey, authorizeBody(a.agentId)), 404, 'agent_not_found');
    const [agent] = await query(
      server,
      'live',
      (sql) => sql<{ did: string }[]>`select did from agents where id = ${a.agentId}`,
    );
    const body = authorizeBody(a.agentId);
    delete body.agent_id;
    body.agent_did = agent?.did;
    expectEnvelope(await authorize(server, b.apiKey, body), 404, 'agent_not_found');
    expectEnvelope(
      await authorize(server, a.apiKey, authorizeBody('agt_doesnotexist000000000')),
      404,
      'agent_not_found',
    );
    const rows = await query(
      server,
      'live',
      (sql) =>
        sql<{ n: number }[]>`select count(*)::int as n from authorizations where principal_id = ${b.principalId}`,
    );
    expect(rows[0]?.n).toBe(0);
  });

  it('rejects invalid requests with 422 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ amount: '0' }, 'amount'],
      [{ amount: -3 }, 'amount'],
      [{ amount: '1.123456789' }, 'amount'],
      [{ country: 'XX' }, 'country'],
      [{ mcc: '54a1' }, 'mcc'],
      [{ rail: 'CRYPTO' }, 'crypto'],
      [{ idempotency_key: 'short' }, 'idempotency_key'],
      [{ intent_context: { intent_type: 'purchase' } }, 'intent_context.task_reference'],
      [{ intent_context: { task_reference: 'x' } }, 'intent_context.intent_type'],
    ];
    for (const [over, field] of cases) {
      const res = await authorize(server, a.apiKey, authorizeBody(a.agentId, over));
      const env = expectEnvelope(res, 422, 'validation_error');
      expect(
        env.details?.map((d) => d.field),
        JSON.stringify(over),
      ).toContain(field);
    }
    const noAgent = authorizeBody(a.agentId);
    delete noAgent.agent_id;
    const env = expectEnvelope(await authorize(server, a.apiKey, noAgent), 422, 'validation_error');
    expect(env.details?.map((d) => d.field)).toContain('agent_id');
  });

  it('declines a currency other than the mandate’s and logs the decision', async () => {
    const res = await authorize(server, a.apiKey, authorizeBody(a.agentId, { currency: 'EUR' }));
    expect(res.status).toBe(200);
    expect(res.body.decision).toBe('DECLINE');
    expect(res.body.reason_codes).toContain('currency_mismatch');
    const entry = await request(server, 'GET', `/api/v1/authorize/log/${res.body.authorization_id}`, {
      apiKey: a.apiKey,
    });
    expect(entry.status).toBe(200);
    expect(entry.body).toMatchObject({
      id: res.body.authorization_id,
      decision: 'DECLINE',
      currency: 'EUR',
      amount: 10,
    });
  });

  it('requires a credential', async () => {
    expectEnvelope(
      await request(server, 'POST', '/api/v1/authorize', { body: authorizeBody(a.agentId) }),
      401,
      'unauthorized',
    );
  });
});
