import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody, mandateBody, onboardAgent, principalBody } from '../fixtures/onboarding.js';
import { type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn, type TestSql } from '../fixtures/test-db.js';

let server: TestServer;
let client: ProvisionedClient;
let other: ProvisionedClient;
let live: TestSql;
let sandbox: TestSql;

beforeAll(async () => {
  server = await startTestServer();
  client = await provisionClient(server);
  other = await provisionClient(server, { name: 'Other Client' });
  live = sqlOn(server, 'live');
  sandbox = sqlOn(server, 'sandbox');
});
afterAll(async () => {
  await server?.close();
});

const sandboxKeyPath = (id: string) => `/api/v1/principals/${id}/sandbox-key`;

describe('POST /principals/{principal_id}/sandbox-key', () => {
  it('issues a working Principal sandbox key with a sandbox Client key', async () => {
    const { principalId } = await onboardAgent(server, client.sandboxKey, client.programId);
    const res = await request(server, 'POST', sandboxKeyPath(principalId), { apiKey: client.sandboxKey });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ principal_id: principalId, env: 'sandbox' });
    expect(typeof res.body.message).toBe('string');
    const apiKey = res.body.api_key as string;
    expect(apiKey).toMatch(/^mdt_test_/);
    const own = await request(server, 'GET', `/api/v1/principals/${principalId}`, { apiKey });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(principalId);
    const [row] = await sandbox`select environment, principal_id from credentials where principal_id = ${principalId}`;
    expect(row).toEqual({ environment: 'sandbox', principal_id: principalId });
  });

  it('refuses a live Client key: 403 sandbox_only', async () => {
    const { principalId } = await onboardAgent(server, client.liveKey, client.programId);
    expectEnvelope(
      await request(server, 'POST', sandboxKeyPath(principalId), { apiKey: client.liveKey }),
      403,
      'sandbox_only',
    );
    const [row] = await live`select count(*)::int as n from credentials where principal_id = ${principalId}`;
    expect(row?.n).toBe(0);
  });

  it("answers 404 for another Client's sandbox Principal or a live one", async () => {
    const theirs = await onboardAgent(server, other.sandboxKey, other.programId);
    expectEnvelope(
      await request(server, 'POST', sandboxKeyPath(theirs.principalId), { apiKey: client.sandboxKey }),
      404,
      'principal_not_found',
    );
    const liveOne = await onboardAgent(server, client.liveKey, client.programId);
    expectEnvelope(
      await request(server, 'POST', sandboxKeyPath(liveOne.principalId), { apiKey: client.sandboxKey }),
      404,
      'principal_not_found',
    );
  });
});

describe('sandbox and live isolation of onboarding objects', () => {
  it('keeps a live Principal, Agent and Mandate out of the sandbox, and the reverse', async () => {
    const liveOne = await onboardAgent(server, client.liveKey, client.programId);
    const sandboxOne = await onboardAgent(server, client.sandboxKey, client.programId);

    const [inSandbox] = await sandbox`select count(*)::int as n from principals where id = ${liveOne.principalId}`;
    const [inLive] = await live`select count(*)::int as n from principals where id = ${sandboxOne.principalId}`;
    expect([inSandbox?.n, inLive?.n]).toEqual([0, 0]);

    for (const [one, key] of [
      [liveOne, client.sandboxKey],
      [sandboxOne, client.liveKey],
    ] as const) {
      const agents = `/api/v1/principals/${one.principalId}/agents`;
      expectEnvelope(await request(server, 'GET', agents, { apiKey: key }), 404, 'principal_not_found');
      expectEnvelope(
        await request(server, 'POST', agents, { apiKey: key, body: agentBody() }),
        404,
        'principal_not_found',
      );
      expectEnvelope(
        await request(server, 'POST', `/api/v1/principals/${one.principalId}/programs`, {
          apiKey: key,
          body: { program_id: client.programId },
        }),
        404,
        'principal_not_found',
      );
      expectEnvelope(
        await request(server, 'POST', `/api/v1/agents/${one.agentId}/mandates`, { apiKey: key, body: mandateBody() }),
        404,
        'principal_not_found',
      );
    }
    // Each environment sees its own.
    const own = await request(server, 'GET', `/api/v1/principals/${sandboxOne.principalId}/agents`, {
      apiKey: client.sandboxKey,
    });
    expect(own.body.count).toBe(1);
  });

  it('lets the same client_customer_ref exist once per environment', async () => {
    const body = principalBody(client.programId, { client_customer_ref: 'same-ref-both-envs' });
    const a = await request(server, 'POST', '/api/v1/principals', { apiKey: client.liveKey, body });
    const b = await request(server, 'POST', '/api/v1/principals', { apiKey: client.sandboxKey, body });
    expect([a.status, b.status]).toEqual([201, 201]);
  });
});
