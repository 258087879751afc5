// Every onboarding answer matches the response schema its route documents in the OpenAPI
// document (schemas/Principal.json, OnboardAgent.json, ...), checked with the build's own
// precompiled validators.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody, mandateBody, onboardBody, principalBody } from '../fixtures/onboarding.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectSchema } from '../fixtures/schemas.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let client: ProvisionedClient;

beforeAll(async () => {
  server = await startTestServer();
  client = await provisionClient(server);
});
afterAll(async () => {
  await server?.close();
});

describe('onboarding responses match their documented schemas', () => {
  it('POST /onboard (201 and 202), agents, mandates, programs, lists, GET principal, sandbox key', async () => {
    const key = client.sandboxKey;
    const onboard = await request(server, 'POST', '/api/v1/onboard', {
      apiKey: key,
      body: onboardBody(client.programId),
    });
    expect(onboard.status).toBe(201);
    expectSchema('OnboardResponse', onboard.body);
    const pending = await request(server, 'POST', '/api/v1/onboard', {
      apiKey: key,
      body: onboardBody(client.programId, {
        principal: principalBody(client.programId, { verification: { type: 'KYB', mode: 'platform_provider' } }),
        mandate: mandateBody({ rails: ['card', 'crypto'], crypto: { chains: ['base'], assets: ['USDC'] } }),
      }),
    });
    expect(pending.status).toBe(202);
    expectSchema('OnboardResponse', pending.body);

    const principalId = (onboard.body.principal as { id: string }).id;
    const principal = await request(server, 'POST', '/api/v1/principals', {
      apiKey: key,
      body: principalBody(client.programId),
    });
    expectSchema('Principal', principal.body);
    const agent = await request(server, 'POST', `/api/v1/principals/${principalId}/agents`, {
      apiKey: key,
      body: agentBody(),
    });
    expectSchema('OnboardAgent', agent.body);
    const mandate = await request(server, 'POST', `/api/v1/agents/${agent.body.id}/mandates`, {
      apiKey: key,
      body: mandateBody({ valid_until: '2030-06-01T12:00:00+02:00' }),
    });
    expectSchema('OnboardMandate', mandate.body);
    expect(mandate.body.valid_until).toBe('2030-06-01T10:00:00.000Z');
    const programs = await request(server, 'POST', `/api/v1/principals/${principalId}/programs`, {
      apiKey: key,
      body: { program_id: client.programId },
    });
    expectSchema('PrincipalPrograms', programs.body);
    const list = await request(server, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey: key });
    expectSchema('OnboardAgentList', list.body);
    const sandboxKey = await request(server, 'POST', `/api/v1/principals/${principalId}/sandbox-key`, { apiKey: key });
    expectSchema('PrincipalSandboxKey', sandboxKey.body);
    const own = await request(server, 'GET', `/api/v1/principals/${principalId}`, {
      apiKey: (await issuePrincipalKey(server, principalId, 'sandbox')).apiKey,
    });
    expectSchema('Principal', own.body);
  });

  it('documents every onboarding route in the OpenAPI document with its schemas', async () => {
    const doc = await request<{ paths: Record<string, Record<string, Record<string, unknown>>> }>(
      server,
      'GET',
      '/api/v1/openapi.json',
    );
    const paths = doc.body.paths;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/onboard',
        '/api/v1/principals',
        '/api/v1/principals/{principal_id}',
        '/api/v1/principals/{principal_id}/programs',
        '/api/v1/principals/{principal_id}/agents',
        '/api/v1/agents/{agent_id}/mandates',
        '/api/v1/principals/{principal_id}/sandbox-key',
      ]),
    );
    expect(JSON.stringify(paths['/api/v1/onboard']?.post?.requestBody)).toContain('OnboardRequest');
    expect(paths['/api/v1/principals/{principal_id}']?.get?.security).toEqual([{ principalKey: [] }, { bearer: [] }]);
  });
});
