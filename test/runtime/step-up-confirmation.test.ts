// A step-up the human confirms, over HTTP on real PostgreSQL (docs/step-up-confirmation.md):
// the default (re-sending with step_up_confirmed clears it) kept; under the Principal's
// 'principal' policy a STEP_UP carries a step_up_id and step_up_confirmed clears it only after
// a confirmation with the Principal's credential or the one-time code e-mailed to the address the
// Principal registered (a real SMTP server started here; step_up.created carries no code). Each
// confirmation is single-use, expires, and is bound to agent, amount, currency and merchant.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../fixtures/engine-setup.js';
import { agentWith, decide, principal } from '../fixtures/holds.js';
import { issuePrincipalKey } from '../fixtures/provision.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { startSmtpServer, type TestSmtpServer } from '../fixtures/smtp.js';
import { stepUpMail } from '../fixtures/step-up-mail.js';

let server: TestServer;
let smtp: TestSmtpServer;
/** Policy 'principal'; every decision is a STEP_UP (authorize_step_up_threshold 0). */
let p: TestPrincipal;
/** The same Principal's agent key: scoped to authorize only. */
let agentKey: string;
/** Policy left at the default. */
let plain: TestPrincipal;

async function everyDecisionSteps(who: TestPrincipal, extra: Record<string, number> = {}): Promise<void> {
  const res = await request(server, 'PUT', '/api/v1/thresholds', {
    apiKey: who.apiKey,
    body: { authorize_step_up_threshold: 0, ...extra },
  });
  expect(res.status, res.text).toBe(200);
}

async function setPolicy(who: TestPrincipal, confirmation: string) {
  // The person's address, where the link and one-time code of each step-up go.
  const channel = await request(server, 'PUT', `/api/v1/principals/${who.principalId}/confirmation-channel`, {
    apiKey: who.apiKey,
    body: { email: `${who.principalId.toLowerCase()}@example.test` },
  });
  expect(channel.status, channel.text).toBe(200);
  return request(server, 'PUT', `/api/v1/principals/${who.principalId}/step-up-policy`, {
    apiKey: who.apiKey,
    body: { confirmation },
  });
}

function confirm(id: string, apiKey: string, body: Record<string, unknown> = {}) {
  return request(server, 'POST', `/api/v1/step-ups/${id}/confirm`, { apiKey, body });
}

/** The step_up.created events of an agent, in order. */
async function created(agentId: string): Promise<Record<string, unknown>[]> {
  const rows = await query(
    server,
    'live',
    (sql) => sql<{ data: Record<string, unknown> }[]>`select payload->'data' as data from outbox_events
      where event_type = 'step_up.created' and payload->'data'->>'agent_id' = ${agentId} order by seq, position`,
  );
  return rows.map((r) => r.data);
}

/** A STEP_UP for `amount` at Corner Grocery; returns its step_up_id and the code e-mailed for it. */
async function stepUp(who: TestPrincipal, agentId: string, amount: string): Promise<{ id: string; code: string }> {
  const res = await decide(server, who, agentId, amount);
  expect(res.decision, JSON.stringify(res)).toBe('STEP_UP');
  const id = res.step_up_id as string;
  expect(id).toMatch(/^stp_/);
  const event = (await created(agentId)).find((e) => e.step_up_id === id);
  expect(event).toBeDefined();
  expect(event).not.toHaveProperty('confirmation_code');
  const { code } = await stepUpMail(smtp, id);
  return { id, code };
}

const again = (who: TestPrincipal, agentId: string, amount: string, over: Record<string, unknown> = {}) =>
  decide(server, who, agentId, amount, { step_up_confirmed: true, ...over });

beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startTestServer({ SMTP_URL: smtp.url, STEP_UP_NOTIFY_INTERVAL_MS: '100' });
  p = await principal(server);
  plain = await principal(server);
  agentKey = (await issuePrincipalKey(server, p.principalId, 'live', { scopes: 'authorize' })).apiKey;
  await everyDecisionSteps(p);
  await everyDecisionSteps(plain);
  expect((await setPolicy(p, 'principal')).status).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

describe('the policy', () => {
  it('defaults to agent: a re-sent step_up_confirmed clears the STEP_UP, no step_up_id', async () => {
    const get = await request(server, 'GET', `/api/v1/principals/${plain.principalId}/step-up-policy`, {
      apiKey: plain.apiKey,
    });
    expect(get.body).toEqual({ principal_id: plain.principalId, confirmation: 'agent' });
    const { agentId } = await agentWith(server, plain, {});
    const first = await decide(server, plain, agentId, '12.00');
    expect(first).toMatchObject({ decision: 'STEP_UP', step_up_id: null });
    const [event] = await created(agentId);
    expect(event).toMatchObject({ step_up_id: null });
    expect(event).not.toHaveProperty('confirmation_code');
    const second = await again(plain, agentId, '12.00');
    expect(second).toMatchObject({ decision: 'APPROVE', reason_codes: ['step_up_confirmed'], step_up_id: null });
  });

  it('is read and set by the Principal only, and checked', async () => {
    const get = await request(server, 'GET', `/api/v1/principals/${p.principalId}/step-up-policy`, {
      apiKey: p.apiKey,
    });
    expect(get.body).toEqual({ principal_id: p.principalId, confirmation: 'principal' });
    const log = await query(
      server,
      'live',
      (sql) =>
        sql`select action, changes from security_log where target_id = ${p.principalId} and action like 'step_up%'`,
    );
    expect(log).toEqual([{ action: 'step_up_policy.updated', changes: { from: 'agent', to: 'principal' } }]);
    expectEnvelope(await setPolicy(p, 'human'), 422, 'validation_error');
    const foreign = await request(server, 'PUT', `/api/v1/principals/${p.principalId}/step-up-policy`, {
      apiKey: plain.apiKey,
      body: { confirmation: 'agent' },
    });
    expectEnvelope(foreign, 404, 'principal_not_found');
    // The agent's key (scope authorize) cannot change it.
    const byAgent = await request(server, 'PUT', `/api/v1/principals/${p.principalId}/step-up-policy`, {
      apiKey: agentKey,
      body: { confirmation: 'agent' },
    });
    expectEnvelope(byAgent, 403, 'forbidden');
  });
});

describe("under the 'principal' policy", () => {
  it('step_up_confirmed alone does not clear it: STEP_UP again, same step_up_id, no new code', async () => {
    const { agentId } = await agentWith(server, p, {});
    const { id } = await stepUp(p, agentId, '12.00');
    const res = await again(p, agentId, '12.00');
    expect(res).toMatchObject({ decision: 'STEP_UP', step_up_id: id });
    expect(res.reason_codes).toContain('step_up_not_confirmed');
    expect((await decide(server, p, agentId, '12.00')).step_up_id).toBe(id);
    expect(await created(agentId)).toHaveLength(1);
    const get = await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: agentKey });
    expect(get.body).toMatchObject({ step_up_id: id, status: 'PENDING', agent_id: agentId, amount: 12 });
  });

  it("confirmed with the Principal's credential: the next re-submission approves, once", async () => {
    const { agentId } = await agentWith(server, p, {});
    const { id } = await stepUp(p, agentId, '12.00');
    const ok = await confirm(id, p.apiKey);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ step_up_id: id, status: 'CONFIRMED', confirmed_via: 'credential' });
    const approved = await again(p, agentId, '12.00');
    expect(approved).toMatchObject({ decision: 'APPROVE', reason_codes: ['step_up_confirmed'], step_up_id: id });
    const used = await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: p.apiKey });
    expect(used.body).toMatchObject({ status: 'USED', used_by_authorization_id: approved.authorization_id });
    // Single-use: the same re-submission is a new STEP_UP, and the step-up cannot be confirmed again.
    const next = await again(p, agentId, '12.00');
    expect(next.decision).toBe('STEP_UP');
    expect(next.step_up_id).not.toBe(id);
    expect(expectEnvelope(await confirm(id, p.apiKey), 409, 'step_up_not_pending').message).toContain('USED');
  });

  it('confirmed with the one-time code from the agent key; the key alone cannot confirm', async () => {
    const { agentId } = await agentWith(server, p, {});
    const { id, code } = await stepUp(p, agentId, '12.00');
    expectEnvelope(await confirm(id, agentKey), 403, 'step_up_confirmation_forbidden');
    expect(
      expectEnvelope(await confirm(id, agentKey, { code: 'WRONGCODE2' }), 422, 'invalid_step_up_code').message,
    ).toContain('4 attempts left');
    // As a human types it: lower case, with a dash.
    const typed = `${code.slice(0, 5).toLowerCase()}-${code.slice(5)}`;
    const ok = await confirm(id, agentKey, { code: typed });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ status: 'CONFIRMED', confirmed_via: 'code' });
    expectEnvelope(await confirm(id, agentKey, { code }), 409, 'step_up_not_pending');
    const approved = await again(p, agentId, '12.00');
    expect(approved).toMatchObject({ decision: 'APPROVE', step_up_id: id });
  });

  it('five wrong codes lock the code; the Principal credential still confirms', async () => {
    const { agentId } = await agentWith(server, p, {});
    const { id, code } = await stepUp(p, agentId, '12.00');
    for (let i = 0; i < 5; i++)
      expectEnvelope(await confirm(id, agentKey, { code: `BAD${i}` }), 422, 'invalid_step_up_code');
    expectEnvelope(await confirm(id, agentKey, { code }), 409, 'step_up_code_locked');
    expect((await confirm(id, p.apiKey)).status).toBe(200);
    expect((await again(p, agentId, '12.00')).decision).toBe('APPROVE');
  });

  it('bound to agent, amount, currency and merchant: a mismatch stays STEP_UP and leaves it unused', async () => {
    const { agentId } = await agentWith(server, p, {});
    const { agentId: otherAgent } = await agentWith(server, p, {});
    const { id } = await stepUp(p, agentId, '12.00');
    expect((await confirm(id, p.apiKey)).status).toBe(200);
    const amount = await again(p, agentId, '12.01');
    expect(amount.decision).toBe('STEP_UP');
    expect(amount.reason_codes).toContain('step_up_confirmation_ignored');
    const merchant = await again(p, agentId, '12.00', { merchant_name: 'Other Grocery' });
    expect(merchant.decision).toBe('STEP_UP');
    const currency = await again(p, agentId, '12.00', { currency: 'EUR' });
    expect(currency.decision).toBe('DECLINE');
    expect(currency.reason_codes).toContain('currency_mismatch');
    const agent = await again(p, otherAgent, '12.00');
    expect(agent.decision).toBe('STEP_UP');
    // None of them used it: the request it was confirmed for still clears it.
    expect(await again(p, agentId, '12.00')).toMatchObject({ decision: 'APPROVE', step_up_id: id });
  });

  it('another Principal cannot see or confirm it; unknown ids are 404', async () => {
    const { agentId } = await agentWith(server, p, {});
    const { id, code } = await stepUp(p, agentId, '12.00');
    expectEnvelope(await confirm(id, plain.apiKey), 404, 'step_up_not_found');
    expectEnvelope(await confirm(id, plain.apiKey, { code }), 404, 'step_up_not_found');
    expectEnvelope(
      await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: plain.apiKey }),
      404,
      'step_up_not_found',
    );
    expectEnvelope(await confirm('stp_doesnotexist0000000000000', p.apiKey), 404, 'step_up_not_found');
    expect((await again(p, agentId, '12.00')).decision).toBe('STEP_UP');
  });

  it('the one-time code is stored only as its hash', async () => {
    const { agentId } = await agentWith(server, p, {});
    const { id, code } = await stepUp(p, agentId, '12.00');
    const [row] = await query(
      server,
      'live',
      (sql) => sql`select s.code_hash, row_to_json(s)::text as s, row_to_json(a)::text as a from step_ups s
        join authorizations a on a.id = s.authorization_id where s.id = ${id}`,
    );
    expect(row?.code_hash).toBe(createHash('sha256').update(`${id}:${code}`).digest('hex'));
    expect(row?.s).not.toContain(code);
    expect(row?.a).not.toContain(code);
  });
});

describe('expiry', () => {
  let q: TestPrincipal;
  beforeAll(async () => {
    q = await principal(server);
    await everyDecisionSteps(q, { step_up_window_seconds: 2 });
    expect((await setPolicy(q, 'principal')).status).toBe(200);
  });

  it('a step-up past its window cannot be confirmed', async () => {
    const { agentId } = await agentWith(server, q, {});
    const { id, code } = await stepUp(q, agentId, '12.00');
    await new Promise((r) => setTimeout(r, 2_300));
    expectEnvelope(await confirm(id, q.apiKey, { code }), 409, 'step_up_expired');
    expectEnvelope(await confirm(id, q.apiKey), 409, 'step_up_expired');
    expect((await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: q.apiKey })).body.status).toBe('EXPIRED');
  });

  it('a confirmation not used within the window no longer clears the request', async () => {
    const { agentId } = await agentWith(server, q, {});
    const { id } = await stepUp(q, agentId, '12.00');
    expect((await confirm(id, q.apiKey)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2_300));
    const late = await again(q, agentId, '12.00');
    expect(late.decision).toBe('STEP_UP');
    expect(late.step_up_id).not.toBe(id);
  });
});
