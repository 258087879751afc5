// The agents' MCP server served by the service itself (MCP_HTTP on, docs/mcp.md): one listener
// for every agent, each request acting for the agent of the agent key it presents
// (Authorization: Bearer). Driven by the SDK's own Client over streamable HTTP: two agents'
// purchases land on their own agents; no key, or a key that is not an agent key, is 401.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentWith, principal } from '../fixtures/holds.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let p: TestPrincipal;
let mcpUrl: string;
const clients: Client[] = [];

async function agentKeyOf(agentId: string): Promise<string> {
  const res = await request(server, 'POST', `/api/v1/agents/${agentId}/keys`, { apiKey: p.apiKey, body: {} });
  expect(res.status, res.text).toBe(201);
  return res.body.api_key as string;
}

async function connect(key: string): Promise<Client> {
  const c = new Client({ name: 'mcp-service-test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  clients.push(c);
  return c;
}

const purchase = {
  amount: '7.00',
  currency: 'USD',
  merchant_name: 'Corner Grocery',
  mcc: '5411',
  country: 'US',
  intent_type: 'purchase',
  task_reference: 'weekly groceries',
};

beforeAll(async () => {
  server = await startTestServer({ MCP_HTTP: 'on', MCP_HTTP_PORT: '0' });
  const url = server.app.mcpUrl;
  if (url === null) throw new Error('MCP_HTTP on, yet no MCP listener');
  mcpUrl = url;
  p = await principal(server);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await server?.close();
});

it("acts for the agent of each request's key, one listener for every agent", async () => {
  const a = await agentWith(server, p, {});
  const b = await agentWith(server, p, {});
  const [ca, cb] = [await connect(await agentKeyOf(a.agentId)), await connect(await agentKeyOf(b.agentId))];
  for (const [c, agent] of [
    [ca, a],
    [cb, b],
  ] as const) {
    const answer = (await c.callTool({ name: 'authorize_purchase', arguments: purchase })) as {
      structuredContent?: Record<string, unknown>;
    };
    expect(answer.structuredContent?.decision, JSON.stringify(answer)).toBe('APPROVE');
    const log = await request(server, 'GET', `/api/v1/authorize/log/${answer.structuredContent?.authorization_id}`, {
      apiKey: p.apiKey,
    });
    expect(log.body.agent_id).toBe(agent.agentId);
  }
});

it('answers 401 without a key, and to a key that is not an agent key', async () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const none = await fetch(mcpUrl, { method: 'POST', headers, body });
  expect(none.status).toBe(401);
  expect(none.headers.get('www-authenticate')).toBe('Bearer');
  // The Principal's own key can do much, but it is no agent's: the MCP server is for agents only.
  const principalKey = await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${p.apiKey}` },
    body,
  });
  expect(principalKey.status).toBe(401);
  const wrong = await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...headers, authorization: 'Bearer mdt_nope' },
    body,
  });
  expect(wrong.status).toBe(401);
});
