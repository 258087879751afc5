// Shared setup of the engine tests: a Client provisioned through the operator plane, Principals
// with an Agent and a Mandate created through POST /onboard, and a Principal key for each.

import type postgres from 'postgres';
import { expect } from 'vitest';
import { onboardAgent } from '../fixtures/onboarding.js';
import { type Env, issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { type HttpResult, request, type TestServer } from '../fixtures/server.js';
import { withDb } from '../fixtures/test-db.js';

export interface EngineFixture {
  readonly client: ProvisionedClient;
  readonly principalId: string;
  readonly agentId: string;
  readonly mandateId: string;
  readonly apiKey: string;
}

/** A Principal with one agent and one mandate (`mandate` overrides the onboarding mandate body). */
/** What the provisioning calls need of a server (an in-process TestServer or a spawned process). */
export interface ServerTarget {
  readonly url: string;
  readonly adminKey: string;
}

export async function onboardWithKey(
  server: ServerTarget,
  client: ProvisionedClient,
  mandate: Record<string, unknown> = {},
  env: Env = 'live',
): Promise<EngineFixture> {
  const clientKey = env === 'live' ? client.liveKey : client.sandboxKey;
  const mandateBody = {
    rails: ['card'],
    limits: { max_amount_per_transaction: '250.00', max_daily_amount: '1000.00', currency: 'USD' },
    ...mandate,
  };
  const o = await onboardAgent(server, clientKey, client.programId, { mandate: mandateBody });
  const { apiKey } = await issuePrincipalKey(server, o.principalId, env);
  return { client, principalId: o.principalId, agentId: o.agentId, mandateId: o.mandateId, apiKey };
}

export async function setup(
  server: ServerTarget,
  mandate: Record<string, unknown> = {},
  env: Env = 'live',
): Promise<EngineFixture> {
  return onboardWithKey(server, await provisionClient(server), mandate, env);
}

let seq = 0;

export function authorizeBody(agentId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  seq++;
  return {
    agent_id: agentId,
    amount: '10.00',
    currency: 'USD',
    merchant_name: 'Corner Grocery',
    mcc: '5411',
    country: 'US',
    intent_context: { intent_type: 'purchase', task_reference: `weekly groceries ${seq % 3}` },
    ...over,
  };
}

export function authorize(
  server: { url: string },
  apiKey: string,
  body: Record<string, unknown>,
): Promise<HttpResult<Record<string, unknown>>> {
  return request(server, 'POST', '/api/v1/authorize', { apiKey, body });
}

export function query<T extends Record<string, unknown>>(
  server: TestServer,
  env: Env,
  fn: (sql: postgres.Sql) => Promise<T[]>,
): Promise<T[]> {
  return withDb(server, env, fn);
}

/**
 * A further agent of the fixture's Principal, registered on the runtime plane, with one USD
 * mandate valid for a day and the given per-transaction and daily limits.
 */
export async function addAgentWithMandate(
  server: TestServer,
  apiKey: string,
  name: string,
  limits: { perTransaction: string; daily: string },
): Promise<string> {
  const agent = await request(server, 'POST', '/api/v1/agents', {
    apiKey,
    body: { display_name: name, capabilities: ['PURCHASE'] },
  });
  expect(agent.status, agent.text).toBe(201);
  const agentId = agent.body.id as string;
  const mandate = await request(server, 'POST', '/api/v1/mandates', {
    apiKey,
    body: {
      agent_id: agentId,
      valid_until: new Date(Date.now() + 86_400_000).toISOString(),
      max_amount_per_transaction: limits.perTransaction,
      max_daily_amount: limits.daily,
      currency: 'USD',
    },
  });
  expect(mandate.status, mandate.text).toBe(201);
  return agentId;
}

export { RESPONSE_FIELDS } from '../fixtures/authorize-fields.js';

/** Lifts the request-count risk gates (rapid-fire, velocity) so a test can stream decisions. */
export async function relaxRateGates(server: { url: string }, apiKey: string): Promise<void> {
  const res = await request(server, 'PUT', '/api/v1/thresholds', {
    apiKey,
    body: { rapid_fire_max_count: 65_535, risk_velocity_max_count: 65_535 },
  });
  if (res.status !== 200) throw new Error(`PUT /thresholds: ${res.status} ${res.text}`);
}
