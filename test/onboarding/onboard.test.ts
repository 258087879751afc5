import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mandateBody, onboardBody, principalBody } from '../fixtures/onboarding.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn, type TestSql } from '../fixtures/test-db.js';

let server: TestServer;
let client: ProvisionedClient;
let live: TestSql;

beforeAll(async () => {
  server = await startTestServer();
  client = await provisionClient(server);
  live = sqlOn(server, 'live');
});
afterAll(async () => {
  await server?.close();
});

const onboard = (body: unknown) => request(server, 'POST', '/api/v1/onboard', { apiKey: client.liveKey, body });

async function countRows(ref: string): Promise<{ principals: number; agents: number; mandates: number }> {
  const [row] = await live<{ principals: number; agents: number; mandates: number }[]>`
    select (select count(*)::int from principals where client_id = ${client.clientId} and client_customer_ref = ${ref}) as principals,
      (select count(*)::int from agents a join principals p on p.id = a.principal_id
        where p.client_customer_ref = ${ref} and p.client_id = ${client.clientId}) as agents,
      (select count(*)::int from mandates m join principals p on p.id = m.principal_id
        where p.client_customer_ref = ${ref} and p.client_id = ${client.clientId}) as mandates`;
  return row as { principals: number; agents: number; mandates: number };
}

describe('POST /onboard', () => {
  it('creates the Principal, its Agent and a Mandate in one call (201)', async () => {
    const ref = 'onboard-ok';
    const res = await onboard(
      onboardBody(client.programId, { principal: principalBody(client.programId, { client_customer_ref: ref }) }),
    );
    expect(res.status).toBe(201);
    const { principal, agent, mandate } = res.body as Record<string, Record<string, unknown>>;
    expect(principal).toMatchObject({
      verification_status: 'VERIFIED',
      programs: [client.programId],
      client_customer_ref: ref,
    });
    expect(principal?.agents).toEqual([
      { id: agent?.id, name: 'Shopping agent', status: 'ACTIVE', trust_level: 'REGISTERED', kya_score: null },
    ]);
    expect(agent).toMatchObject({
      principal_id: principal?.id,
      client_id: client.clientId,
      program_id: client.programId,
    });
    expect(mandate).toMatchObject({
      agent_id: agent?.id,
      status: 'ACTIVE',
      limits: { max_amount_per_transaction: 250, max_daily_amount: 1000, currency: 'USD' },
    });
    expect(mandate?.mandate_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await countRows(ref)).toEqual({ principals: 1, agents: 1, mandates: 1 });

    // The new Principal reads its own record, agents included, with a Principal key.
    const { apiKey } = await issuePrincipalKey(server, principal?.id as string, 'live');
    const own = await request(server, 'GET', `/api/v1/principals/${principal?.id}`, { apiKey });
    expect(own.status).toBe(200);
    expect((own.body.agents as unknown[]).length).toBe(1);
  });

  it('answers 202 with a verification session when verification is pending', async () => {
    const res = await onboard(
      onboardBody(client.programId, {
        principal: principalBody(client.programId, { verification: { type: 'KYC', mode: 'platform_provider' } }),
      }),
    );
    expect(res.status).toBe(202);
    const principal = (res.body as { principal: Record<string, unknown> }).principal;
    expect(principal.verification_status).toBe('PENDING');
    expect(principal.verification_session).toMatchObject({ status: 'pending' });
  });

  it('leaves nothing behind when the mandate fails (crypto rail without a crypto block)', async () => {
    const ref = 'onboard-atomic-crypto';
    const res = await onboard(
      onboardBody(client.programId, {
        principal: principalBody(client.programId, { client_customer_ref: ref }),
        mandate: mandateBody({ rails: ['crypto'] }),
      }),
    );
    const env = expectEnvelope(res, 422, 'validation_error');
    expect(env.details?.[0]?.field).toBe('mandate.crypto');
    expect(await countRows(ref)).toEqual({ principals: 0, agents: 0, mandates: 0 });
  });

  it('leaves nothing behind when the mandate currency passes the schema but is not ISO 4217', async () => {
    const ref = 'onboard-atomic-currency';
    const res = await onboard(
      onboardBody(client.programId, {
        principal: principalBody(client.programId, { client_customer_ref: ref }),
        mandate: mandateBody({ limits: { max_amount_per_transaction: '10', max_daily_amount: '20', currency: 'QQQ' } }),
      }),
    );
    expect(expectEnvelope(res, 422, 'validation_error').details?.[0]?.field).toBe('mandate.limits.currency');
    expect(await countRows(ref)).toEqual({ principals: 0, agents: 0, mandates: 0 });
    // The same ref is free: the failed attempt really left no Principal.
    const retry = await onboard(
      onboardBody(client.programId, { principal: principalBody(client.programId, { client_customer_ref: ref }) }),
    );
    expect(retry.status).toBe(201);
    expect(await countRows(ref)).toEqual({ principals: 1, agents: 1, mandates: 1 });
  });

  it('leaves nothing behind when the agent fails, and reports principal errors under principal.*', async () => {
    const ref = 'onboard-atomic-agent';
    const bad = await onboard(
      onboardBody(client.programId, {
        principal: principalBody(client.programId, { client_customer_ref: ref }),
        agent: { name: 'x', did: 'nonsense' },
      }),
    );
    expect(expectEnvelope(bad, 422, 'validation_error').details?.[0]?.field).toBe('agent.did');
    expect(await countRows(ref)).toEqual({ principals: 0, agents: 0, mandates: 0 });
    const attest = await onboard(
      onboardBody(client.programId, {
        principal: principalBody(client.programId, { verification: { type: 'KYC', mode: 'client_attested' } }),
      }),
    );
    expect(expectEnvelope(attest, 422, 'attestation_required').details?.[0]?.field).toBe(
      'principal.verification.attestation',
    );
  });

  it('validates the whole body with fields named by their path', async () => {
    const env = expectEnvelope(await onboard({ principal: {}, agent: {} }), 422, 'validation_error');
    expect(env.details?.map((d) => d.field)).toEqual(
      expect.arrayContaining(['mandate', 'principal.principal_kind', 'agent.name']),
    );
  });
});
