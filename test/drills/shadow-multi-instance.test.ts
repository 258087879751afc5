// Shadow thresholds across instances (issue 17, docs/scale-out.md): a shadow set changed through
// one instance reaches the warm actors of the Principal's agents whichever instance owns them,
// before their next decision, like a live thresholds change.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPairWithFleet } from '../fixtures/drills/instances.js';
import { deleteStream, ownStream } from '../fixtures/drills/nats-stream.js';
import { request, type TestServer } from '../fixtures/server.js';
import { authorizeRecorded } from '../fixtures/threshold-traffic.js';

const ENV = { ...ownStream('shadow'), SECRETS_KEY: randomBytes(32).toString('base64') };
const AGENTS = 8;

let a: TestServer;
let b: TestServer | null = null;
let apiKey: string;
let agents: string[];

beforeAll(async () => {
  ({ a, b, apiKey, agents } = await startPairWithFleet(ENV, AGENTS, { perTransaction: '100.00', daily: '1000.00' }));
}, 60_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
  await deleteStream(ENV.NATS_STREAM);
});

function body(agentId: string, i: number): Record<string, unknown> {
  return {
    agent_id: agentId,
    amount: '10.00',
    currency: 'USD',
    merchant_name: `Grocery ${i}`,
    mcc: '5411',
    intent_context: { intent_type: 'groceries', task_reference: 'weekly' },
  };
}

async function shadowOf(server: TestServer, id: unknown): Promise<unknown> {
  const res = await request(server, 'GET', `/api/v1/authorize/log/${id}`, { apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body.shadow_decision;
}

describe('shadow thresholds on two instances', () => {
  it('a change through one instance reaches every warm owner before its next decision', async () => {
    const servers = [a, b as TestServer];
    // Warm every agent's actor on its owner, through both instances.
    for (const [i, agentId] of agents.entries()) {
      const res = await authorizeRecorded(servers[i % 2] as TestServer, apiKey, body(agentId, i));
      expect(res.body.decision, res.text).toBe('APPROVE');
      expect(await shadowOf(a, res.body.authorization_id)).toBeNull();
    }
    const set = await request(b as TestServer, 'PUT', '/api/v1/thresholds/shadow', {
      apiKey,
      body: { authorize_step_up_threshold: 0, risk_score_hard_decline: 1 },
    });
    expect(set.status, set.text).toBe(200);
    for (const [i, agentId] of agents.entries()) {
      const res = await authorizeRecorded(servers[(i + 1) % 2] as TestServer, apiKey, body(agentId, i));
      expect(res.body.decision, res.text).toBe('APPROVE');
      expect(await shadowOf(a, res.body.authorization_id), agentId).toBe('STEP_UP');
    }
    const del = await request(a, 'DELETE', '/api/v1/thresholds/shadow', { apiKey });
    expect(del.status).toBe(200);
    for (const [i, agentId] of agents.entries()) {
      const res = await authorizeRecorded(servers[i % 2] as TestServer, apiKey, body(agentId, i));
      expect(await shadowOf(b as TestServer, res.body.authorization_id), agentId).toBeNull();
    }
  });
});
