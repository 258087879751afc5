// The response schemas (schemas/Runtime*.json, Threshold*.json) are what the OpenAPI document
// promises: every runtime-plane answer must validate against its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, inDays, newPrincipal, type TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectSchema } from '../fixtures/schemas.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let alice: TestPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  alice = await newPrincipal(server);
});
afterAll(async () => {
  await server?.close();
});

describe('runtime-plane responses match their schemas', () => {
  it('agents, metrics and status', async () => {
    const agent = await createAgent(server, alice, { metadata: { a: 1 } });
    expectSchema('RuntimeAgent', agent);
    expectSchema(
      'RuntimeAgent',
      (await request(server, 'GET', `/api/v1/agents/${agent.id}`, { apiKey: alice.apiKey })).body,
    );
    expectSchema('RuntimeAgentList', (await request(server, 'GET', '/api/v1/agents', { apiKey: alice.apiKey })).body);
    const metrics = await request(server, 'GET', `/api/v1/agents/${agent.id}/metrics`, { apiKey: alice.apiKey });
    expect(metrics.status).toBe(200);
    expectSchema('RuntimeAgentMetrics', metrics.body);
    const status = await request(server, 'PATCH', `/api/v1/agents/${agent.id}/status`, {
      apiKey: alice.apiKey,
      body: { status: 'SUSPENDED', reason: 'schema' },
    });
    expectSchema('RuntimeAgentStatusResponse', status.body);
  });

  it('mandates', async () => {
    const agent = await createAgent(server, alice);
    const created = await request(server, 'POST', '/api/v1/mandates', {
      apiKey: alice.apiKey,
      body: {
        agent_id: agent.id,
        valid_until: inDays(3),
        max_amount_per_transaction: '9.99',
        allowed_countries: ['DE'],
        allowed_chains: ['base'],
      },
    });
    expect(created.status).toBe(201);
    expectSchema('RuntimeMandate', created.body);
    expectSchema(
      'RuntimeMandate',
      (await request(server, 'GET', `/api/v1/mandates/${created.body.id}`, { apiKey: alice.apiKey })).body,
    );
    expectSchema(
      'RuntimeMandateList',
      (await request(server, 'GET', `/api/v1/mandates/agent/${agent.id}`, { apiKey: alice.apiKey })).body,
    );
  });

  it('thresholds', async () => {
    expectSchema('ThresholdsView', (await request(server, 'GET', '/api/v1/thresholds', { apiKey: alice.apiKey })).body);
    const put = await request(server, 'PUT', '/api/v1/thresholds', {
      apiKey: alice.apiKey,
      body: { cts_green_threshold: 0.8, session_max_consecutive_denials: 5 },
    });
    expectSchema('ThresholdsUpdateResponse', put.body);
    expectSchema('ThresholdsView', (await request(server, 'GET', '/api/v1/thresholds', { apiKey: alice.apiKey })).body);
    expectSchema(
      'ThresholdsResetResponse',
      (await request(server, 'DELETE', '/api/v1/thresholds', { apiKey: alice.apiKey })).body,
    );
  });
});
