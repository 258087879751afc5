// Portable mandates over HTTP (docs/ap2.md), with AP2 Payment Mandates built by @sd-jwt/core from
// test keys: issuer keys registered per Principal with rotation; an open mandate imported as the
// agent's mandate (its constraints mapped); closed mandates presented with /authorize/ap2,
// approved within the budget and declined past it across two merchants, consumed once (a replay
// refused); the status by hash; the signed receipt and remaining-budget statement verified with
// jose against GET /.well-known/jwks.json; each bad input refused with its error, nothing stored
// and no budget spent; the events of each import, consumption and refusal.
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentKey,
  agentWithKey,
  chainOf,
  closedMandate,
  hashOf,
  type Issuer,
  newAgentKey,
  newIssuer,
  openContent,
  openMandate,
  withoutDisclosures,
} from '../fixtures/ap2.js';
import { authorizeBody, query, relaxRateGates } from '../fixtures/engine-setup.js';
import { principal } from '../fixtures/holds.js';
import { newPrincipal, type TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, type HttpResult, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let server: TestServer;
let p: TestPrincipal;
let issuer: Issuer;
let receiver: Receiver;

beforeAll(async () => {
  // The stale-claim sweep every 200 ms (the tests that leave a stale claim for the next
  // presentation pass whether the sweep or the presentation settles it first); the public status
  // by hash bounded to 5 requests at once and 1 a second per address, addresses taken from
  // X-Forwarded-For (TRUSTED_PROXIES) so that one test can speak for two callers.
  server = await startTestServer({
    AP2_CLAIM_SWEEP_MS: '200',
    AP2_STATUS_BURST_REQUESTS: '5',
    AP2_STATUS_REQUESTS_PER_SECOND: '1',
    TRUSTED_PROXIES: '127.0.0.1/32',
  });
  receiver = await startReceiver();
  p = await principal(server);
  const hook = await request(server, 'POST', '/api/v1/webhooks', {
    apiKey: p.apiKey,
    body: {
      url: `${receiver.url}/ap2`,
      event_types: ['ap2_mandate.imported', 'ap2_mandate.consumed', 'ap2_mandate.refused'],
    },
  });
  expect(hook.status, hook.text).toBe(201);
  issuer = await newIssuer();
  const put = await putKeys(p, [issuer.publicJwk]);
  expect(put.status, put.text).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

function putKeys(who: TestPrincipal, keys: unknown[]) {
  return request(server, 'PUT', `/api/v1/principals/${who.principalId}/ap2-issuer-keys`, {
    apiKey: who.clientKey,
    body: { keys },
  });
}

/** USD constraints: 5.00 to 50.00 a payment, 60.00 in all, two payees, a checkout reference. */
const CONSTRAINTS = [
  { type: 'payment.amount_range', currency: 'USD', max: 5000, min: 500 },
  { type: 'payment.budget', max: 60.0, currency: 'USD' },
  {
    type: 'payment.allowed_payees',
    allowed: [
      { id: 'merchant_1', name: 'Demo Merchant' },
      { id: 'merchant_2', name: 'Other Merchant' },
    ],
  },
  { type: 'payment.agent_recurrence', frequency: 'ON_DEMAND', max_occurrences: 5 },
  { type: 'payment.reference', conditional_transaction_id: 'FzLoxbbtgQGYZxoSM2NJYJtkFTSsdfUBoVEQ12k7JN8' },
];

function importMandate(agentId: string, credential: string, who: TestPrincipal = p) {
  return request(server, 'POST', `/api/v1/agents/${agentId}/ap2-mandates`, {
    apiKey: who.apiKey,
    body: { credential },
  });
}

function presentOnce(agentId: string, chain: string, who: TestPrincipal, over: Record<string, unknown>) {
  return request(server, 'POST', '/api/v1/authorize/ap2', {
    apiKey: who.apiKey,
    body: {
      ...over,
      agent_id: agentId,
      payment_mandate: chain,
      mcc: '5411',
      country: 'US',
      intent_context: { intent_type: 'purchase', task_reference: 'weekly groceries' },
    },
  });
}

/**
 * Runs `call` again while it answers the safe DECLINE system_unavailable (see present). After a
 * safe DECLINE the presentation's claim stays PENDING until the answer deadline has passed (it is
 * then settled from the authorizations table): the 409 "being presented" meanwhile is waited out.
 */
async function retried(call: () => Promise<HttpResult>): Promise<HttpResult> {
  let afterSafe = false;
  for (let attempt = 0; ; attempt++) {
    const res = await call();
    const codes = res.status === 200 ? (res.body.reason_codes as string[]) : [];
    const pending = afterSafe && res.status === 409 && String(res.body.message).includes('being presented');
    if ((codes.join() !== 'system_unavailable' && !pending) || attempt >= 40) return res;
    afterSafe = true;
    await new Promise((r) => setTimeout(r, pending ? 250 : 100));
  }
}

/**
 * One presentation. A cold actor whose load misses its deadline on this busy machine answers the
 * safe DECLINE system_unavailable (nothing recorded, the closed mandate not consumed): it says
 * nothing about the mandate, so it is presented again. Every other answer is returned as it came.
 */
async function present(agentId: string, chain: string, who: TestPrincipal = p, over: Record<string, unknown> = {}) {
  return retried(() => presentOnce(agentId, chain, who, over));
}

async function verifyWithJwks(jws: string) {
  const jwks = await request(server, 'GET', '/.well-known/jwks.json');
  expect(jwks.status).toBe(200);
  return jwtVerify(jws, createLocalJWKSet(jwks.body as never), { issuer: 'agent-spending-authorization' });
}

/** The signed AP2 receipt a refusal carries in its AP2-Receipt header, verified. */
async function refusalReceipt(res: HttpResult) {
  const jws = res.headers.get('ap2-receipt');
  expect(jws, res.text).toBeTypeOf('string');
  return (await verifyWithJwks(jws as string)).payload;
}

/** What the agent holds: mandates, imported credentials, approvals (no budget spent = none). */
async function footprint(agentId: string) {
  const [r] = await query(
    server,
    'live',
    (sql) =>
      sql<{ mandates: number; imported: number; approvals: number; presented: number }[]>`
      select (select count(*)::int from mandates where agent_id = ${agentId}) as mandates,
             (select count(*)::int from ap2_mandates where agent_id = ${agentId}) as imported,
             (select count(*)::int from authorizations where agent_id = ${agentId} and decision = 'APPROVE') as approvals,
             (select count(*)::int from ap2_presentations where agent_id = ${agentId}) as presented`,
  );
  if (r === undefined) throw new Error('no footprint row');
  return r;
}

async function eventsOf(type: string, agentId: string) {
  return query(
    server,
    'live',
    (sql) =>
      sql<{ data: Record<string, unknown> }[]>`select payload->'data' as data from outbox_events
      where event_type = ${type} and payload->'data'->>'agent_id' = ${agentId} order by seq, position`,
  ).then((rows) => rows.map((r) => r.data));
}

describe('an imported open mandate, presented twice across two merchants', () => {
  let agent: AgentKey;
  let agentId: string;
  let open: string;
  let mandateId: string;

  beforeAll(async () => {
    agent = newAgentKey();
    agentId = await agentWithKey(server, p, agent);
    open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
  });

  it('imports: the constraints become the mandate, the credential and its hash are kept', async () => {
    const res = await importMandate(agentId, open);
    expect(res.status, res.text).toBe(201);
    mandateId = res.body.id as string;
    expect(res.body).toMatchObject({
      agent_id: agentId,
      status: 'ACTIVE',
      currency: 'USD',
      max_amount_per_transaction: 50,
      min_amount_per_transaction: 5,
      max_total_amount: 60,
      allowed_payees: ['merchant_1', 'merchant_2'],
      recurrence: { frequency: 'ON_DEMAND', max_occurrences: 5 },
      ap2: {
        vct: 'mandate.payment.open.1',
        credential_hash: hashOf(open),
        issuer_kid: issuer.kid,
        reference: 'FzLoxbbtgQGYZxoSM2NJYJtkFTSsdfUBoVEQ12k7JN8',
      },
    });
    const [stored] = await query(
      server,
      'live',
      (sql) => sql<{ credential: string }[]>`select credential from ap2_mandates where mandate_id = ${mandateId}`,
    );
    expect(stored?.credential).toBe(open);
    expect((await eventsOf('ap2_mandate.imported', agentId))[0]).toMatchObject({
      mandate_id: mandateId,
      credential_hash: hashOf(open),
      max_amount_per_transaction: '50.00',
      max_total_amount: '60.00',
    });
    // Once only.
    expectEnvelope(await importMandate(agentId, open), 409, 'ap2_mandate_already_imported');
    const status = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(open)}`, { apiKey: p.apiKey });
    expect(status.body).toMatchObject({ kind: 'open', mandate_id: mandateId, status: 'ACTIVE' });
  });

  it('is spent only by presentation: a plain /authorize does not select it', async () => {
    const res = await retried(() =>
      request(server, 'POST', '/api/v1/authorize', {
        apiKey: p.apiKey,
        body: authorizeBody(agentId, { amount: '10.00', merchant_id: 'merchant_1' }),
      }),
    );
    expect(res.body.reason_codes).toEqual(['no_active_mandate']);
  });

  it('approves within the budget with a signed AP2 receipt, consumes once, refuses the replay', async () => {
    const closed = await closedMandate(agent, open, {
      amount: 3000,
      payee: { id: 'merchant_1' },
      transactionId: 'tx-1',
    });
    const res = await present(agentId, chainOf(open, closed));
    expect(res.status, res.text).toBe(200);
    expect(res.body.decision, JSON.stringify(res.body)).toBe('APPROVE');
    expect(res.body.mandate_id).toBe(mandateId);
    const ap2 = res.body.ap2 as Record<string, unknown>;
    expect(ap2).toMatchObject({ closed_mandate_hash: hashOf(closed), open_mandate_hash: hashOf(open), consumed: true });
    const { payload, protectedHeader } = await verifyWithJwks(ap2.receipt as string);
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'ap2-payment-receipt+jwt' });
    expect(payload).toMatchObject({
      status: 'Success',
      result: 'success',
      reference: hashOf(closed),
      payment_id: res.body.authorization_id,
      transaction_id: 'tx-1',
      environment: 'live',
      // Money with the currency's minor units, and as AP2 writes it (integer minor units).
      amount: '30.00',
      currency: 'USD',
      payment_amount: { currency: 'USD', amount: 3000 },
    });
    const status = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(closed)}`, { apiKey: p.apiKey });
    expect(status.body).toMatchObject({
      kind: 'closed',
      consumed: true,
      authorization_id: res.body.authorization_id,
      transaction_id: 'tx-1',
    });
    expect(Date.parse(status.body.consumed_at as string)).toBeGreaterThan(0);
    // A merchant or credential provider holding the tokens asks without a credential: signed.
    const pub = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(closed)}/status`);
    expect(pub.status, pub.text).toBe(200);
    expect(pub.body).toMatchObject({ kind: 'closed', consumed: true, authorization_id: res.body.authorization_id });
    const signed = await verifyWithJwks(pub.body.statement as string);
    expect(signed.payload).toMatchObject({
      environment: 'live',
      kind: 'closed',
      hash: hashOf(closed),
      consumed: true,
      transaction_id: 'tx-1',
    });
    expect(JSON.stringify(pub.body)).not.toContain(agentId);
    const pubOpen = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(open)}/status`);
    expect(pubOpen.body).toMatchObject({ kind: 'open', status: 'ACTIVE' });
    expectEnvelope(
      await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf('unknown')}/status`),
      404,
      'ap2_mandate_unknown_hash',
    );
    // The same closed mandate again, and another one with the same transaction_id.
    const before = await footprint(agentId);
    const replay = await present(agentId, chainOf(open, closed));
    expectEnvelope(replay, 409, 'ap2_mandate_already_consumed');
    expect(await refusalReceipt(replay)).toMatchObject({
      status: 'Error',
      result: 'error',
      error: 'invalid_mandate',
      error_code: 'ap2_mandate_already_consumed',
      reference: hashOf(closed),
      environment: 'live',
    });
    const again = await closedMandate(agent, open, {
      amount: 1000,
      payee: { id: 'merchant_1' },
      transactionId: 'tx-1',
    });
    expectEnvelope(await present(agentId, chainOf(open, again)), 409, 'ap2_mandate_already_consumed');
    expect(await footprint(agentId)).toEqual(before);
    expect((await eventsOf('ap2_mandate.consumed', agentId))[0]).toMatchObject({
      closed_mandate_hash: hashOf(closed),
      authorization_id: res.body.authorization_id,
      amount: '30.00',
    });
    expect((await eventsOf('ap2_mandate.refused', agentId)).map((e) => e.error)).toContain(
      'ap2_mandate_already_consumed',
    );
  });

  it('declines past the budget at the second merchant (not consumed), then approves exactly the rest', async () => {
    const over = await closedMandate(agent, open, { amount: 5001, payee: { id: 'merchant_2' } });
    expect((await present(agentId, chainOf(open, over))).body.reason_codes).toEqual(['per_transaction_limit_exceeded']);
    const past = await closedMandate(agent, open, { amount: 5000, payee: { id: 'merchant_2' } });
    const res = await present(agentId, chainOf(open, past));
    expect(res.body.decision, JSON.stringify(res.body)).toBe('DECLINE');
    expect(res.body.reason_codes).toEqual(['total_limit_exceeded']);
    const ap2 = res.body.ap2 as Record<string, unknown>;
    expect(ap2.consumed).toBe(false);
    const { payload } = await verifyWithJwks(ap2.receipt as string);
    expect(payload).toMatchObject({
      status: 'Error',
      result: 'error',
      error: 'invalid_mandate',
      reference: hashOf(past),
    });
    const elsewhere = await closedMandate(agent, open, { amount: 1000, payee: { id: 'merchant_3' } });
    expect((await present(agentId, chainOf(open, elsewhere))).body.reason_codes).toEqual(['payee_not_allowed']);
    const small = await closedMandate(agent, open, { amount: 499, payee: { id: 'merchant_2' } });
    expect((await present(agentId, chainOf(open, small))).body.reason_codes).toEqual(['amount_below_minimum']);
    const rest = await closedMandate(agent, open, { amount: 3000, payee: { id: 'merchant_2' }, transactionId: 'tx-2' });
    // 30.00 at the first merchant + 30.00 here = 60.00: exactly the budget.
    const last = await present(agentId, chainOf(open, rest));
    expect(last.body.decision, JSON.stringify(last.body)).toBe('APPROVE');
  });

  it('states what remains, signed: verifiable offline with jose against the JWKS, naming no purchase', async () => {
    const res = await request(server, 'GET', `/api/v1/mandates/${mandateId}/budget-statement`, { apiKey: p.apiKey });
    expect(res.status, res.text).toBe(200);
    const jwks = (await request(server, 'GET', '/.well-known/jwks.json')).body;
    const { payload } = await compactVerify(res.body.statement as string, createLocalJWKSet(jwks as never));
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    expect(decodeProtectedHeader(res.body.statement as string).typ).toBe('asas-budget-statement+jwt');
    expect(claims).toMatchObject({
      mandate_id: mandateId,
      credential_hash: hashOf(open),
      environment: 'live',
      currency: 'USD',
      max_amount_per_transaction: '50.00',
      windows: { max_total_amount: { limit: '60.00', used: '60.00', held: '0.00', remaining: '0.00' } },
      occurrences: { used: 2, max: 5, remaining: 3 },
    });
    expect(JSON.stringify(claims)).not.toContain('merchant_');
    // The claims shown in clear are the signed ones (the JWS adds iss and iat).
    expect(claims).toEqual({
      ...(res.body.claims as object),
      iss: 'agent-spending-authorization',
      iat: expect.any(Number),
    });
  });
});

describe('one signed grant is imported once, whatever its disclosures', () => {
  it('repeated disclosures, a concurrent import and a re-import after a revoke are 409', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    const [jwt, disclosure] = open.split('~');
    // The same issuer-signed JWT with its disclosure repeated: another whole-token hash.
    const repeated = `${jwt}~${disclosure}~${disclosure}~`;
    expect(hashOf(repeated)).not.toBe(hashOf(open));
    const first = await importMandate(agentId, open);
    expect(first.status, first.text).toBe(201);
    const again = expectEnvelope(await importMandate(agentId, repeated), 409, 'ap2_mandate_already_imported');
    expect(again.message).toContain(first.body.id as string);
    // Two imports of one new grant at once: one 201, the other 409 (not 500).
    const other = await openMandate(
      issuer,
      openContent(agent, CONSTRAINTS, { exp: Math.floor(Date.now() / 1000) + 999 }),
    );
    const [ojwt, od] = other.split('~');
    const both = await Promise.all([importMandate(agentId, other), importMandate(agentId, `${ojwt}~${od}~${od}~`)]);
    expect(both.map((r) => r.status).sort(), both.map((r) => r.text).join('\n')).toEqual([201, 409]);
    expectEnvelope(both.find((r) => r.status === 409) as HttpResult, 409, 'ap2_mandate_already_imported');
    // A revoked grant does not come back under another disclosure order.
    const revoked = await request(server, 'POST', `/api/v1/mandates/${first.body.id as string}/revoke`, {
      apiKey: p.apiKey,
      body: { reason: 'The person withdrew consent' },
    });
    expect(revoked.status, revoked.text).toBe(200);
    expectEnvelope(await importMandate(agentId, repeated), 409, 'ap2_mandate_already_imported');
    expectEnvelope(await importMandate(agentId, open), 409, 'ap2_mandate_already_imported');
    expect((await footprint(agentId)).imported).toBe(2);
  });

  it('a presentation reaches the imported grant whatever the order of the open disclosures', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    const imported = await importMandate(agentId, open);
    expect(imported.status, imported.text).toBe(201);
    const [jwt, disclosure] = open.split('~');
    const repeated = `${jwt}~${disclosure}~${disclosure}~`;
    const closed = await closedMandate(agent, repeated, { amount: 1000, payee: { id: 'merchant_1' } });
    const res = await present(agentId, chainOf(repeated, closed));
    expect(res.body.decision, res.text).toBe('APPROVE');
    expect(res.body.mandate_id).toBe(imported.body.id);
    expect((res.body.ap2 as Record<string, unknown>).open_mandate_hash).toBe(hashOf(open));
  });
});

describe('a claim left PENDING (a process killed between claim and settlement, a failed settlement)', () => {
  let agent: AgentKey;
  let agentId: string;
  let open: string;
  let mandateId: string;

  beforeAll(async () => {
    agent = newAgentKey();
    agentId = await agentWithKey(server, p, agent);
    open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    const res = await importMandate(agentId, open);
    expect(res.status, res.text).toBe(201);
    mandateId = res.body.id as string;
  });

  async function claimLeft(closed: string, transactionId: string, age: string) {
    await query(
      server,
      'live',
      (sql) => sql`insert into ap2_presentations (closed_hash, mandate_id, open_hash, transaction_id, principal_id,
          agent_id, status, amount, currency, payee_id, request_id, claimed_at)
        values (${hashOf(closed)}, ${mandateId}, ${hashOf(open)}, ${transactionId}, ${p.principalId}, ${agentId},
          'PENDING', 10, 'USD', 'merchant_1', 'req_killed', now() - ${age}::interval)`,
    );
  }

  it('younger than the answer deadline: 409 with Retry-After; older, with no approval recorded: taken over', async () => {
    const closed = await closedMandate(agent, open, {
      amount: 1000,
      payee: { id: 'merchant_1' },
      transactionId: 'tx-k',
    });
    await claimLeft(closed, 'tx-k', '0 seconds');
    const busyRes = await presentOnce(agentId, chainOf(open, closed), p, {});
    const busy = expectEnvelope(busyRes, 409, 'ap2_mandate_already_consumed');
    expect(busy.message).toContain('being presented');
    expect(Number(busyRes.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await query(
      server,
      'live',
      (sql) =>
        sql`update ap2_presentations set claimed_at = now() - interval '1 hour' where closed_hash = ${hashOf(closed)}`,
    );
    const res = await present(agentId, chainOf(open, closed));
    expect(res.body.decision, res.text).toBe('APPROVE');
    expect((res.body.ap2 as Record<string, unknown>).consumed).toBe(true);
    // Another closed mandate with the transaction_id of a stale claim takes it over too.
    const first = await closedMandate(agent, open, {
      amount: 1000,
      payee: { id: 'merchant_1' },
      transactionId: 'tx-k2',
    });
    await claimLeft(first, 'tx-k2', '1 hour');
    const second = await closedMandate(agent, open, {
      amount: 1200,
      payee: { id: 'merchant_1' },
      transactionId: 'tx-k2',
    });
    const took = await present(agentId, chainOf(open, second));
    expect(took.body.decision, took.text).toBe('APPROVE');
    const status = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(second)}`, { apiKey: p.apiKey });
    expect(status.body).toMatchObject({ status: 'CONSUMED', amount: 12, authorization_id: took.body.authorization_id });
  });

  it('older, with its APPROVE recorded: CONSUMED by that authorization, never approved twice', async () => {
    const closed = await closedMandate(agent, open, {
      amount: 1500,
      payee: { id: 'merchant_2' },
      transactionId: 'tx-a',
    });
    const approved = await present(agentId, chainOf(open, closed));
    expect(approved.body.decision, approved.text).toBe('APPROVE');
    // The settlement never happened: the claim is PENDING again, as a killed process left it.
    await query(
      server,
      'live',
      (sql) => sql`update ap2_presentations set status = 'PENDING', authorization_id = null, consumed_at = null,
        claimed_at = now() - interval '1 hour' where closed_hash = ${hashOf(closed)}`,
    );
    const before = await footprint(agentId);
    const again = expectEnvelope(await present(agentId, chainOf(open, closed)), 409, 'ap2_mandate_already_consumed');
    expect(again.message).toContain(approved.body.authorization_id as string);
    const status = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(closed)}`, { apiKey: p.apiKey });
    expect(status.body).toMatchObject({ status: 'CONSUMED', authorization_id: approved.body.authorization_id });
    const sameTx = await closedMandate(agent, open, {
      amount: 1000,
      payee: { id: 'merchant_2' },
      transactionId: 'tx-a',
    });
    expectEnvelope(await present(agentId, chainOf(open, sameTx)), 409, 'ap2_mandate_already_consumed');
    expect(await footprint(agentId)).toEqual(before);
    expect((await eventsOf('ap2_mandate.consumed', agentId)).at(-1)).toMatchObject({
      closed_mandate_hash: hashOf(closed),
      authorization_id: approved.body.authorization_id,
      reconciled: true,
    });
  });
});

describe('the safe decision (system_unavailable, its commit possibly in doubt)', () => {
  it('keeps the claim PENDING; past the answer deadline it is settled from the authorizations table', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    expect((await importMandate(agentId, open)).status).toBe(201);
    const closed = await closedMandate(agent, open, { amount: 1000, payee: { id: 'merchant_1' } });
    // The agent's state cannot be loaded (a table of the load is out of reach): the safe DECLINE.
    await query(server, 'live', (sql) => sql`alter table authorizations rename to authorizations_out_of_reach`);
    try {
      const safe = await presentOnce(agentId, chainOf(open, closed), p, {});
      expect(safe.body.reason_codes, safe.text).toEqual(['system_unavailable']);
      expect((safe.body.ap2 as Record<string, unknown>).consumed).toBe(false);
      const status = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(closed)}`, { apiKey: p.apiKey });
      expect(status.body, status.text).toMatchObject({ kind: 'closed', status: 'PENDING', consumed: false });
      const busy = expectEnvelope(
        await presentOnce(agentId, chainOf(open, closed), p, {}),
        409,
        'ap2_mandate_already_consumed',
      );
      expect(busy.message).toContain('being presented');
    } finally {
      await query(server, 'live', (sql) => sql`alter table authorizations_out_of_reach rename to authorizations`);
    }
    // No APPROVE was recorded under that claim: past the deadline the next presentation takes it over.
    await new Promise((r) => setTimeout(r, 1100));
    const res = await present(agentId, chainOf(open, closed));
    expect(res.body.decision, res.text).toBe('APPROVE');
    expect((res.body.ap2 as Record<string, unknown>).consumed).toBe(true);
  });
});

describe('constraints that repeat a type all hold at once (intersected, never OR or last-wins)', () => {
  it('smallest max, largest min, smallest budget, common payees, fewest occurrences, narrowest window', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const soon = Date.now() + 86_400_000;
    const open = await openMandate(
      issuer,
      openContent(agent, [
        { type: 'payment.amount_range', currency: 'USD', max: 3000, min: 1000 },
        { type: 'payment.amount_range', currency: 'USD', max: 5000, min: 500 },
        { type: 'payment.budget', max: 40.0, currency: 'USD' },
        { type: 'payment.budget', max: 60.0, currency: 'USD' },
        { type: 'payment.allowed_payees', allowed: [{ id: 'merchant_1' }, { id: 'merchant_2' }] },
        { type: 'payment.allowed_payees', allowed: [{ id: 'merchant_2' }, { id: 'merchant_3' }] },
        { type: 'payment.agent_recurrence', frequency: 'ON_DEMAND', max_occurrences: 3 },
        { type: 'payment.agent_recurrence', frequency: 'ON_DEMAND', max_occurrences: 5 },
        { type: 'payment.execution_date', not_after: new Date(soon + 86_400_000).toISOString() },
        { type: 'payment.execution_date', not_after: new Date(soon).toISOString() },
        { type: 'payment.execution_date', not_before: new Date(soon - 3_600_000).toISOString() },
      ]),
    );
    const res = await importMandate(agentId, open);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      max_amount_per_transaction: 30,
      min_amount_per_transaction: 10,
      max_total_amount: 40,
      allowed_payees: ['merchant_2'],
      recurrence: { frequency: 'ON_DEMAND', max_occurrences: 3 },
      execution_window: {
        not_before: new Date(soon - 3_600_000).toISOString(),
        not_after: new Date(soon).toISOString(),
      },
    });
  });

  it('refuses what cannot hold at once: other frequencies, no payee in common, min above max', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const cases: [unknown[], string][] = [
      [
        [
          { type: 'payment.amount_range', currency: 'USD', max: 5000 },
          { type: 'payment.agent_recurrence', frequency: 'WEEKLY', max_occurrences: 3 },
          { type: 'payment.agent_recurrence', frequency: 'MONTHLY', max_occurrences: 5 },
        ],
        'constraints.2',
      ],
      [
        [
          { type: 'payment.amount_range', currency: 'USD', max: 5000 },
          { type: 'payment.allowed_payees', allowed: [{ id: 'merchant_1' }] },
          { type: 'payment.allowed_payees', allowed: [{ id: 'merchant_2' }] },
        ],
        'constraints',
      ],
      [
        [
          { type: 'payment.amount_range', currency: 'USD', max: 2000 },
          { type: 'payment.amount_range', currency: 'USD', max: 5000, min: 3000 },
        ],
        'constraints',
      ],
    ];
    for (const [constraints, field] of cases) {
      const res = await importMandate(agentId, await openMandate(issuer, openContent(agent, constraints)));
      const env = expectEnvelope(res, 422, 'unresolved_constraint');
      expect(
        (env.details ?? []).map((d) => d.field),
        res.text,
      ).toEqual([field]);
    }
    expect((await footprint(agentId)).imported).toBe(0);
  });
});

describe('times and keys', () => {
  it('valid_until is the earlier of the content exp and the credential exp', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const now = Math.floor(Date.now() / 1000);
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS, { exp: now + 30 * 86_400 }), {
      claims: { exp: now + 86_400 },
    });
    const res = await importMandate(agentId, open);
    expect(res.status, res.text).toBe(201);
    expect(res.body.valid_until).toBe(new Date((now + 86_400) * 1000).toISOString());
  });

  it('a closed mandate past its own exp, or signed too long ago, is refused and not consumed', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    expect((await importMandate(agentId, open)).status).toBe(201);
    const before = await footprint(agentId);
    const now = Math.floor(Date.now() / 1000);
    const expired = await closedMandate(agent, open, { amount: 1000, content: { exp: now - 60 } });
    const r1 = await present(agentId, chainOf(open, expired));
    expect(expectEnvelope(r1, 422, 'ap2_credential_expired').message).toContain('exp');
    const stale = await closedMandate(agent, open, { amount: 1000, iat: now - 2 * 86_400 });
    const r2 = await present(agentId, chainOf(open, stale));
    expect(expectEnvelope(r2, 422, 'ap2_credential_expired').message).toContain('iat');
    expect(await footprint(agentId)).toEqual(before);
  });

  it('a malformed JWK on PUT issuer-keys is 422, not 500', async () => {
    const q = await principal(server);
    const bad = { kty: 'EC', crv: 'P-256', kid: 'broken', x: 'AAAA', y: 'BBBB', alg: 'ES256' };
    const res = await putKeys(q, [bad]);
    const env = expectEnvelope(res, 422, 'validation_error');
    expect((env.details ?? []).map((d) => d.field)).toEqual(['keys.0']);
  });
});

describe('bad input: a clear error, nothing stored, no budget spent', () => {
  let agent: AgentKey;
  let agentId: string;

  beforeAll(async () => {
    agent = newAgentKey();
    agentId = await agentWithKey(server, p, agent);
  });

  async function refusedImport(credential: string, code: string, status = 422) {
    const before = await footprint(agentId);
    const res = await importMandate(agentId, credential);
    const env = expectEnvelope(res, status, code);
    expect(await footprint(agentId)).toEqual(before);
    expect(await refusalReceipt(res)).toMatchObject({
      status: 'Error',
      error: code === 'unresolved_constraint' ? 'unresolved_constraint' : 'invalid_credential',
      error_code: code,
    });
    return env;
  }

  it('a forged credential (signed by another key under the registered kid)', async () => {
    const forger = await newIssuer(issuer.kid);
    await refusedImport(await openMandate(forger, openContent(agent, CONSTRAINTS)), 'ap2_invalid_signature');
  });

  it('an expired one', async () => {
    const past = Math.floor(Date.now() / 1000) - 60;
    await refusedImport(
      await openMandate(issuer, openContent(agent, CONSTRAINTS, { iat: past - 3600, exp: past })),
      'ap2_credential_expired',
    );
  });

  it('a wrong vct (a closed mandate type offered as the grant)', async () => {
    await refusedImport(
      await openMandate(issuer, openContent(agent, CONSTRAINTS, { vct: 'mandate.payment.1' })),
      'ap2_wrong_vct',
    );
  });

  it('a disclosure that does not match its digest', async () => {
    const good = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    const [jwt, disclosure] = good.split('~');
    const decoded = JSON.parse(Buffer.from(disclosure as string, 'base64url').toString()) as [
      string,
      Record<string, unknown>,
    ];
    decoded[1].constraints = [{ type: 'payment.amount_range', currency: 'USD', max: 999999 }];
    const tampered = `${jwt}~${Buffer.from(JSON.stringify(decoded)).toString('base64url')}~`;
    await refusedImport(tampered, 'ap2_invalid_disclosure');
  });

  it('an unknown issuer key', async () => {
    const stranger = await newIssuer();
    await refusedImport(await openMandate(stranger, openContent(agent, CONSTRAINTS)), 'ap2_unknown_issuer_key');
  });

  it('a cnf key the agent does not hold', async () => {
    await refusedImport(
      await openMandate(issuer, openContent(newAgentKey(), CONSTRAINTS)),
      'ap2_agent_key_not_registered',
    );
  });

  it('constraints this service cannot enforce, each named', async () => {
    const env = await refusedImport(
      await openMandate(
        issuer,
        openContent(agent, [
          ...CONSTRAINTS,
          { type: 'payment.allowed_payment_instruments', allowed: [{ id: 'x', type: 'card' }] },
          { type: 'com.example.loyalty_points', min: 3 },
        ]),
      ),
      'unresolved_constraint',
    );
    expect((env.details ?? []).map((d) => d.field)).toEqual(['constraints.5', 'constraints.6']);
    expect((await eventsOf('ap2_mandate.refused', agentId)).at(-1)).toMatchObject({
      stage: 'import',
      error: 'unresolved_constraint',
      ap2_error: 'unresolved_constraint',
    });
  });

  it('constraints the holder left undisclosed are refused, each named; hidden allowed payees only narrow', async () => {
    // constraints[1] (the budget) and the content's payment_instrument are selectively disclosable.
    const frame = { delegate_payload: { _sd: [0], 0: { _sd: ['payment_instrument'], constraints: { _sd: [1] } } } };
    const full = await openMandate(
      issuer,
      openContent(agent, CONSTRAINTS, { payment_instrument: { id: 'card', type: 'card' } }),
      { frame },
    );
    const hidden = withoutDisclosures(
      full,
      (d) => d[1] === 'payment_instrument' || (d[1] as { type?: string } | null)?.type === 'payment.budget',
    );
    const env = await refusedImport(hidden, 'unresolved_constraint');
    expect((env.details ?? []).map((d) => d.field).sort()).toEqual(['_sd', 'constraints.1']);
    // An allowed payee hidden from the list: the mandate allows only the payees disclosed.
    const narrowed = withoutDisclosures(
      await openMandate(issuer, openContent(agent, CONSTRAINTS), {
        frame: { delegate_payload: { _sd: [0], 0: { constraints: { 2: { allowed: { _sd: [1] } } } } } },
      }),
      (d) => (d[1] as { id?: string } | null)?.id === 'merchant_2',
    );
    const ok = await importMandate(agentId, narrowed);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.allowed_payees).toEqual(['merchant_1']);
  });

  it('garbage', async () => {
    await refusedImport('not-an-sd-jwt-at-all-but-long-enough', 'ap2_malformed_credential');
  });

  it('closed mandates: not signed by the cnf key, not bound to the open mandate, not imported', async () => {
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    expect((await importMandate(agentId, open)).status).toBe(201);
    const before = await footprint(agentId);
    const other = newAgentKey();
    const wrongKey = await closedMandate(other, open, { amount: 1000 });
    expectEnvelope(await present(agentId, chainOf(open, wrongKey)), 422, 'ap2_key_binding_invalid');
    const unbound = await closedMandate(agent, open, { amount: 1000, sdHash: hashOf('something else') });
    expectEnvelope(await present(agentId, chainOf(open, unbound)), 422, 'ap2_key_binding_invalid');
    const notOpenVct = await closedMandate(agent, open, { amount: 1000, vct: 'mandate.payment.open.1' });
    expectEnvelope(await present(agentId, chainOf(open, notOpenVct)), 422, 'ap2_wrong_vct');
    const neverImported = await openMandate(
      issuer,
      openContent(agent, CONSTRAINTS, { exp: Math.floor(Date.now() / 1000) + 999 }),
    );
    const closed = await closedMandate(agent, neverImported, { amount: 1000 });
    expectEnvelope(await present(agentId, chainOf(neverImported, closed)), 422, 'ap2_mandate_not_imported');
    expect(await footprint(agentId)).toEqual(before);
  });
});

describe('an imported mandate is amended and revoked as any mandate', () => {
  it('PATCH only tightens its terms and keeps it spent by presentation only; a revoke stops presentations', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    const imported = await importMandate(agentId, open);
    expect(imported.status, imported.text).toBe(201);
    const mandateId = imported.body.id as string;
    const patched = await request(server, 'PATCH', `/api/v1/mandates/${mandateId}`, {
      apiKey: p.apiKey,
      body: { max_total_amount: '20.00', allowed_payees: ['merchant_1'] },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ max_total_amount: 20, allowed_payees: ['merchant_1'] });
    // Only tightening: nothing beyond what the issuer signed.
    const loosen = await request(server, 'PATCH', `/api/v1/mandates/${mandateId}`, {
      apiKey: p.apiKey,
      body: {
        max_total_amount: '30.00',
        max_amount_per_transaction: '60.00',
        allowed_payees: ['merchant_1', 'merchant_3'],
        min_amount_per_transaction: '1.00',
        recurrence: { frequency: 'ON_DEMAND', max_occurrences: 9 },
        valid_until: new Date(Date.now() + 90 * 86_400_000).toISOString(),
      },
    });
    const env = expectEnvelope(loosen, 422, 'validation_error');
    expect(env.message).toContain('AP2');
    expect((env.details ?? []).map((d) => d.field).sort()).toEqual([
      'allowed_payees',
      'max_amount_per_transaction',
      'max_total_amount',
      'min_amount_per_transaction',
      'recurrence',
      'valid_until',
    ]);
    for (const body of [{ max_total_amount: null }, { allowed_payees: null }, { recurrence: null }]) {
      const res = await request(server, 'PATCH', `/api/v1/mandates/${mandateId}`, { apiKey: p.apiKey, body });
      expectEnvelope(res, 422, 'validation_error');
    }
    const tighter = await request(server, 'PATCH', `/api/v1/mandates/${mandateId}`, {
      apiKey: p.apiKey,
      body: { max_amount_per_transaction: '45.00', recurrence: { frequency: 'ON_DEMAND', max_occurrences: 4 } },
    });
    expect(tighter.status, tighter.text).toBe(200);
    expect(tighter.body).toMatchObject({ max_amount_per_transaction: 45, max_total_amount: 20 });
    // Still not selected by a plain /authorize.
    const plain = await retried(() =>
      request(server, 'POST', '/api/v1/authorize', {
        apiKey: p.apiKey,
        body: authorizeBody(agentId, { amount: '10.00', merchant_id: 'merchant_1' }),
      }),
    );
    expect(plain.body.reason_codes).toEqual(['no_active_mandate']);
    const there = await closedMandate(agent, open, { amount: 1000, payee: { id: 'merchant_2' } });
    expect((await present(agentId, chainOf(open, there))).body.reason_codes).toEqual(['payee_not_allowed']);
    const over = await closedMandate(agent, open, { amount: 2001, payee: { id: 'merchant_1' } });
    expect((await present(agentId, chainOf(open, over))).body.reason_codes).toEqual(['total_limit_exceeded']);
    const revoked = await request(server, 'POST', `/api/v1/mandates/${mandateId}/revoke`, {
      apiKey: p.apiKey,
      body: { reason: 'The person withdrew consent' },
    });
    expect(revoked.status, revoked.text).toBe(200);
    const before = await footprint(agentId);
    const after = await closedMandate(agent, open, { amount: 1000, payee: { id: 'merchant_1' } });
    const res = await present(agentId, chainOf(open, after));
    expectEnvelope(res, 422, 'mandate_not_active');
    expect(res.body.message).toContain('REVOKED');
    expect(await footprint(agentId)).toEqual(before);
    const status = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(open)}`, { apiKey: p.apiKey });
    expect(status.body).toMatchObject({ kind: 'open', status: 'REVOKED' });
  });
});

describe('a presentation answered STEP_UP', () => {
  it('is not consumed, and the same closed mandate presented again once confirmed is approved and consumed', async () => {
    const q = await principal(server);
    const k = await newIssuer();
    expect((await putKeys(q, [k.publicJwk])).status).toBe(200);
    // Every decision steps up: the Principal's step-up threshold at 0.
    const t = await request(server, 'PUT', '/api/v1/thresholds', {
      apiKey: q.apiKey,
      body: { authorize_step_up_threshold: 0 },
    });
    expect(t.status, t.text).toBe(200);
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, q, agent);
    const open = await openMandate(k, openContent(agent, CONSTRAINTS));
    expect((await importMandate(agentId, open, q)).status).toBe(201);
    const closed = await closedMandate(agent, open, { amount: 2000, payee: { id: 'merchant_1' } });
    const first = await present(agentId, chainOf(open, closed), q);
    expect(first.body.decision, JSON.stringify(first.body)).toBe('STEP_UP');
    expect((first.body.ap2 as Record<string, unknown>).consumed).toBe(false);
    const confirmed = await present(agentId, chainOf(open, closed), q, { step_up_confirmed: true });
    expect(confirmed.body.decision, JSON.stringify(confirmed.body)).toBe('APPROVE');
    expect(confirmed.body.reason_codes).toEqual(['step_up_confirmed']);
    expect((confirmed.body.ap2 as Record<string, unknown>).consumed).toBe(true);
    expectEnvelope(
      await present(agentId, chainOf(open, closed), q, { step_up_confirmed: true }),
      409,
      'ap2_mandate_already_consumed',
    );
  });
});

describe('the agent presents with its own agent key', () => {
  it('gets the verdict and the receipt without the scores; another agent is forbidden', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    expect((await importMandate(agentId, open)).status).toBe(201);
    const issued = await request(server, 'POST', `/api/v1/agents/${agentId}/keys`, { apiKey: p.apiKey, body: {} });
    expect(issued.status, issued.text).toBe(201);
    const asAgent = { ...p, apiKey: issued.body.api_key as string };
    const closed = await closedMandate(agent, open, { amount: 1500, payee: { id: 'merchant_1' } });
    const res = await present(agentId, chainOf(open, closed), asAgent);
    expect(res.body.decision, JSON.stringify(res.body)).toBe('APPROVE');
    expect(res.body).toMatchObject({
      risk_score: null,
      trust_score: null,
      kya_score: null,
      intent_anomaly_score: null,
    });
    expect((res.body.risk_assessment as Record<string, unknown>).score).toBeNull();
    expect((await verifyWithJwks((res.body.ap2 as { receipt: string }).receipt)).payload).toMatchObject({
      status: 'Success',
    });
    const other = await agentWithKey(server, p, newAgentKey());
    expectEnvelope(await present(other, chainOf(open, closed), asAgent), 403, 'forbidden');
  });
});

describe('issuer keys per Principal', () => {
  it('rotate: a new key beside the old, then alone; the retired kid verifies no new import', async () => {
    const q = await principal(server);
    const k1 = await newIssuer('k1');
    const k2 = await newIssuer('k2');
    expect((await putKeys(q, [k1.publicJwk])).status).toBe(200);
    const both = await putKeys(q, [k1.publicJwk, k2.publicJwk]);
    expect((both.body.keys as { kid: string }[]).map((k) => k.kid)).toEqual(['k1', 'k2']);
    const rotated = await putKeys(q, [k2.publicJwk]);
    expect(rotated.body).toMatchObject({ keys: [{ kid: 'k2' }], retired: [{ kid: 'k1' }] });
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, q, agent);
    expectEnvelope(
      await importMandate(agentId, await openMandate(k1, openContent(agent, CONSTRAINTS)), q),
      422,
      'ap2_unknown_issuer_key',
    );
    expect((await importMandate(agentId, await openMandate(k2, openContent(agent, CONSTRAINTS)), q)).status).toBe(201);
    // Another Principal's issuer key verifies nothing here, and the JWKS is the Client's to set.
    expectEnvelope(
      await importMandate(agentId, await openMandate(issuer, openContent(agent, CONSTRAINTS)), q),
      422,
      'ap2_unknown_issuer_key',
    );
    const reused = await putKeys(q, [{ ...k1.publicJwk, kid: 'k2' }]);
    expectEnvelope(reused, 409, 'conflict');
    const foreign = await request(server, 'GET', `/api/v1/principals/${q.principalId}/ap2-issuer-keys`, {
      apiKey: p.clientKey,
    });
    expectEnvelope(foreign, 404, 'principal_not_found');
  });
});

describe('events', () => {
  it('imports, consumptions and refusals reach the webhook, signed like every delivery', async () => {
    const got = await receiver.waitFor(3, 10_000, (r) => r.path === '/ap2');
    const types = new Set(
      receiver.requests
        .filter((r) => r.path === '/ap2')
        .map((r) => (JSON.parse(r.body) as { event_type: string }).event_type),
    );
    expect(got.length).toBeGreaterThanOrEqual(3);
    expect([...types].sort()).toEqual(['ap2_mandate.consumed', 'ap2_mandate.imported', 'ap2_mandate.refused']);
  });
});

describe('the background sweep of stale claims (no second presentation needed)', () => {
  let agent: AgentKey;
  let agentId: string;
  let open: string;
  let mandateId: string;

  beforeAll(async () => {
    agent = newAgentKey();
    agentId = await agentWithKey(server, p, agent);
    open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    const res = await importMandate(agentId, open);
    expect(res.status, res.text).toBe(201);
    mandateId = res.body.id as string;
  });

  /** GET status by hash until `done` holds (the sweep runs every 200 ms), at most 10 s. */
  async function statusUntil(hash: string, done: (r: HttpResult) => boolean): Promise<HttpResult> {
    for (let i = 0; ; i++) {
      const r = await request(server, 'GET', `/api/v1/ap2-mandates/${hash}`, { apiKey: p.apiKey });
      if (done(r) || i >= 100) return r;
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  it('a stale claim with its APPROVE recorded becomes CONSUMED by that authorization, once', async () => {
    const closed = await closedMandate(agent, open, { amount: 1000, payee: { id: 'merchant_1' } });
    const approved = await present(agentId, chainOf(open, closed));
    expect(approved.body.decision, approved.text).toBe('APPROVE');
    // As a process killed between the decision and the settlement left it.
    await query(
      server,
      'live',
      (sql) => sql`update ap2_presentations set status = 'PENDING', authorization_id = null, consumed_at = null,
        claimed_at = now() - interval '1 hour' where closed_hash = ${hashOf(closed)}`,
    );
    const status = await statusUntil(hashOf(closed), (r) => r.body?.status === 'CONSUMED');
    expect(status.body, status.text).toMatchObject({
      status: 'CONSUMED',
      consumed: true,
      authorization_id: approved.body.authorization_id,
    });
    const pub = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(closed)}/status`);
    expect(pub.body).toMatchObject({ status: 'CONSUMED', authorization_id: approved.body.authorization_id });
    // Settled once: one reconciled event, and more sweeps change nothing.
    await new Promise((r) => setTimeout(r, 600));
    const reconciled = (await eventsOf('ap2_mandate.consumed', agentId)).filter(
      (e) => e.closed_mandate_hash === hashOf(closed) && e.reconciled === true,
    );
    expect(reconciled).toEqual([
      expect.objectContaining({ authorization_id: approved.body.authorization_id, amount: '10.00' }),
    ]);
    expectEnvelope(await present(agentId, chainOf(open, closed)), 409, 'ap2_mandate_already_consumed');
  });

  it('a stale claim with no decision recorded is released: unknown by hash, and presentable again', async () => {
    const closed = await closedMandate(agent, open, {
      amount: 1100,
      payee: { id: 'merchant_2' },
      transactionId: 'tx-swept',
    });
    await query(
      server,
      'live',
      (sql) => sql`insert into ap2_presentations (closed_hash, mandate_id, open_hash, transaction_id, principal_id,
          agent_id, status, amount, currency, payee_id, request_id, claimed_at)
        values (${hashOf(closed)}, ${mandateId}, ${hashOf(open)}, 'tx-swept', ${p.principalId}, ${agentId},
          'PENDING', 11, 'USD', 'merchant_2', 'req_killed_swept', now() - interval '1 hour')`,
    );
    const gone = await statusUntil(hashOf(closed), (r) => r.status === 404);
    expectEnvelope(gone, 404, 'ap2_mandate_unknown_hash');
    const res = await present(agentId, chainOf(open, closed));
    expect(res.body.decision, res.text).toBe('APPROVE');
    expect((res.body.ap2 as Record<string, unknown>).consumed).toBe(true);
  });

  it('a claim younger than the answer deadline (1 s here) is left PENDING', async () => {
    const closed = await closedMandate(agent, open, { amount: 1200, payee: { id: 'merchant_1' } });
    const started = Date.now();
    await query(
      server,
      'live',
      (sql) => sql`insert into ap2_presentations (closed_hash, mandate_id, open_hash, transaction_id, principal_id,
          agent_id, status, amount, currency, payee_id, request_id, claimed_at)
        values (${hashOf(closed)}, ${mandateId}, ${hashOf(open)}, 'tx-young', ${p.principalId}, ${agentId},
          'PENDING', 12, 'USD', 'merchant_1', 'req_in_flight', now())`,
    );
    // Two sweep periods, still inside the deadline (the read is checked only if it was).
    await new Promise((r) => setTimeout(r, 450));
    const status = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(closed)}`, { apiKey: p.apiKey });
    const elapsed = Date.now() - started;
    expect(elapsed, 'the machine was too slow to read within the deadline').toBeLessThan(1000);
    expect(status.body, status.text).toMatchObject({ status: 'PENDING', consumed: false });
    // Past it, released like any stale claim with no decision.
    expectEnvelope(await statusUntil(hashOf(closed), (r) => r.status === 404), 404, 'ap2_mandate_unknown_hash');
  });
});

describe('money in receipts and statements: the currency exponent; budgets finer than it are refused', () => {
  it('JPY: amounts without minor units; a budget of 10000.5 JPY or 10.001 USD is unresolved_constraint', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const before = await footprint(agentId);
    for (const [budget, currency] of [
      [10000.5, 'JPY'],
      [10.001, 'USD'],
    ] as const) {
      const bad = await openMandate(
        issuer,
        openContent(agent, [
          { type: 'payment.amount_range', currency, max: 5000 },
          { type: 'payment.budget', max: budget, currency },
        ]),
      );
      const res = await importMandate(agentId, bad);
      const env = expectEnvelope(res, 422, 'unresolved_constraint');
      expect(env.details, res.text).toEqual([
        expect.objectContaining({ field: 'constraints.1.max', message: expect.stringContaining(currency) }),
      ]);
    }
    expect(await footprint(agentId)).toEqual(before);
    const open = await openMandate(
      issuer,
      openContent(agent, [
        { type: 'payment.amount_range', currency: 'JPY', max: 5000 },
        { type: 'payment.budget', max: 10000, currency: 'JPY' },
      ]),
    );
    const imported = await importMandate(agentId, open);
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body).toMatchObject({ currency: 'JPY', max_amount_per_transaction: 5000, max_total_amount: 10000 });
    const closed = await closedMandate(agent, open, { amount: 200, currency: 'JPY' });
    const res = await present(agentId, chainOf(open, closed));
    expect(res.body.decision, res.text).toBe('APPROVE');
    const { payload } = await verifyWithJwks((res.body.ap2 as Record<string, unknown>).receipt as string);
    expect(payload).toMatchObject({ amount: '200', currency: 'JPY', payment_amount: { currency: 'JPY', amount: 200 } });
    const st = await request(server, 'GET', `/api/v1/mandates/${imported.body.id as string}/budget-statement`, {
      apiKey: p.apiKey,
    });
    expect(st.body.claims).toMatchObject({
      max_amount_per_transaction: '5000',
      windows: { max_total_amount: { limit: '10000', used: '200', held: '0', remaining: '9800' } },
    });
    expect((await verifyWithJwks(st.body.statement as string)).payload).toMatchObject(st.body.claims as object);
  });

  it('the mandate planes refuse 10.001 USD too, naming the field (create and PATCH)', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const created = await request(server, 'POST', '/api/v1/mandates', {
      apiKey: p.apiKey,
      body: {
        agent_id: agentId,
        valid_until: new Date(Date.now() + 86_400_000).toISOString(),
        max_amount_per_transaction: '10.00',
        max_total_amount: '10.001',
      },
    });
    const env = expectEnvelope(created, 422, 'validation_error');
    expect((env.details ?? []).map((d) => d.field)).toEqual(['max_total_amount']);
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    const imported = await importMandate(agentId, open);
    expect(imported.status, imported.text).toBe(201);
    const patched = await request(server, 'PATCH', `/api/v1/mandates/${imported.body.id as string}`, {
      apiKey: p.apiKey,
      body: { max_total_amount: '10.001' },
    });
    expect((expectEnvelope(patched, 422, 'validation_error').details ?? []).map((d) => d.field)).toEqual([
      'max_total_amount',
    ]);
  });
});

describe('an open mandate spent only by presentation gives an ordinary /authorize no room', () => {
  it('does not pull the Principal budget into the agent for a plain request; a presentation still may', async () => {
    const q = await principal(server);
    expect((await putKeys(q, [issuer.publicJwk])).status).toBe(200);
    const set = await request(server, 'PUT', `/api/v1/principals/${q.principalId}/budget`, {
      apiKey: q.apiKey,
      body: { amount: '100.00', currency: 'USD', window: 'month' },
    });
    expect(set.status, set.text).toBe(200);
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, q, agent);
    const open = await openMandate(
      issuer,
      openContent(agent, [{ type: 'payment.amount_range', currency: 'USD', max: 9000 }]),
    );
    expect((await importMandate(agentId, open, q)).status).toBe(201);
    // A plain request within the AP2 mandate's per-transaction cap: no mandate it may use.
    const plain = await retried(() =>
      request(server, 'POST', '/api/v1/authorize', {
        apiKey: q.apiKey,
        body: authorizeBody(agentId, { amount: '80.00', merchant_id: 'merchant_1' }),
      }),
    );
    expect(plain.body.reason_codes, plain.text).toEqual(['no_active_mandate']);
    const budget = await request(server, 'GET', `/api/v1/principals/${q.principalId}/budget`, { apiKey: q.apiKey });
    // The 80.00 was not pulled into this agent's slice (only the small slice an actor takes at
    // load, under 2.00 here), so another agent can spend all of the budget.
    const usage = budget.body.usage as { escrowed: number; remaining: number };
    expect(usage.escrowed, budget.text).toBeLessThan(80);
    expect(usage.remaining).toBe(100);
    const other = await request(server, 'POST', '/api/v1/agents', {
      apiKey: q.apiKey,
      body: { display_name: 'Other agent', capabilities: ['PURCHASE'] },
    });
    const otherId = other.body.id as string;
    const m = await request(server, 'POST', '/api/v1/mandates', {
      apiKey: q.apiKey,
      body: {
        agent_id: otherId,
        valid_until: new Date(Date.now() + 86_400_000).toISOString(),
        max_amount_per_transaction: '100.00',
      },
    });
    expect(m.status, m.text).toBe(201);
    const all = await retried(() =>
      request(server, 'POST', '/api/v1/authorize', {
        apiKey: q.apiKey,
        body: authorizeBody(otherId, { amount: '100.00', merchant_id: 'merchant_9' }),
      }),
    );
    expect(all.body.decision, all.text).toBe('APPROVE');
    // The presentation is covered by its own mandate: declined for the Principal budget, now spent.
    const closed = await closedMandate(agent, open, { amount: 5000 });
    const res = await present(agentId, chainOf(open, closed), q);
    expect(res.body.reason_codes, res.text).toEqual(['principal_budget_exhausted']);
  });
});

describe('sandbox statements are told apart from live ones', () => {
  it('carry environment sandbox and their own issuer: a verifier pinning the live issuer refuses them', async () => {
    const s = await newPrincipal(server, 'sandbox');
    await relaxRateGates(server, s.apiKey);
    expect((await putKeys(s, [issuer.publicJwk])).status).toBe(200);
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, s, agent);
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    const imported = await importMandate(agentId, open, s);
    expect(imported.status, imported.text).toBe(201);
    const closed = await closedMandate(agent, open, { amount: 1999 });
    const res = await present(agentId, chainOf(open, closed), s);
    expect(res.body.decision, res.text).toBe('APPROVE');
    const jwks = createLocalJWKSet((await request(server, 'GET', '/.well-known/jwks.json')).body as never);
    const receipt = (res.body.ap2 as Record<string, unknown>).receipt as string;
    const { payload } = await jwtVerify(receipt, jwks, { issuer: 'agent-spending-authorization/sandbox' });
    expect(payload).toMatchObject({ environment: 'sandbox', amount: '19.99' });
    await expect(jwtVerify(receipt, jwks, { issuer: 'agent-spending-authorization' })).rejects.toThrow(/iss/);
    const st = await request(server, 'GET', `/api/v1/mandates/${imported.body.id as string}/budget-statement`, {
      apiKey: s.apiKey,
    });
    expect(st.body.claims).toMatchObject({ environment: 'sandbox' });
    const signed = await jwtVerify(st.body.statement as string, jwks, {
      issuer: 'agent-spending-authorization/sandbox',
    });
    expect(signed.payload.environment).toBe('sandbox');
    const pub = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(closed)}/status`, {
      headers: { 'x-forwarded-for': '198.51.100.20' },
    });
    expect(pub.body).toMatchObject({ environment: 'sandbox', consumed: true });
    const pubSigned = await jwtVerify(pub.body.statement as string, jwks, {
      issuer: 'agent-spending-authorization/sandbox',
    });
    expect(pubSigned.payload.environment).toBe('sandbox');
    // A refusal's receipt too.
    const replay = await present(agentId, chainOf(open, closed), s);
    const refusal = await jwtVerify(replay.headers.get('ap2-receipt') as string, jwks, {
      issuer: 'agent-spending-authorization/sandbox',
    });
    expect(refusal.payload).toMatchObject({ environment: 'sandbox', error_code: 'ap2_mandate_already_consumed' });
  });
});

describe('the public status by hash is bounded per address', () => {
  it('one address past its burst gets 429 with Retry-After; another address and the credentialed status go on', async () => {
    const agent = newAgentKey();
    const agentId = await agentWithKey(server, p, agent);
    const open = await openMandate(issuer, openContent(agent, CONSTRAINTS));
    expect((await importMandate(agentId, open)).status).toBe(201);
    const path = `/api/v1/ap2-mandates/${hashOf(open)}/status`;
    const from = (ip: string) => request(server, 'GET', path, { headers: { 'x-forwarded-for': ip } });
    // The poller: 5 at once are answered, the next ones refused until a token comes back.
    const polled: HttpResult[] = [];
    for (let i = 0; i < 8; i++) polled.push(await from('203.0.113.7'));
    expect(polled.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = polled.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    const env = expectEnvelope(refused[0] as HttpResult, 429, 'rate_limited');
    expect(env.message.length).toBeGreaterThan(0);
    expect(Number((refused[0] as HttpResult).headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A merchant at another address is answered, and so is the Principal asking with its key.
    const merchant = await from('198.51.100.9');
    expect(merchant.status, merchant.text).toBe(200);
    expect(merchant.body).toMatchObject({ kind: 'open', status: 'ACTIVE' });
    const own = await request(server, 'GET', `/api/v1/ap2-mandates/${hashOf(open)}`, {
      apiKey: p.apiKey,
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(own.status, own.text).toBe(200);
    // After Retry-After the poller is answered again.
    await new Promise((r) => setTimeout(r, Number((refused[0] as HttpResult).headers.get('retry-after')) * 1000 + 100));
    expect((await from('203.0.113.7')).status).toBe(200);
  });
});
