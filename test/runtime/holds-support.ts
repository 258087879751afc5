// Shared by the holds and limits tests: a Principal (own Client), agents with a runtime-plane
// mandate of given limits, decisions, hold operations and the events the outbox recorded.
import { expect } from 'vitest';
import { authorizeBody, query, relaxRateGates } from '../engine/support.js';
import { type HttpResult, request, type TestServer } from '../fixtures/server.js';
import { newPrincipal, type TestPrincipal } from './setup.js';

export async function principal(server: TestServer): Promise<TestPrincipal> {
  const p = await newPrincipal(server);
  await relaxRateGates(server, p.apiKey);
  return p;
}

/** A new agent of `p` with one USD mandate (per-transaction 20 unless set) and these fields. */
export async function agentWith(
  server: TestServer,
  p: TestPrincipal,
  mandate: Record<string, unknown>,
): Promise<{ agentId: string; mandateId: string }> {
  const agent = await request(server, 'POST', '/api/v1/agents', {
    apiKey: p.apiKey,
    body: { display_name: 'Shopping agent', capabilities: ['PURCHASE'] },
  });
  expect(agent.status, agent.text).toBe(201);
  const agentId = agent.body.id as string;
  const m = await request(server, 'POST', '/api/v1/mandates', {
    apiKey: p.apiKey,
    body: {
      agent_id: agentId,
      valid_until: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      max_amount_per_transaction: '20.00',
      currency: 'USD',
      ...mandate,
    },
  });
  expect(m.status, m.text).toBe(201);
  return { agentId, mandateId: m.body.id as string };
}

export async function decide(
  server: TestServer,
  p: TestPrincipal,
  agentId: string,
  amount: string,
  over: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const res = await request(server, 'POST', '/api/v1/authorize', {
    apiKey: p.apiKey,
    body: authorizeBody(agentId, { amount, ...over }),
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** A decision that must be APPROVE (a hold with manual). */
export async function approve(
  server: TestServer,
  p: TestPrincipal,
  agentId: string,
  amount: string,
  manual = false,
): Promise<string> {
  const body = await decide(server, p, agentId, amount, manual ? { capture_method: 'manual' } : {});
  expect(body.decision, JSON.stringify(body)).toBe('APPROVE');
  expect(body.status).toBe(manual ? 'HELD' : 'CAPTURED');
  return body.authorization_id as string;
}

export function op(
  server: TestServer,
  p: TestPrincipal,
  id: string,
  action: 'capture' | 'release' | 'refund',
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return request(server, 'POST', `/api/v1/authorizations/${id}/${action}`, { apiKey: p.apiKey, body, headers });
}

/** The events of `type` the outbox holds for an authorization (or a mandate), in order. */
export async function events(
  server: TestServer,
  type: string,
  key: { authorization_id?: string; mandate_id?: string },
): Promise<Record<string, unknown>[]> {
  const rows = await query(server, 'live', (sql) =>
    key.authorization_id !== undefined
      ? sql<{ data: Record<string, unknown> }[]>`select payload->'data' as data from outbox_events
          where event_type = ${type} and payload->'data'->>'authorization_id' = ${key.authorization_id}
          order by seq, position`
      : sql<{ data: Record<string, unknown> }[]>`select payload->'data' as data from outbox_events
          where event_type = ${type} and payload->'data'->>'mandate_id' = ${key.mandate_id ?? ''}
          order by seq, position`,
  );
  return rows.map((r) => r.data);
}

export async function usage(
  server: TestServer,
  p: TestPrincipal,
  mandateId: string,
): Promise<Record<string, Record<string, unknown>>> {
  const res = await request(server, 'GET', `/api/v1/mandates/${mandateId}`, { apiKey: p.apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body.usage as Record<string, Record<string, unknown>>;
}
