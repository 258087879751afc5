// The mandate lifecycle over HTTP on real PostgreSQL (docs/mandate-lifecycle.md): PATCH amends a
// mandate and the agent's very next decision is judged on the amended terms (the actor holding
// the agent was warm before the change), revoke makes every later decision decline, each rule
// at its edge, mandate_hash following the terms, the events, ownership and Idempotency-Key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../fixtures/engine-setup.js';
import { agentWith, approve, decide, events, principal } from '../fixtures/holds.js';
import { mandateBody } from '../fixtures/onboarding.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let server: TestServer;
let p: TestPrincipal;
let other: TestPrincipal;
let receiver: Receiver;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  p = await principal(server);
  other = await principal(server);
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

function patch(id: string, body: unknown, who: TestPrincipal = p, headers: Record<string, string> = {}) {
  return request(server, 'PATCH', `/api/v1/mandates/${id}`, { apiKey: who.apiKey, body, headers });
}

function revoke(id: string, body: unknown, who: TestPrincipal = p, headers: Record<string, string> = {}) {
  return request(server, 'POST', `/api/v1/mandates/${id}/revoke`, { apiKey: who.apiKey, body, headers });
}

describe('PATCH /api/v1/mandates/{id}', () => {
  it('a lower daily cap applies to the next decision; what was spent stays spent; raising it approves again', async () => {
    const { agentId, mandateId } = await agentWith(server, p, { max_daily_amount: '50.00' });
    await approve(server, p, agentId, '15.00');
    await approve(server, p, agentId, '15.00');
    const res = await patch(mandateId, { max_daily_amount: '20.00' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: mandateId, status: 'ACTIVE', max_daily_amount: 20 });
    // Already 30.00 used against 20.00: nothing is clawed back, usage shows none remaining.
    expect((res.body.usage as Record<string, unknown>).max_daily_amount).toMatchObject({
      limit: 20,
      used: 30,
      remaining: 0,
    });
    const next = await decide(server, p, agentId, '0.01');
    expect(next.decision).toBe('DECLINE');
    expect(next.reason_codes).toContain('daily_limit_exceeded');
    // Up to 30.01: exactly the one cent left approves, one more cent declines.
    expect((await patch(mandateId, { max_daily_amount: '30.01' })).status).toBe(200);
    await approve(server, p, agentId, '0.01');
    expect((await decide(server, p, agentId, '0.01')).reason_codes).toContain('daily_limit_exceeded');
    // null removes the cap.
    const removed = await patch(mandateId, { max_daily_amount: null });
    expect(removed.body.max_daily_amount).toBeNull();
    await approve(server, p, agentId, '15.00');
  });

  it('per-transaction limit: exactly at the new limit approves, one cent over declines', async () => {
    const { agentId, mandateId } = await agentWith(server, p, {});
    await approve(server, p, agentId, '15.00');
    expect((await patch(mandateId, { max_amount_per_transaction: 12.5 })).body.max_amount_per_transaction).toBe(12.5);
    const over = await decide(server, p, agentId, '12.51');
    expect(over.decision).toBe('DECLINE');
    expect(over.reason_codes).toContain('per_transaction_limit_exceeded');
    // At the limit the mandate passes (the risk stage may still ask for a step-up: 100 % of the limit).
    const at = await decide(server, p, agentId, '12.50');
    expect(at.decision).not.toBe('DECLINE');
    expect(at.reason_codes).not.toContain('per_transaction_limit_exceeded');
  });

  it('lists and count caps: a blocked MCC and a count cap apply at once, null lifts them', async () => {
    const { agentId, mandateId } = await agentWith(server, p, {});
    await approve(server, p, agentId, '5.00');
    const res = await patch(mandateId, { blocked_mccs: ['5411'], allowed_countries: ['us', 'DE'] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ blocked_mccs: ['5411'], allowed_countries: ['USA', 'DEU'] });
    expect((await decide(server, p, agentId, '5.00')).reason_codes).toContain('mcc_blocked');
    expect((await decide(server, p, agentId, '5.00', { mcc: '5812' })).decision).toBe('APPROVE');
    expect((await decide(server, p, agentId, '5.00', { mcc: '5812', country: 'FR' })).reason_codes).toContain(
      'country_not_allowed',
    );
    expect((await patch(mandateId, { blocked_mccs: null, max_daily_count: 2 })).status).toBe(200);
    // Two APPROVEs today already (5.00 and 5.00 at 5812): the count cap of 2 is used up.
    expect((await decide(server, p, agentId, '5.00')).reason_codes).toContain('daily_count_exceeded');
    expect((await patch(mandateId, { max_daily_count: 3 })).status).toBe(200);
    await approve(server, p, agentId, '5.00');
  });

  it('crypto lists: amended on a crypto mandate, the engine follows the new chains at once', async () => {
    const { agentId, mandateId } = await agentWith(server, p, { allowed_chains: ['base'], allowed_assets: ['usdc'] });
    const crypto = (chain: string) => ({ rail: 'CRYPTO', crypto: { chain, asset: 'USDC', counterparty: '0xabc' } });
    expect((await decide(server, p, agentId, '5.00', crypto('base'))).decision).toBe('APPROVE');
    const res = await patch(mandateId, { allowed_chains: ['ethereum'] });
    expect(res.status, res.text).toBe(200);
    expect((await decide(server, p, agentId, '5.00', crypto('base'))).reason_codes).toContain('chain_not_allowed');
    expect((await decide(server, p, agentId, '5.00', crypto('ethereum'))).decision).toBe('APPROVE');
  });

  it('valid_until: shortened into the past is refused, moved earlier ends the mandate there', async () => {
    const { agentId, mandateId } = await agentWith(server, p, {});
    await approve(server, p, agentId, '5.00');
    const past = await patch(mandateId, { valid_until: new Date(Date.now() - 1_000).toISOString() });
    expect(expectEnvelope(past, 422, 'validation_error').details?.map((d) => d.field)).toEqual(['valid_until']);
    const until = new Date(Date.now() + 3_000);
    const res = await patch(mandateId, { valid_until: until.toISOString() });
    expect(res.status, res.text).toBe(200);
    expect(res.body.valid_until).toBe(until.toISOString());
    await new Promise((r) => setTimeout(r, Math.max(0, until.getTime() - Date.now()) + 200));
    const late = await decide(server, p, agentId, '5.00');
    expect(late.decision).toBe('DECLINE');
    expect(late.reason_codes).toContain('mandate_expired');
    // An EXPIRED mandate is no longer amendable (extend by granting a new one).
    const again = await patch(mandateId, { valid_until: new Date(Date.now() + 86_400_000).toISOString() });
    expect(expectEnvelope(again, 422, 'mandate_not_active').message).toContain('EXPIRED');
  });

  it('validates as at creation: each bad field named, and nothing changes', async () => {
    const { mandateId } = await agentWith(server, p, { max_daily_amount: '50.00' });
    const shape = await patch(mandateId, { max_amount_per_transaction: null, budget_alert_share: 1.5 });
    expect((expectEnvelope(shape, 422, 'validation_error').details ?? []).map((d) => d.field).sort()).toEqual([
      'budget_alert_share',
      'max_amount_per_transaction',
    ]);
    const bad = await patch(mandateId, {
      max_weekly_amount: '1.001',
      allowed_chains: ['base'],
      allowed_countries: ['XX'],
    });
    const fields = (expectEnvelope(bad, 422, 'validation_error').details ?? []).map((d) => d.field);
    expect(fields.sort()).toEqual(['allowed_chains', 'allowed_countries.0', 'max_weekly_amount']);
    expectEnvelope(await patch(mandateId, { max_daily_amount: 0 }), 422, 'validation_error');
    expectEnvelope(await patch(mandateId, { currency: 'EUR' }), 422, 'validation_error');
    expectEnvelope(await patch(mandateId, {}), 400, 'no_fields_to_update');
    const get = await request(server, 'GET', `/api/v1/mandates/${mandateId}`, { apiKey: p.apiKey });
    expect(get.body).toMatchObject({ max_daily_amount: 50, max_weekly_amount: null, updated_at: null });
  });

  it('mandate_hash follows the terms; mandate.updated names the changes and both hashes', async () => {
    const { mandateId } = await agentWith(server, p, { max_daily_amount: '50.00', allowed_mccs: ['5411', '5812'] });
    const first = await request(server, 'GET', `/api/v1/mandates/${mandateId}`, { apiKey: p.apiKey });
    const hash0 = first.body.mandate_hash as string;
    // The same terms (a set in another order, an amount written otherwise): no change at all.
    const same = await patch(mandateId, { max_daily_amount: 50, allowed_mccs: ['5812', '5411'] });
    expect(same.status, same.text).toBe(200);
    expect(same.body).toMatchObject({ mandate_hash: hash0, updated_at: null });
    expect(await events(server, 'mandate.updated', { mandate_id: mandateId })).toHaveLength(0);

    const changed = await patch(mandateId, { max_daily_amount: '40.00' });
    const hash1 = changed.body.mandate_hash as string;
    expect(hash1).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hash1).not.toBe(hash0);
    expect(changed.body.updated_at).not.toBeNull();
    const [ev] = await events(server, 'mandate.updated', { mandate_id: mandateId });
    expect(ev).toMatchObject({
      mandate_id: mandateId,
      changes: { max_daily_amount: { from: '50', to: '40' } },
      mandate_hash: hash1,
      previous_mandate_hash: hash0,
    });
    // Back to the first terms: the first hash.
    expect((await patch(mandateId, { max_daily_amount: '50' })).body.mandate_hash).toBe(hash0);
    expect(await events(server, 'mandate.updated', { mandate_id: mandateId })).toHaveLength(2);
  });

  it('an onboarding-plane mandate is amended the same way, and the engine follows it', async () => {
    const { agentId } = await agentWith(server, p, {});
    const created = await request(server, 'POST', `/api/v1/agents/${agentId}/mandates`, {
      apiKey: p.clientKey,
      body: mandateBody({
        limits: { max_amount_per_transaction: '50.00', max_daily_amount: '100.00', currency: 'EUR' },
      }),
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const eur = { currency: 'EUR', mcc: '5411', country: 'US' };
    expect((await decide(server, p, agentId, '6.00', eur)).decision).toBe('APPROVE');
    const res = await patch(id, { max_daily_amount: '10.00', blocked_mccs: ['5812'] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ currency: 'EUR', max_daily_amount: 10, blocked_mccs: ['5812'] });
    expect(res.body.mandate_hash).not.toBe(created.body.mandate_hash);
    expect((await decide(server, p, agentId, '4.01', eur)).reason_codes).toContain('daily_limit_exceeded');
    expect((await decide(server, p, agentId, '4.00', eur)).decision).toBe('APPROVE');
  });

  it('another Principal gets 404, and the mandate is unchanged', async () => {
    const { mandateId } = await agentWith(server, p, {});
    expectEnvelope(await patch(mandateId, { max_amount_per_transaction: '1000' }, other), 404, 'mandate_not_found');
    expectEnvelope(await revoke(mandateId, { reason: 'not mine' }, other), 404, 'mandate_not_found');
    expectEnvelope(await patch('mnd_doesnotexist000000000000', { max_daily_amount: 1 }), 404, 'mandate_not_found');
    const get = await request(server, 'GET', `/api/v1/mandates/${mandateId}`, { apiKey: p.apiKey });
    expect(get.body).toMatchObject({ status: 'ACTIVE', max_amount_per_transaction: 20 });
  });

  it('Idempotency-Key: a retry replays the answer without a second change; another body is refused', async () => {
    const { mandateId } = await agentWith(server, p, {});
    const key = { 'idempotency-key': `amend-${mandateId}` };
    const a = await patch(mandateId, { max_daily_amount: '30.00' }, p, key);
    const b = await patch(mandateId, { max_daily_amount: '30.00' }, p, key);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    expect(await events(server, 'mandate.updated', { mandate_id: mandateId })).toHaveLength(1);
    expectEnvelope(await patch(mandateId, { max_daily_amount: '31.00' }, p, key), 422, 'idempotency_key_reuse');
  });
});

describe('POST /api/v1/mandates/{id}/revoke', () => {
  it('REVOKED at once: the next decision declines, the event and the security record are written', async () => {
    const { agentId, mandateId } = await agentWith(server, p, {});
    await approve(server, p, agentId, '5.00');
    const res = await revoke(mandateId, { reason: 'Trip cancelled' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: mandateId, status: 'REVOKED', revocation_reason: 'Trip cancelled' });
    expect(typeof res.body.revoked_at).toBe('string');
    const next = await decide(server, p, agentId, '5.00');
    expect(next.decision).toBe('DECLINE');
    expect(next.reason_codes).toContain('no_active_mandate');
    const [ev] = await events(server, 'mandate.revoked', { mandate_id: mandateId });
    expect(ev).toMatchObject({
      mandate_id: mandateId,
      agent_id: agentId,
      reason: 'Trip cancelled',
      previous_status: 'ACTIVE',
      mandate_hash: res.body.mandate_hash,
      revoked_at: res.body.revoked_at,
    });
    const log = await query(
      server,
      'live',
      (sql) => sql`select action, changes from security_log where target_id = ${mandateId}`,
    );
    expect(log).toEqual([
      expect.objectContaining({ action: 'mandate.revoked', changes: expect.objectContaining({ to: 'REVOKED' }) }),
    ]);
    const list = await request(server, 'GET', `/api/v1/mandates/agent/${agentId}?status=REVOKED`, {
      apiKey: p.apiKey,
    });
    expect((list.body.mandates as { id: string }[]).map((m) => m.id)).toEqual([mandateId]);
  });

  it('final: a second revoke and any amendment are 422 mandate_not_active; a new mandate works', async () => {
    const { agentId, mandateId } = await agentWith(server, p, {});
    expect((await revoke(mandateId, { reason: 'done' })).status).toBe(200);
    expect(expectEnvelope(await revoke(mandateId, { reason: 'again' }), 422, 'mandate_not_active').message).toContain(
      'REVOKED',
    );
    expectEnvelope(await patch(mandateId, { max_daily_amount: '1.00' }), 422, 'mandate_not_active');
    expect(await events(server, 'mandate.revoked', { mandate_id: mandateId })).toHaveLength(1);
    const fresh = await request(server, 'POST', '/api/v1/mandates', {
      apiKey: p.apiKey,
      body: {
        agent_id: agentId,
        valid_until: new Date(Date.now() + 86_400_000).toISOString(),
        max_amount_per_transaction: '20.00',
      },
    });
    expect(fresh.status, fresh.text).toBe(201);
    await approve(server, p, agentId, '5.00');
  });

  it('an expired mandate can be revoked; a reason is required; Idempotency-Key replays', async () => {
    const until = Date.now() + 1_000;
    const { mandateId } = await agentWith(server, p, { valid_until: new Date(until).toISOString() });
    await new Promise((r) => setTimeout(r, until - Date.now() + 100));
    expectEnvelope(await revoke(mandateId, {}), 422, 'validation_error');
    const key = { 'idempotency-key': `revoke-${mandateId}` };
    const a = await revoke(mandateId, { reason: 'cleanup' }, p, key);
    expect(a.status, a.text).toBe(200);
    const b = await revoke(mandateId, { reason: 'cleanup' }, p, key);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    const [ev] = await events(server, 'mandate.revoked', { mandate_id: mandateId });
    expect(ev).toMatchObject({ previous_status: 'EXPIRED' });
  });

  it('mandate.updated and mandate.revoked reach webhooks through the outbox', async () => {
    const who = await principal(server);
    const hook = await request(server, 'POST', '/api/v1/webhooks', {
      apiKey: who.apiKey,
      body: { url: `${receiver.url}/mandates`, event_types: ['mandate.updated', 'mandate.revoked'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const { agentId, mandateId } = await agentWith(server, who, {});
    expect((await patch(mandateId, { max_daily_amount: '25.00' }, who)).status).toBe(200);
    expect((await revoke(mandateId, { reason: 'done' }, who)).status).toBe(200);
    const got = await receiver.waitFor(2, 15_000, (r) => r.path === '/mandates');
    const byType = new Map(
      got.map((r) => {
        const e = JSON.parse(r.body) as { event_type: string; data: Record<string, unknown> };
        return [e.event_type, e.data] as const;
      }),
    );
    expect(byType.get('mandate.updated')).toMatchObject({
      mandate_id: mandateId,
      agent_id: agentId,
      changes: { max_daily_amount: { from: null, to: '25' } },
    });
    expect(byType.get('mandate.revoked')).toMatchObject({ mandate_id: mandateId, reason: 'done' });
  });
});
