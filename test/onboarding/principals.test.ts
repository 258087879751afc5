import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalBody } from '../fixtures/onboarding.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn, type TestSql } from '../fixtures/test-db.js';

let server: TestServer;
let client: ProvisionedClient;
let other: ProvisionedClient;
let live: TestSql;

beforeAll(async () => {
  server = await startTestServer();
  client = await provisionClient(server);
  other = await provisionClient(server, { name: 'Other Client' });
  live = sqlOn(server, 'live');
});
afterAll(async () => {
  await server?.close();
});

const post = (body: unknown, key = client.liveKey) =>
  request(server, 'POST', '/api/v1/principals', { apiKey: key, body });

describe('POST /principals', () => {
  it('registers a client_attested Principal as VERIFIED with 201', async () => {
    const body = principalBody(client.programId, { client_customer_ref: 'cust-attested-1' });
    const res = await post(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      client_id: client.clientId,
      principal_kind: 'personal',
      client_customer_ref: 'cust-attested-1',
      verification_status: 'VERIFIED',
      verification_mode: 'client_attested',
      risk_tier: 'LOW',
      programs: [client.programId],
      agents: [],
      verification_session: null,
      metadata: { tier: 'gold' },
    });
    expect(res.body.id).toMatch(/^prn_[0-9A-Za-z]{24}$/);
    expect(new Date(res.body.created_at as string).toISOString()).toBe(res.body.created_at);
    // Country accepted as alpha-2, kept as alpha-3.
    expect((res.body.profile as { country: string }).country).toBe('USA');
    const [row] = await live`select client_id, verification_status from principals where id = ${res.body.id as string}`;
    expect(row).toEqual({ client_id: client.clientId, verification_status: 'VERIFIED' });
  });

  it('registers a platform_provider Principal as PENDING with 202 and a verification session', async () => {
    const res = await post(
      principalBody(client.programId, {
        verification: { type: 'KYB', mode: 'platform_provider' },
        principal_kind: 'merchant',
      }),
    );
    expect(res.status).toBe(202);
    expect(res.body.verification_status).toBe('PENDING');
    expect(res.body.verification_mode).toBe('platform_provider');
    const session = res.body.verification_session as Record<string, string>;
    expect(session).toMatchObject({ provider: 'platform', type: 'KYB', status: 'pending' });
    expect(session.id).toMatch(/^vs_/);
    expect(Date.parse(session.expires_at as string)).toBeGreaterThan(Date.now());
  });

  it('refuses client_attested without an attestation: 422 attestation_required', async () => {
    const res = await post(principalBody(client.programId, { verification: { type: 'KYC', mode: 'client_attested' } }));
    const env = expectEnvelope(res, 422, 'attestation_required');
    expect(env.details?.[0]?.field).toBe('verification.attestation');
  });

  it('refuses an sms step-up without any phone: 422 invalid_phone_format', async () => {
    const body = principalBody(client.programId, { step_up: { method: 'sms' } });
    delete (body.profile as Record<string, unknown>).phone;
    expectEnvelope(await post(body), 422, 'invalid_phone_format');
  });

  it('refuses a phone that is not E.164: 422 invalid_phone_format', async () => {
    const inStepUp = principalBody(client.programId, { step_up: { method: 'sms', phone: '415-555-0123' } });
    expect(expectEnvelope(await post(inStepUp), 422, 'invalid_phone_format').details?.[0]?.field).toBe('step_up.phone');
    const inProfile = principalBody(client.programId);
    (inProfile.profile as Record<string, unknown>).phone = '0044 20 7946 0958';
    expect(expectEnvelope(await post(inProfile), 422, 'invalid_phone_format').details?.[0]?.field).toBe(
      'profile.phone',
    );
  });

  it('accepts an sms step-up with the phone in step_up only', async () => {
    const body = principalBody(client.programId, { step_up: { method: 'sms', phone: '+447700900123' } });
    delete (body.profile as Record<string, unknown>).phone;
    expect((await post(body)).status).toBe(201);
  });

  it("refuses another Client's Program, or an unknown one: 422 program_not_owned, nothing stored", async () => {
    const ref = 'cust-foreign-program';
    const res = await post(
      principalBody(client.programId, { program_ids: [client.programId, other.programId], client_customer_ref: ref }),
    );
    const env = expectEnvelope(res, 422, 'program_not_owned');
    expect(env.details?.[0]?.field).toBe('program_ids');
    expectEnvelope(await post(principalBody('prg_doesnotexist')), 422, 'program_not_owned');
    const [{ n }] =
      (await live`select count(*)::int as n from principals where client_customer_ref = ${ref}`) as never as [
        { n: number },
      ];
    expect(n).toBe(0);
  });

  it('refuses a client_customer_ref already used by the Client: 409, but another Client may use it', async () => {
    const ref = 'cust-dup';
    expect((await post(principalBody(client.programId, { client_customer_ref: ref }))).status).toBe(201);
    expectEnvelope(
      await post(principalBody(client.programId, { client_customer_ref: ref })),
      409,
      'duplicate_client_customer_ref',
    );
    expect((await post(principalBody(other.programId, { client_customer_ref: ref }), other.liveKey)).status).toBe(201);
  });

  it('answers schema failures with validation_error naming each field', async () => {
    const body = principalBody(client.programId, { principal_kind: 'robot', extra: 1 });
    delete (body.profile as Record<string, unknown>).email;
    const env = expectEnvelope(await post(body), 422, 'validation_error');
    const fields = env.details?.map((d) => d.field) ?? [];
    expect(fields).toEqual(expect.arrayContaining(['principal_kind', 'profile.email', 'extra']));
    const bad = principalBody(client.programId, { program_ids: [] });
    (bad.profile as Record<string, unknown>).country = 'XX';
    expect(expectEnvelope(await post(bad), 422, 'validation_error').details?.map((d) => d.field)).toContain(
      'program_ids',
    );
    const country = principalBody(client.programId);
    (country.profile as Record<string, unknown>).country = 'XX';
    expect(expectEnvelope(await post(country), 422, 'validation_error').details?.[0]?.field).toBe('profile.country');
  });

  it('refuses a Principal key on the Client plane: 401', async () => {
    const created = await post(principalBody(client.programId));
    const { apiKey } = await issuePrincipalKey(server, created.body.id as string, 'live');
    expectEnvelope(await post(principalBody(client.programId), apiKey), 401, 'unauthorized');
  });
});

describe('GET /principals/{principal_id}', () => {
  it("returns the caller's own record with its Principal key, 403 for another prn_", async () => {
    const a = await post(principalBody(client.programId, { client_customer_ref: 'cust-read-a' }));
    const b = await post(principalBody(client.programId));
    const { apiKey } = await issuePrincipalKey(server, a.body.id as string, 'live');
    const own = await request(server, 'GET', `/api/v1/principals/${a.body.id}`, { apiKey });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      id: a.body.id,
      principal_kind: 'personal',
      verification_status: 'VERIFIED',
      risk_tier: 'LOW',
      client_customer_ref: 'cust-read-a',
      programs: [client.programId],
    });
    expectEnvelope(await request(server, 'GET', `/api/v1/principals/${b.body.id}`, { apiKey }), 403, 'forbidden');
  });

  it('refuses a Client key: 401', async () => {
    const a = await post(principalBody(client.programId));
    expectEnvelope(await request(server, 'GET', `/api/v1/principals/${a.body.id}`, { apiKey: client.liveKey }), 401);
  });
});

describe('POST /principals/{principal_id}/programs', () => {
  it('enrolls idempotently and lists every Program', async () => {
    const second = await request(server, 'POST', `/admin/v1/clients/${client.clientId}/programs`, {
      adminKey: server.adminKey,
      body: { name: 'Second' },
    });
    const programB = second.body.id as string;
    const p = await post(principalBody(client.programId));
    const path = `/api/v1/principals/${p.body.id}/programs`;
    const first = await request(server, 'POST', path, { apiKey: client.liveKey, body: { program_id: programB } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ principal_id: p.body.id, programs: [client.programId, programB] });
    const again = await request(server, 'POST', path, { apiKey: client.liveKey, body: { program_id: programB } });
    expect(again.body).toEqual(first.body);
  });

  it("refuses another Client's Program (422) and another Client's Principal (404)", async () => {
    const p = await post(principalBody(client.programId));
    const path = `/api/v1/principals/${p.body.id}/programs`;
    expectEnvelope(
      await request(server, 'POST', path, { apiKey: client.liveKey, body: { program_id: other.programId } }),
      422,
      'program_not_owned',
    );
    expectEnvelope(
      await request(server, 'POST', path, { apiKey: other.liveKey, body: { program_id: other.programId } }),
      404,
      'principal_not_found',
    );
    expectEnvelope(await request(server, 'POST', path, { apiKey: client.liveKey, body: {} }), 422, 'validation_error');
  });
});

describe('bodies PostgreSQL cannot store', () => {
  it('refuses a NUL character in program_id with validation_error (was a 500)', async () => {
    const p = await post(principalBody(client.programId));
    const res = await request(server, 'POST', `/api/v1/principals/${p.body.id}/programs`, {
      apiKey: client.liveKey,
      body: { program_id: 'a\u0000b' },
    });
    expect(expectEnvelope(res, 422, 'validation_error').details?.[0]?.field).toBe('program_id');
  });

  it('refuses NUL characters and very deep metadata on registration', async () => {
    const nul = expectEnvelope(await post(principalBody(client.programId, { metadata: { note: 'x\u0000' } })), 422);
    expect(nul.details?.[0]?.field).toBe('metadata.note');
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { a: deep };
    expectEnvelope(await post(principalBody(client.programId, { metadata: { deep } })), 422, 'validation_error');
  });
});
