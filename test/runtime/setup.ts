// Principals for the runtime-plane tests: each gets its own Client (so isolation is tested
// across tenants too), a Principal row enrolled in one Program, a Principal API key and, on
// request, a Bearer token from POST /oauth/token.
import { type Env, insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { request, type TestServer } from '../fixtures/server.js';

export interface TestPrincipal {
  readonly clientId: string;
  readonly programId: string;
  readonly principalId: string;
  readonly apiKey: string;
  /** The Client's key of the same environment (onboarding plane). */
  readonly clientKey: string;
}

export async function newPrincipal(server: TestServer, env: Env = 'live'): Promise<TestPrincipal> {
  const client = await provisionClient(server);
  const principalId = await insertPrincipalRow(server, env, client.clientId, client.programId);
  const { apiKey } = await issuePrincipalKey(server, principalId, env);
  const clientKey = env === 'live' ? client.liveKey : client.sandboxKey;
  return { clientId: client.clientId, programId: client.programId, principalId, apiKey, clientKey };
}

export async function bearerFor(server: TestServer, p: TestPrincipal): Promise<string> {
  const res = await request(server, 'POST', '/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: p.principalId, client_secret: p.apiKey },
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}

export async function createAgent(
  server: TestServer,
  p: TestPrincipal,
  body: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const res = await request(server, 'POST', '/api/v1/agents', {
    apiKey: p.apiKey,
    body: { display_name: 'Shopping agent', capabilities: ['PURCHASE'], ...body },
  });
  if (res.status !== 201) throw new Error(`create agent: ${res.status} ${res.text}`);
  return res.body;
}

export function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString();
}

/** Runs SQL against one of the server's databases (to set up states the API cannot reach, e.g. elapsed time). */
export { withDb } from '../fixtures/test-db.js';
