// A DID is unique within its Client, not across tenants (issue 11, migration 0090): two Clients
// register agents with the same DID, each resolves to its own agent on /authorize, and within
// one Client the duplicate is refused with 409 conflict naming the did field, on both planes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboardAgent } from '../fixtures/onboarding.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let clientA: ProvisionedClient;
let clientB: ProvisionedClient;
const did = `did:web:agents.example.com:shared-${Date.now().toString(36)}`;

interface Tenant {
  principalId: string;
  agentId: string;
  apiKey: string;
}
let a: Tenant;
let b: Tenant;

const mandate = {
  rails: ['card'],
  limits: { max_amount_per_transaction: '250.00', max_daily_amount: '1000.00', currency: 'USD' },
};

beforeAll(async () => {
  server = await startTestServer();
  clientA = await provisionClient(server, { name: 'Client A' });
  clientB = await provisionClient(server, { name: 'Client B' });
  // Client A registers the DID on the onboarding plane.
  const oa = await onboardAgent(server, clientA.liveKey, clientA.programId, { agent: { name: 'A bot', did }, mandate });
  a = {
    principalId: oa.principalId,
    agentId: oa.agentId,
    apiKey: (await issuePrincipalKey(server, oa.principalId, 'live')).apiKey,
  };
  // Client B registers the same DID on the runtime plane, with its own mandate.
  const ob = await onboardAgent(server, clientB.liveKey, clientB.programId, { mandate });
  const keyB = (await issuePrincipalKey(server, ob.principalId, 'live')).apiKey;
  const agent = await request(server, 'POST', '/api/v1/agents', {
    apiKey: keyB,
    body: { display_name: 'B bot', capabilities: ['PURCHASE'], did },
  });
  expect(agent.status, agent.text).toBe(201);
  const m = await request(server, 'POST', '/api/v1/mandates', {
    apiKey: keyB,
    body: {
      agent_id: agent.body.id,
      valid_until: new Date(Date.now() + 86_400_000).toISOString(),
      max_amount_per_transaction: '250.00',
      max_daily_amount: '1000.00',
      currency: 'USD',
    },
  });
  expect(m.status, m.text).toBe(201);
  b = { principalId: ob.principalId, agentId: agent.body.id as string, apiKey: keyB };
});
afterAll(async () => {
  await server?.close();
});

let seq = 0;
function byDid(apiKey: string) {
  seq++;
  return request(server, 'POST', '/api/v1/authorize', {
    apiKey,
    body: {
      agent_did: did,
      amount: '10.00',
      currency: 'USD',
      merchant_name: 'Corner Grocery',
      mcc: '5411',
      country: 'US',
      intent_context: { intent_type: 'purchase', task_reference: `groceries ${seq}` },
    },
  });
}

describe('a DID is unique within its Client', () => {
  it('two Clients hold the same DID, each for its own agent', () => {
    expect(a.agentId).not.toBe(b.agentId);
  });

  it('POST /authorize by agent_did resolves to the caller’s own agent, whichever Client asked first', async () => {
    // Interleaved, so a resolver cache keyed without the Client would hand one its neighbour's agent.
    for (const [who, expected] of [
      [a, a.agentId],
      [b, b.agentId],
      [a, a.agentId],
      [b, b.agentId],
    ] as const) {
      const res = await byDid(who.apiKey);
      expect(res.status, res.text).toBe(200);
      expect(res.body.agent_id).toBe(expected);
      expect(res.body.decision).toBe('APPROVE');
    }
  });

  it('within one Client the duplicate is refused: 409 conflict naming did, on both planes', async () => {
    // Onboarding plane: another Principal of Client A.
    const dup = await request(server, 'POST', '/api/v1/onboard', {
      apiKey: clientA.liveKey,
      body: (await import('../fixtures/onboarding.js')).onboardBody(clientA.programId, {
        agent: { name: 'Squatter', did },
        mandate,
      }),
    });
    expect(expectEnvelope(dup, 409, 'conflict').details?.[0]?.field).toBe('agent.did');
    // Runtime plane: A's Principal registering it again.
    const again = await request(server, 'POST', '/api/v1/agents', {
      apiKey: a.apiKey,
      body: { display_name: 'Copy', capabilities: ['PURCHASE'], did },
    });
    expect(expectEnvelope(again, 409, 'conflict').details?.[0]?.field).toBe('did');
    // Runtime plane, Client B: its own duplicate is refused as well.
    const againB = await request(server, 'POST', '/api/v1/agents', {
      apiKey: b.apiKey,
      body: { display_name: 'Copy', capabilities: ['PURCHASE'], did },
    });
    expect(expectEnvelope(againB, 409, 'conflict').details?.[0]?.field).toBe('did');
    // The refused registrations left each Client's resolution untouched.
    expect((await byDid(a.apiKey)).body.agent_id).toBe(a.agentId);
    expect((await byDid(b.apiKey)).body.agent_id).toBe(b.agentId);
  });
});
