// The per-agent bound on mandates: at most 100 unexpired ACTIVE mandates per agent, on both
// planes, 422 mandate_limit_reached beyond it; expired mandates free their place; concurrent
// creations cannot pass the bound; other agents are not affected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBody } from '../fixtures/engine-setup.js';
import { mandateBody, onboardAgent } from '../fixtures/onboarding.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { inDays, withDb } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

const LIMIT = 100;
let server: TestServer;
let client: ProvisionedClient;
let principalKey: string;
let agentId: string;

beforeAll(async () => {
  server = await startTestServer();
  client = await provisionClient(server);
  // POST /onboard gives the agent its first mandate.
  const o = await onboardAgent(server, client.liveKey, client.programId);
  agentId = o.agentId;
  principalKey = (await issuePrincipalKey(server, o.principalId, 'live')).apiKey;
});
afterAll(async () => {
  await server?.close();
});

const runtimeMandate = (agent: string, amount = '50.00') =>
  request(server, 'POST', '/api/v1/mandates', {
    apiKey: principalKey,
    body: { agent_id: agent, valid_until: inDays(30), max_amount_per_transaction: amount, currency: 'USD' },
  });

async function liveCount(agent: string, status: 'ACTIVE' | 'EXPIRED'): Promise<number> {
  const res = await request(server, 'GET', `/api/v1/mandates/agent/${agent}?status=${status}`, {
    apiKey: principalKey,
  });
  expect(res.status).toBe(200);
  return res.body.total as number;
}

describe('mandates per agent', () => {
  it(`holds at most ${LIMIT} unexpired ACTIVE mandates per agent, on both planes`, async () => {
    for (let created = 1; created < LIMIT; ) {
      const wave = Math.min(10, LIMIT - created);
      const results = await Promise.all(Array.from({ length: wave }, () => runtimeMandate(agentId)));
      for (const r of results) expect(r.status, r.text).toBe(201);
      created += wave;
    }
    expect(await liveCount(agentId, 'ACTIVE')).toBe(LIMIT);

    const runtime = expectEnvelope(await runtimeMandate(agentId), 422, 'mandate_limit_reached');
    expect(runtime.message).toContain(String(LIMIT));
    const onboarding = await request(server, 'POST', `/api/v1/agents/${agentId}/mandates`, {
      apiKey: client.liveKey,
      body: mandateBody(),
    });
    expectEnvelope(onboarding, 422, 'mandate_limit_reached');
    // Refused creations stored nothing.
    expect(await liveCount(agentId, 'ACTIVE')).toBe(LIMIT);

    // Another agent of the same Principal has its own room.
    const other = await request(server, 'POST', '/api/v1/agents', {
      apiKey: principalKey,
      body: { display_name: 'Second agent', capabilities: ['PURCHASE'] },
    });
    expect(other.status, other.text).toBe(201);
    expect((await runtimeMandate(other.body.id as string)).status).toBe(201);
  });

  it('gives the places of expired mandates back, and concurrent creations cannot pass the bound', async () => {
    // Three mandates reach their valid_until (the API cannot make time pass).
    await withDb(
      server,
      'live',
      (sql) => sql`
      update mandates set valid_from = now() - interval '2 days', valid_until = now() - interval '1 day'
      where id in (select id from mandates where agent_id = ${agentId} order by created_at, id limit 3)`,
    );
    expect(await liveCount(agentId, 'EXPIRED')).toBe(3);
    expect(await liveCount(agentId, 'ACTIVE')).toBe(LIMIT - 3);

    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => runtimeMandate(agentId, `${60 + i}.00`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 422, 422, 422, 422, 422, 422, 422]);
    for (const r of results) if (r.status === 422) expectEnvelope(r, 422, 'mandate_limit_reached');
    expect(await liveCount(agentId, 'ACTIVE')).toBe(LIMIT);

    // The agent still decides, on its newest mandate.
    const list = await request(server, 'GET', `/api/v1/mandates/agent/${agentId}?status=ACTIVE`, {
      apiKey: principalKey,
    });
    const newest = (list.body.mandates as { id: string }[])[0]?.id;
    expect(results.filter((r) => r.status === 201).map((r) => r.body.id)).toContain(newest);
    const res = await request(server, 'POST', '/api/v1/authorize', {
      apiKey: principalKey,
      body: authorizeBody(agentId),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.decision).toBe('APPROVE');
    expect(res.body.mandate_id).toBe(newest);
  });
});
