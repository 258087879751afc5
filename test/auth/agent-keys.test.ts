// Agent keys over HTTP (docs/auth.md "Agent keys"): a key the Principal issues for one of its
// agents decides, reads mandates and usage, settles holds and reads step-ups for that agent only;
// a sibling agent (by id or DID, in the path, the body or behind a resource) and every other
// endpoint are 403 forbidden; its dry run tells the verdict and reason codes, never scores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBody, query } from '../fixtures/engine-setup.js';
import { agentWith, principal } from '../fixtures/holds.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let p: TestPrincipal;
let own: { agentId: string; mandateId: string };
let sibling: { agentId: string; mandateId: string };
let agentKey: string;
let credentialId: string;

const asAgent = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  request(server, method, path, { apiKey: agentKey, headers, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  server = await startTestServer();
  p = await principal(server);
  own = await agentWith(server, p, { max_amount_per_transaction: '50.00', max_daily_amount: '200.00' });
  sibling = await agentWith(server, p, {});
  const issued = await request(server, 'POST', `/api/v1/agents/${own.agentId}/keys`, { apiKey: p.apiKey, body: {} });
  expect(issued.status, issued.text).toBe(201);
  agentKey = issued.body.api_key as string;
  const credential = issued.body.credential as Record<string, unknown>;
  credentialId = credential.id as string;
  expect(agentKey).toMatch(/^mdt_live_/);
  expect(credential).toMatchObject({
    principal_id: p.principalId,
    agent_id: own.agentId,
    environment: 'live',
    scopes: 'agent',
    status: 'active',
    expires_at: null,
  });
});
afterAll(async () => {
  await server?.close();
});

describe('issuing', () => {
  it('stores only the hash, with the agent, and records who issued it', async () => {
    const rows = await query(
      server,
      'live',
      (sql) => sql<{ agent_id: string; scopes: string }[]>`
        select agent_id, scopes from credentials where id = ${credentialId}`,
    );
    expect(rows).toEqual([{ agent_id: own.agentId, scopes: 'agent' }]);
    const log = await query(
      server,
      'live',
      (sql) => sql<{ changes: Record<string, unknown> }[]>`
        select changes from security_log where action = 'credential.created' and target_id = ${credentialId}`,
    );
    expect(log[0]?.changes).toMatchObject({ via: 'agent-key', agent_id: own.agentId });
  });

  it("needs the Principal's full credential and its own agent", async () => {
    const foreign = await principal(server);
    expectEnvelope(
      await request(server, 'POST', `/api/v1/agents/${own.agentId}/keys`, { apiKey: foreign.apiKey, body: {} }),
      404,
      'agent_not_found',
    );
    // An agent key cannot mint keys, for itself or a sibling.
    expectEnvelope(await asAgent('POST', `/api/v1/agents/${own.agentId}/keys`, {}), 403, 'forbidden');
    expectEnvelope(await asAgent('POST', `/api/v1/agents/${sibling.agentId}/keys`, {}), 403, 'forbidden');
    expectEnvelope(await asAgent('GET', `/api/v1/agents/${own.agentId}/keys`), 403, 'forbidden');
  });

  it('lists without the key, expires, and revokes at once', async () => {
    const expiring = await request(server, 'POST', `/api/v1/agents/${own.agentId}/keys`, {
      apiKey: p.apiKey,
      body: { expires_at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(expiring.status, expiring.text).toBe(201);
    const extra = expiring.body.credential as { id: string; expires_at: string };
    expect(extra.expires_at).not.toBeNull();
    const list = await request(server, 'GET', `/api/v1/agents/${own.agentId}/keys`, { apiKey: p.apiKey });
    expect(list.status, list.text).toBe(200);
    const keys = list.body.keys as Record<string, unknown>[];
    expect(keys.map((k) => k.id)).toEqual([extra.id, credentialId]);
    expect(list.text).not.toContain('mdt_');
    const key = expiring.body.api_key as string;
    const before = await request(server, 'GET', `/api/v1/mandates/agent/${own.agentId}`, { apiKey: key });
    expect(before.status, before.text).toBe(200);
    const revoked = await request(server, 'POST', `/api/v1/agents/${own.agentId}/keys/${extra.id}/revoke`, {
      apiKey: p.apiKey,
    });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.credential).toMatchObject({ id: extra.id, status: 'revoked', agent_id: own.agentId });
    expectEnvelope(
      await request(server, 'GET', `/api/v1/mandates/agent/${own.agentId}`, { apiKey: key }),
      401,
      'unauthorized',
    );
    // Under another agent's path it is not found.
    expectEnvelope(
      await request(server, 'POST', `/api/v1/agents/${sibling.agentId}/keys/${credentialId}/revoke`, {
        apiKey: p.apiKey,
      }),
      404,
      'credential_not_found',
    );
  });

  it('refuses the scope `agent` on an operator-issued key', async () => {
    const res = await request(server, 'POST', `/admin/v1/principals/${p.principalId}/credentials`, {
      adminKey: server.adminKey,
      body: { environment: 'live', scopes: 'agent' },
    });
    expectEnvelope(res, 422, 'validation_error');
  });
});

describe('its own agent', () => {
  it('decides, places a hold and captures it', async () => {
    const res = await asAgent('POST', '/api/v1/authorize', authorizeBody(own.agentId, { amount: '12.00' }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.decision).toBe('APPROVE');
    // The scores are withheld from the agent (no oracle); the Principal's key gets them.
    expect(res.body).toMatchObject({
      risk_score: null,
      kya_score: null,
      trust_score: null,
      intent_anomaly_score: null,
    });
    expect((res.body.risk_assessment as Record<string, unknown>).score).toBeNull();
    expect(res.body.receipt).toEqual(expect.any(String));
    const byPrincipal = await request(server, 'POST', '/api/v1/authorize', {
      apiKey: p.apiKey,
      body: authorizeBody(own.agentId, { amount: '12.00' }),
    });
    expect(byPrincipal.status, byPrincipal.text).toBe(200);
    expect(byPrincipal.body.risk_score).toEqual(expect.any(Number));
    expect((byPrincipal.body.risk_assessment as Record<string, unknown>).score).toEqual(expect.any(Number));
    const hold = await asAgent(
      'POST',
      '/api/v1/authorize',
      authorizeBody(own.agentId, { amount: '5.00', capture_method: 'manual' }),
    );
    expect(hold.body).toMatchObject({ decision: 'APPROVE', status: 'HELD' });
    const capture = await asAgent('POST', `/api/v1/authorizations/${hold.body.authorization_id}/capture`, {
      amount: '4.00',
    });
    expect(capture.status, capture.text).toBe(200);
    expect(capture.body).toMatchObject({ status: 'CAPTURED', captured_amount: 4, released_amount: 1 });
    const second = await asAgent(
      'POST',
      '/api/v1/authorize',
      authorizeBody(own.agentId, { amount: '3.00', capture_method: 'manual' }),
    );
    const release = await asAgent('POST', `/api/v1/authorizations/${second.body.authorization_id}/release`, {});
    expect(release.status, release.text).toBe(200);
    expect(release.body.status).toBe('RELEASED');
  });

  it('tells the agent it acts for, and only to an agent key', async () => {
    const self = await asAgent('GET', '/api/v1/agent-key');
    expect(self.status, self.text).toBe(200);
    expect(self.body).toMatchObject({ id: credentialId, agent_id: own.agentId, scopes: 'agent', status: 'active' });
    expect(self.text).not.toContain('mdt_');
    expectEnvelope(await request(server, 'GET', '/api/v1/agent-key', { apiKey: p.apiKey }), 403, 'forbidden');
  });

  it('reads its mandates and what is left of them', async () => {
    const list = await asAgent('GET', `/api/v1/mandates/agent/${own.agentId}`);
    expect(list.status, list.text).toBe(200);
    expect((list.body.mandates as { id: string }[]).map((m) => m.id)).toEqual([own.mandateId]);
    const one = await asAgent('GET', `/api/v1/mandates/${own.mandateId}`);
    expect(one.status, one.text).toBe(200);
    expect(one.body.usage).toBeDefined();
  });

  it('decides by its DID too', async () => {
    const agent = await request(server, 'GET', `/api/v1/agents/${own.agentId}`, { apiKey: p.apiKey });
    const did = agent.body.did as string;
    const { agent_id: _omit, ...body } = authorizeBody(own.agentId, { amount: '2.00' });
    const res = await asAgent('POST', '/api/v1/authorize', { ...body, agent_did: did });
    expect(res.status, res.text).toBe(200);
    expect(res.body.agent_id).toBe(own.agentId);
  });

  it('gets the verdict and reason codes of a dry run, no scores, thresholds or margins', async () => {
    const res = await asAgent('POST', '/api/v1/authorize/explain', authorizeBody(own.agentId, { amount: '80.00' }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.disclosure).toBe('verdict');
    expect(res.body.decision).toBe('DECLINE');
    expect(res.body.reason_codes).toEqual(expect.arrayContaining([expect.any(String)]));
    const full = await request(server, 'POST', '/api/v1/authorize/explain', {
      apiKey: p.apiKey,
      body: authorizeBody(own.agentId, { amount: '80.00' }),
    });
    expect(full.body.disclosure).toBe('full');
    // Every field the full answer adds is left out, and nothing looks like a score.
    const hidden = Object.keys(full.body).filter((k) => !(k in res.body));
    expect(hidden.length).toBeGreaterThan(0);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'agent_id',
        'amount',
        'authorization_id',
        'currency',
        'decision',
        'disclosure',
        'dry_run',
        'processing_time_ms',
        'reason_codes',
        'timestamp',
      ].sort(),
    );
    expect(res.text).not.toMatch(/score|threshold|margin/i);
  });

  it('works through an access token minted from it, bound the same way', async () => {
    const token = await request(server, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: p.principalId, client_secret: agentKey },
    });
    expect(token.status, token.text).toBe(200);
    expect(token.body.scope).toBe('agent');
    const bearer = token.body.access_token as string;
    const claims = JSON.parse(Buffer.from(bearer.split('.')[1] as string, 'base64url').toString('utf8'));
    expect(claims.agt).toBe(own.agentId);
    const ok = await request(server, 'POST', '/api/v1/authorize', {
      bearer,
      body: authorizeBody(own.agentId, { amount: '1.00' }),
    });
    expect(ok.status, ok.text).toBe(200);
    expectEnvelope(
      await request(server, 'POST', '/api/v1/authorize', { bearer, body: authorizeBody(sibling.agentId) }),
      403,
      'forbidden',
    );
    expectEnvelope(await request(server, 'GET', '/api/v1/thresholds', { bearer }), 403, 'forbidden');
  });
});

describe('anything else', () => {
  it('is refused for a sibling agent, by id, DID, path or resource', async () => {
    expectEnvelope(await asAgent('POST', '/api/v1/authorize', authorizeBody(sibling.agentId)), 403, 'forbidden');
    expectEnvelope(
      await asAgent('POST', '/api/v1/authorize/explain', authorizeBody(sibling.agentId)),
      403,
      'forbidden',
    );
    const agent = await request(server, 'GET', `/api/v1/agents/${sibling.agentId}`, { apiKey: p.apiKey });
    const { agent_id: _omit, ...body } = authorizeBody(sibling.agentId);
    expectEnvelope(
      await asAgent('POST', '/api/v1/authorize', { ...body, agent_did: agent.body.did }),
      403,
      'forbidden',
    );
    expectEnvelope(await asAgent('GET', `/api/v1/mandates/agent/${sibling.agentId}`), 403, 'forbidden');
    expectEnvelope(await asAgent('GET', `/api/v1/mandates/${sibling.mandateId}`), 403, 'forbidden');
    // The sibling's hold, placed by the Principal: the agent key cannot settle it.
    const hold = await request(server, 'POST', '/api/v1/authorize', {
      apiKey: p.apiKey,
      body: authorizeBody(sibling.agentId, { amount: '5.00', capture_method: 'manual' }),
    });
    expect(hold.body.status, hold.text).toBe('HELD');
    const id = hold.body.authorization_id as string;
    expectEnvelope(await asAgent('POST', `/api/v1/authorizations/${id}/capture`, {}), 403, 'forbidden');
    expectEnvelope(await asAgent('POST', `/api/v1/authorizations/${id}/release`, {}), 403, 'forbidden');
    const still = await request(server, 'GET', `/api/v1/authorize/log/${id}`, { apiKey: p.apiKey });
    expect(still.body.status).toBe('HELD');
  });

  it("reads its own agent's decisions in the log, and no other agent's", async () => {
    const res = await asAgent('GET', `/api/v1/authorize/log/agent/${own.agentId}?limit=5`);
    expect(res.status, res.text).toBe(200);
    const items = res.body.items as Record<string, unknown>[];
    expect(items.length).toBeGreaterThan(0);
    // Only what the log shows anyone: no score, gate or explanation.
    for (const item of items)
      expect(Object.keys(item).sort()).toEqual(['amount', 'created_at', 'currency', 'decision', 'id']);
    expectEnvelope(await asAgent('GET', `/api/v1/authorize/log/agent/${sibling.agentId}`), 403, 'forbidden');
  });

  it('is refused on every other endpoint', async () => {
    const hold = await asAgent(
      'POST',
      '/api/v1/authorize',
      authorizeBody(own.agentId, { amount: '2.00', capture_method: 'manual' }),
    );
    const id = hold.body.authorization_id as string;
    const refused: [string, string, unknown?][] = [
      ['GET', `/api/v1/authorize/log/${id}`],
      ['POST', `/api/v1/authorizations/${id}/refund`, {}],
      ['GET', `/api/v1/agents/${own.agentId}`],
      ['GET', '/api/v1/agents'],
      ['GET', '/api/v1/thresholds'],
      ['PUT', '/api/v1/thresholds', { authorize_step_up_threshold: 1 }],
      ['POST', `/api/v1/mandates/${own.mandateId}/revoke`, { reason: 'no' }],
      ['PATCH', `/api/v1/mandates/${own.mandateId}`, { max_amount_per_transaction: '5000.00' }],
      ['POST', '/api/v1/mandates', { agent_id: own.agentId, valid_until: '2099-01-01T00:00:00Z' }],
      ['GET', `/api/v1/principals/${p.principalId}/step-up-policy`],
      ['GET', '/api/v1/webhooks'],
    ];
    for (const [method, path, body] of refused) {
      const res = await asAgent(method, path, body);
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 403`);
      expectEnvelope(res, 403, 'forbidden');
    }
    // On the Client plane it is no key at all.
    expectEnvelope(
      await request(server, 'GET', `/api/v1/principals/${p.principalId}/agents`, { apiKey: agentKey }),
      401,
      'unauthorized',
    );
  });
});

describe('step-ups', () => {
  it('reads its own step-ups, not a sibling’s, and confirms none', async () => {
    // Every decision of this Principal steps up, and a STEP_UP waits for the Principal.
    const q = await principal(server);
    const thresholds = await request(server, 'PUT', '/api/v1/thresholds', {
      apiKey: q.apiKey,
      body: { authorize_step_up_threshold: 0 },
    });
    expect(thresholds.status, thresholds.text).toBe(200);
    const policy = await request(server, 'PUT', `/api/v1/principals/${q.principalId}/step-up-policy`, {
      apiKey: q.apiKey,
      body: { confirmation: 'principal' },
    });
    expect(policy.status, policy.text).toBe(200);
    const mine = await agentWith(server, q, {});
    const theirs = await agentWith(server, q, {});
    const issued = await request(server, 'POST', `/api/v1/agents/${mine.agentId}/keys`, { apiKey: q.apiKey });
    expect(issued.status, issued.text).toBe(201);
    const key = issued.body.api_key as string;
    const stepped = await request(server, 'POST', '/api/v1/authorize', {
      apiKey: key,
      body: authorizeBody(mine.agentId, { amount: '7.00' }),
    });
    expect(stepped.body.decision, stepped.text).toBe('STEP_UP');
    const id = stepped.body.step_up_id as string;
    const status = await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: key });
    expect(status.status, status.text).toBe(200);
    expect(status.body).toMatchObject({ step_up_id: id, status: 'PENDING', agent_id: mine.agentId });
    expectEnvelope(await request(server, 'POST', `/api/v1/step-ups/${id}/confirm`, { apiKey: key, body: {} }), 403);
    const other = await request(server, 'POST', '/api/v1/authorize', {
      apiKey: q.apiKey,
      body: authorizeBody(theirs.agentId, { amount: '7.00' }),
    });
    expect(other.body.decision, other.text).toBe('STEP_UP');
    expectEnvelope(
      await request(server, 'GET', `/api/v1/step-ups/${other.body.step_up_id}`, { apiKey: key }),
      403,
      'forbidden',
    );
  });
});
