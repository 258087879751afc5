import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519FromDidKey } from '../../src/domain/did.js';
import { agentBody, principalBody } from '../fixtures/onboarding.js';
import { insertPrincipalRow, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn, type TestSql } from '../fixtures/test-db.js';

let server: TestServer;
let client: ProvisionedClient;
let other: ProvisionedClient;
let programB: string;
let live: TestSql;

beforeAll(async () => {
  server = await startTestServer();
  client = await provisionClient(server);
  other = await provisionClient(server, { name: 'Other Client' });
  const second = await request(server, 'POST', `/admin/v1/clients/${client.clientId}/programs`, {
    adminKey: server.adminKey,
    body: { name: 'Second program' },
  });
  programB = second.body.id as string;
  live = sqlOn(server, 'live');
});
afterAll(async () => {
  await server?.close();
});

async function newPrincipal(programIds: string[], key = client.liveKey): Promise<string> {
  const res = await request(server, 'POST', '/api/v1/principals', {
    apiKey: key,
    body: principalBody(programIds[0] as string, { program_ids: programIds }),
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.id as string;
}

const postAgent = (principalId: string, body: unknown, key = client.liveKey) =>
  request(server, 'POST', `/api/v1/principals/${principalId}/agents`, { apiKey: key, body });

describe('POST /principals/{principal_id}/agents', () => {
  it('creates an ACTIVE REGISTERED agent inheriting the only Program, with a generated Ed25519 did:key', async () => {
    const principalId = await newPrincipal([client.programId]);
    const res = await postAgent(principalId, agentBody({ external_agent_ref: 'bot-7', metadata: { model: 'x' } }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      principal_id: principalId,
      client_id: client.clientId,
      program_id: client.programId,
      name: 'Shopping agent',
      status: 'ACTIVE',
      trust_level: 'REGISTERED',
      kya_score: null,
      capabilities: ['PURCHASE'],
      external_agent_ref: 'bot-7',
      metadata: { model: 'x' },
      did_method: 'key',
    });
    expect(res.body.id).toMatch(/^agt_/);
    expect(Date.parse(res.body.created_at as string)).toBeGreaterThan(Date.now() - 60_000);
    const did = res.body.did as string;
    // Ed25519 did:keys begin with z6Mk (multicodec 0xed01 under base58btc).
    expect(did).toMatch(/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/);
    expect(ed25519FromDidKey(did)?.length).toBe(32);
    const [row] = await live`select did, program_id, capabilities from agents where id = ${res.body.id as string}`;
    expect(row).toEqual({ did, program_id: client.programId, capabilities: ['PURCHASE'] });
  });

  it('keeps a supplied DID and free-form capabilities', async () => {
    const principalId = await newPrincipal([client.programId]);
    const did = `did:web:agents.example.com:bot${Date.now()}`;
    const res = await postAgent(principalId, agentBody({ did, capabilities: ['PURCHASE', 'travel.book'] }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ did, did_method: 'web', capabilities: ['PURCHASE', 'travel.book'] });
    expectEnvelope(await postAgent(principalId, agentBody({ did })), 409, 'conflict');
    const bad = expectEnvelope(
      await postAgent(principalId, agentBody({ did: 'not a did at all' })),
      422,
      'validation_error',
    );
    expect(bad.details?.[0]?.field).toBe('did');
  });

  it('requires program_id when the Principal is in several Programs, and accepts an enrolled one', async () => {
    const principalId = await newPrincipal([client.programId, programB]);
    const env = expectEnvelope(await postAgent(principalId, agentBody()), 422, 'principal_not_in_program');
    expect(env.details?.[0]?.field).toBe('program_id');
    const ok = await postAgent(principalId, agentBody({ program_id: programB }));
    expect(ok.status).toBe(201);
    expect(ok.body.program_id).toBe(programB);
  });

  it('refuses a Program the Principal is not enrolled in', async () => {
    const principalId = await newPrincipal([client.programId]);
    expectEnvelope(await postAgent(principalId, agentBody({ program_id: programB })), 422, 'principal_not_in_program');
    expectEnvelope(
      await postAgent(principalId, agentBody({ program_id: other.programId })),
      422,
      'principal_not_in_program',
    );
  });

  it('requires program_id when the Principal is in no Program', async () => {
    const principalId = await insertPrincipalRow(server, 'live', client.clientId);
    expectEnvelope(await postAgent(principalId, agentBody()), 422, 'principal_not_in_program');
  });

  it("answers 404 principal_not_found for another Client's Principal or an unknown one", async () => {
    const theirs = await newPrincipal([other.programId], other.liveKey);
    expectEnvelope(await postAgent(theirs, agentBody()), 404, 'principal_not_found');
    expectEnvelope(await postAgent('prn_unknown', agentBody()), 404, 'principal_not_found');
    expectEnvelope(await postAgent('%20%27%3B--', agentBody()), 404, 'principal_not_found');
    const [{ n }] = (await live`select count(*)::int as n from agents where principal_id = ${theirs}`) as never as [
      { n: number },
    ];
    expect(n).toBe(0);
  });

  it('answers validation_error for a missing name or empty capabilities', async () => {
    const principalId = await newPrincipal([client.programId]);
    const env = expectEnvelope(await postAgent(principalId, { capabilities: [] }), 422, 'validation_error');
    expect(env.details?.map((d) => d.field)).toEqual(expect.arrayContaining(['name', 'capabilities']));
  });
});

describe('GET /principals/{principal_id}/agents', () => {
  it('lists the agents with count', async () => {
    const principalId = await newPrincipal([client.programId]);
    const a = await postAgent(principalId, agentBody({ name: 'first' }));
    const b = await postAgent(principalId, agentBody({ name: 'second' }));
    const res = await request(server, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey: client.liveKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      principal_id: principalId,
      agents: [
        { id: a.body.id, name: 'first', status: 'ACTIVE', trust_level: 'REGISTERED', kya_score: null },
        { id: b.body.id, name: 'second', status: 'ACTIVE', trust_level: 'REGISTERED', kya_score: null },
      ],
      count: 2,
    });
  });

  it("answers 404 for another Client's Principal", async () => {
    const principalId = await newPrincipal([client.programId]);
    expectEnvelope(
      await request(server, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey: other.liveKey }),
      404,
      'principal_not_found',
    );
  });
});
