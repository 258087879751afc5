// The runtime plane's agents: registration (with and without a DID proof), listing, reading and
// status changes, across Principals and credentials; input PostgreSQL cannot store; environments.
// One server and its Principals shared by every agent endpoint's cases.
import { generateKeyPairSync, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePrincipalKey } from '../fixtures/provision.js';
import {
  bearerFor,
  createAgent,
  inDays,
  newPrincipal,
  type TestPrincipal,
  withDb,
} from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let alice: TestPrincipal;
let bob: TestPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  alice = await newPrincipal(server);
  bob = await newPrincipal(server);
});
afterAll(async () => {
  await server?.close();
});

function keyPair(): { jwk: { kty: string; crv: string; x: string }; proof: (payload: unknown) => string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
  return {
    jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
    proof(payload) {
      const h = Buffer.from(JSON.stringify({ alg: 'EdDSA' })).toString('base64url');
      const p = Buffer.from(JSON.stringify(payload)).toString('base64url');
      const s = sign(null, Buffer.from(`${h}.${p}`), privateKey).toString('base64url');
      return `${h}.${p}.${s}`;
    },
  };
}

describe('POST /api/v1/agents', () => {
  it('creates an ACTIVE, REGISTERED agent with a generated did:key and the runtime shape', async () => {
    const res = await request(server, 'POST', '/api/v1/agents', {
      apiKey: alice.apiKey,
      body: { display_name: 'Groceries bot', capabilities: ['PURCHASE', 'SUBSCRIPTION'], metadata: { team: 'home' } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^agt_[0-9A-Za-z]{24}$/),
      principal_id: alice.principalId,
      program_id: alice.programId,
      did: expect.stringMatching(/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/),
      did_method: 'key',
      display_name: 'Groceries bot',
      status: 'ACTIVE',
      trust_level: 'REGISTERED',
      kya_score: null,
      capabilities: ['PURCHASE', 'SUBSCRIPTION'],
      metadata: { team: 'home' },
      total_transactions: 0,
      decline_rate: 0,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it('keeps a supplied DID and reports its method', async () => {
    const did = `did:web:agents.example.com:${Date.now()}`;
    const agent = await createAgent(server, alice, { did });
    expect(agent.did).toBe(did);
    expect(agent.did_method).toBe('web');
  });

  it('refuses a DID already registered in the same Client with 409; another Client may hold it', async () => {
    const did = `did:web:dup.example.com:${Date.now()}`;
    await createAgent(server, alice, { did });
    const res = await request(server, 'POST', '/api/v1/agents', {
      apiKey: alice.apiKey,
      body: { display_name: 'Copy', capabilities: ['PURCHASE'], did },
    });
    expect(expectEnvelope(res, 409, 'conflict').details?.[0]?.field).toBe('did');
    // bob's Principal belongs to another Client: a DID is unique within a Client only.
    expect((await createAgent(server, bob, { did })).did).toBe(did);
  });

  it('rejects missing or unknown capabilities, an empty list and bad DIDs with field details', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ display_name: 'x' }, 'capabilities'],
      [{ display_name: 'x', capabilities: [] }, 'capabilities'],
      [{ display_name: 'x', capabilities: ['SHOPLIFT'] }, 'capabilities.0'],
      [{ capabilities: ['PURCHASE'] }, 'display_name'],
      [{ display_name: 'x', capabilities: ['PURCHASE'], did: 'not-a-did' }, 'did'],
      [{ display_name: 'x', capabilities: ['PURCHASE'], colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const res = await request(server, 'POST', '/api/v1/agents', { apiKey: alice.apiKey, body });
      const env = expectEnvelope(res, 422, 'validation_error');
      expect(env.details?.map((d) => d.field)).toContain(field);
    }
  });

  it('accepts principal_id equal to the caller and refuses another Principal with 403', async () => {
    const ok = await createAgent(server, alice, { principal_id: alice.principalId });
    expect(ok.principal_id).toBe(alice.principalId);
    const res = await request(server, 'POST', '/api/v1/agents', {
      apiKey: alice.apiKey,
      body: { display_name: 'x', capabilities: ['PURCHASE'], principal_id: bob.principalId },
    });
    expectEnvelope(res, 403, 'forbidden');
  });

  it('registers a public key with a valid proof and derives the did:key from it', async () => {
    const kp = keyPair();
    const proof = kp.proof({ purpose: 'agent_registration', principal_id: alice.principalId, display_name: 'Keyed' });
    const agent = await createAgent(server, alice, {
      display_name: 'Keyed',
      public_key_jwk: kp.jwk,
      registration_proof: proof,
    });
    const raw = Buffer.from(kp.jwk.x, 'base64url');
    expect(raw.length).toBe(32);
    expect(agent.did).toMatch(/^did:key:z6Mk/);
    // A second registration of the same key maps to the same did:key, hence 409.
    const again = await request(server, 'POST', '/api/v1/agents', {
      apiKey: alice.apiKey,
      body: { display_name: 'Keyed', capabilities: ['PURCHASE'], public_key_jwk: kp.jwk, registration_proof: proof },
    });
    expectEnvelope(again, 409, 'conflict');
  });

  it('rejects a proof that does not verify, is made for another Principal or lacks its key', async () => {
    const kp = keyPair();
    const other = keyPair();
    const good = { purpose: 'agent_registration', principal_id: alice.principalId, display_name: 'P' };
    const bodies = [
      { public_key_jwk: kp.jwk, registration_proof: other.proof(good) },
      { public_key_jwk: kp.jwk, registration_proof: kp.proof({ ...good, principal_id: bob.principalId }) },
      { public_key_jwk: kp.jwk, registration_proof: kp.proof({ ...good, display_name: 'Q' }) },
      { public_key_jwk: kp.jwk, registration_proof: 'not.a.jws!' },
    ];
    for (const extra of bodies) {
      const res = await request(server, 'POST', '/api/v1/agents', {
        apiKey: alice.apiKey,
        body: { display_name: 'P', capabilities: ['PURCHASE'], ...extra },
      });
      const env = expectEnvelope(res, 422, 'validation_error');
      expect(env.details?.[0]?.field).toBe('registration_proof');
    }
    const missing = await request(server, 'POST', '/api/v1/agents', {
      apiKey: alice.apiKey,
      body: { display_name: 'P', capabilities: ['PURCHASE'], public_key_jwk: kp.jwk },
    });
    expectEnvelope(missing, 422, 'validation_error');
  });

  it('refuses a did:key that is not the key of public_key_jwk', async () => {
    const kp = keyPair();
    const other = await createAgent(server, bob); // any generated did:key
    const did = other.did as string;
    const proof = kp.proof({ purpose: 'agent_registration', principal_id: alice.principalId, display_name: 'D', did });
    const res = await request(server, 'POST', '/api/v1/agents', {
      apiKey: alice.apiKey,
      body: { display_name: 'D', capabilities: ['PURCHASE'], did, public_key_jwk: kp.jwk, registration_proof: proof },
    });
    const env = expectEnvelope(res, 422, 'validation_error');
    expect(env.details?.[0]?.field).toBe('did');
  });

  it('answers 401 without a credential or with an unknown key', async () => {
    expectEnvelope(await request(server, 'POST', '/api/v1/agents', { body: {} }), 401, 'unauthorized');
    const unknown = await request(server, 'GET', '/api/v1/agents', { apiKey: 'mdt_live_unknownkeyunknownkey' });
    expectEnvelope(unknown, 401, 'unauthorized');
  });

  it('works with a Bearer token', async () => {
    const token = await bearerFor(server, alice);
    const res = await request(server, 'POST', '/api/v1/agents', {
      bearer: token,
      body: { display_name: 'Via token', capabilities: ['TRANSFER'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.principal_id).toBe(alice.principalId);
    const read = await request(server, 'GET', `/api/v1/agents/${res.body.id}`, { bearer: token });
    expect(read.status).toBe(200);
    expect(read.body.display_name).toBe('Via token');
  });
});

describe('GET /api/v1/agents', () => {
  let carol: TestPrincipal;
  const ids: string[] = [];
  beforeAll(async () => {
    carol = await newPrincipal(server);
    for (let i = 0; i < 7; i++)
      ids.push((await createAgent(server, carol, { display_name: `agent ${i}` })).id as string);
  });

  it('pages through every agent exactly once, newest first', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await request<{ agents: { id: string }[]; total: number; page: number; page_size: number }>(
        server,
        'GET',
        `/api/v1/agents?page=${page}&page_size=3`,
        { apiKey: carol.apiKey },
      );
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(7);
      expect(res.body.page).toBe(page);
      expect(res.body.page_size).toBe(3);
      expect(res.body.agents.length).toBe(page < 3 ? 3 : 1);
      seen.push(...res.body.agents.map((a) => a.id));
    }
    expect(seen).toEqual([...ids].reverse());
    const beyond = await request<{ agents: unknown[] }>(server, 'GET', '/api/v1/agents?page=9&page_size=3', {
      apiKey: carol.apiKey,
    });
    expect(beyond.body.agents).toEqual([]);
  });

  it('defaults to page 1 of 20', async () => {
    const res = await request(server, 'GET', '/api/v1/agents', { apiKey: carol.apiKey });
    expect(res.body).toMatchObject({ page: 1, page_size: 20, total: 7 });
  });

  it('filters by status and trust_level', async () => {
    const target = ids[2] as string;
    const patched = await request(server, 'PATCH', `/api/v1/agents/${target}/status`, {
      apiKey: carol.apiKey,
      body: { status: 'SUSPENDED', reason: 'paused by owner' },
    });
    expect(patched.status).toBe(200);
    const suspended = await request<{ agents: { id: string; status: string }[]; total: number }>(
      server,
      'GET',
      '/api/v1/agents?status=SUSPENDED',
      { apiKey: carol.apiKey },
    );
    expect(suspended.body.total).toBe(1);
    expect(suspended.body.agents.map((a) => a.id)).toEqual([target]);
    const active = await request(server, 'GET', '/api/v1/agents?status=ACTIVE&trust_level=REGISTERED', {
      apiKey: carol.apiKey,
    });
    expect(active.body.total).toBe(6);
    const trusted = await request(server, 'GET', '/api/v1/agents?trust_level=TRUSTED', { apiKey: carol.apiKey });
    expect(trusted.body.total).toBe(0);
  });

  it('rejects bad paging and filter values', async () => {
    for (const q of [
      'page=0',
      'page_size=0',
      'page_size=101',
      'page=abc',
      'status=DELETED',
      'trust_level=x',
      'sort=id',
    ]) {
      const res = await request(server, 'GET', `/api/v1/agents?${q}`, { apiKey: carol.apiKey });
      expectEnvelope(res, 422, 'validation_error');
    }
  });

  it("never lists another Principal's agents", async () => {
    const res = await request<{ agents: { principal_id: string }[] }>(server, 'GET', '/api/v1/agents?page_size=100', {
      apiKey: alice.apiKey,
    });
    expect(res.body.agents.length).toBeGreaterThan(0);
    expect(res.body.agents.every((a) => a.principal_id === alice.principalId)).toBe(true);
  });
});

describe('GET /api/v1/agents/:agent_id', () => {
  it("answers 404 for another Principal's agent and for an unknown id, never data", async () => {
    const agent = await createAgent(server, alice);
    const own = await request(server, 'GET', `/api/v1/agents/${agent.id}`, { apiKey: alice.apiKey });
    expect(own.body).toEqual(agent);
    for (const path of [`/api/v1/agents/${agent.id}`, `/api/v1/agents/${agent.id}/metrics`]) {
      const res = await request(server, 'GET', path, { apiKey: bob.apiKey });
      const env = expectEnvelope(res, 404, 'agent_not_found');
      expect(JSON.stringify(env)).not.toContain(alice.principalId);
    }
    expectEnvelope(
      await request(server, 'GET', '/api/v1/agents/agt_nope', { apiKey: alice.apiKey }),
      404,
      'agent_not_found',
    );
  });
});

describe('PATCH /api/v1/agents/:agent_id/status', () => {
  it('suspends, reactivates and revokes; REVOKED is final', async () => {
    const agent = await createAgent(server, alice, { display_name: 'Lifecycle' });
    const path = `/api/v1/agents/${agent.id}/status`;
    const suspend = await request(server, 'PATCH', path, {
      apiKey: alice.apiKey,
      body: { status: 'SUSPENDED', reason: 'odd purchases' },
    });
    expect(suspend.status).toBe(200);
    expect(suspend.body).toEqual({
      id: agent.id,
      status: 'SUSPENDED',
      trust_level: 'REGISTERED',
      display_name: 'Lifecycle',
    });
    const reactivate = await request(server, 'PATCH', path, {
      apiKey: alice.apiKey,
      body: { status: 'ACTIVE', reason: 'ok' },
    });
    expect(reactivate.body.status).toBe('ACTIVE');
    const revoke = await request(server, 'PATCH', path, {
      apiKey: alice.apiKey,
      body: { status: 'REVOKED', reason: 'retired' },
    });
    expect(revoke.body.status).toBe('REVOKED');
    for (const status of ['ACTIVE', 'SUSPENDED']) {
      const res = await request(server, 'PATCH', path, { apiKey: alice.apiKey, body: { status, reason: 'undo' } });
      expectEnvelope(res, 422, 'invalid_status_transition');
    }
    const again = await request(server, 'PATCH', path, {
      apiKey: alice.apiKey,
      body: { status: 'REVOKED', reason: 'again' },
    });
    expect(again.body.status).toBe('REVOKED');
    const read = await request(server, 'GET', `/api/v1/agents/${agent.id}`, { apiKey: alice.apiKey });
    expect(read.body.status).toBe('REVOKED');
  });

  it('validates status and reason (1 to 500 characters)', async () => {
    const agent = await createAgent(server, alice);
    const path = `/api/v1/agents/${agent.id}/status`;
    const cases: [Record<string, unknown>, string][] = [
      [{ status: 'SUSPENDED' }, 'reason'],
      [{ status: 'SUSPENDED', reason: '' }, 'reason'],
      [{ status: 'SUSPENDED', reason: 'x'.repeat(501) }, 'reason'],
      [{ status: 'PAUSED', reason: 'x' }, 'status'],
      [{ reason: 'x' }, 'status'],
    ];
    for (const [body, field] of cases) {
      const env = expectEnvelope(
        await request(server, 'PATCH', path, { apiKey: alice.apiKey, body }),
        422,
        'validation_error',
      );
      expect(env.details?.map((d) => d.field)).toContain(field);
    }
    const longest = await request(server, 'PATCH', path, {
      apiKey: alice.apiKey,
      body: { status: 'SUSPENDED', reason: 'x'.repeat(500) },
    });
    expect(longest.status).toBe(200);
  });

  it("cannot touch another Principal's agent (404) and leaves it unchanged", async () => {
    const agent = await createAgent(server, alice);
    const res = await request(server, 'PATCH', `/api/v1/agents/${agent.id}/status`, {
      apiKey: bob.apiKey,
      body: { status: 'REVOKED', reason: 'hostile' },
    });
    expectEnvelope(res, 404, 'agent_not_found');
    const read = await request(server, 'GET', `/api/v1/agents/${agent.id}`, { apiKey: alice.apiKey });
    expect(read.body.status).toBe('ACTIVE');
  });

  it('works with a Bearer token', async () => {
    const agent = await createAgent(server, alice);
    const res = await request(server, 'PATCH', `/api/v1/agents/${agent.id}/status`, {
      bearer: await bearerFor(server, alice),
      body: { status: 'SUSPENDED', reason: 'token' },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('SUSPENDED');
  });
});

describe('input PostgreSQL cannot store', () => {
  it('refuses NUL characters and over-deep metadata with validation_error, never a 5xx', async () => {
    const agent = await createAgent(server, alice);
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/v1/agents', { display_name: 'a\u0000b', capabilities: ['PURCHASE'] }, 'display_name'],
      [
        'POST',
        '/api/v1/agents',
        { display_name: 'a', capabilities: ['PURCHASE'], metadata: { 'k\u0000': 1 } },
        'metadata.k\u0000',
      ],
      ['PATCH', `/api/v1/agents/${agent.id}/status`, { status: 'SUSPENDED', reason: 'x\u0000' }, 'reason'],
      [
        'POST',
        '/api/v1/mandates',
        { agent_id: agent.id, valid_until: inDays(1), max_amount_per_transaction: 1, allowed_assets: ['\u0000'] },
        'allowed_assets.0',
      ],
    ];
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) deep = { d: deep };
    cases.push([
      'POST',
      '/api/v1/agents',
      { display_name: 'a', capabilities: ['PURCHASE'], metadata: deep },
      'metadata',
    ]);
    for (const [method, path, body, field] of cases) {
      const env = expectEnvelope(
        await request(server, method, path, { apiKey: alice.apiKey, body }),
        422,
        'validation_error',
      );
      expect(env.details?.[0]?.field.startsWith(field), JSON.stringify(env)).toBe(true);
    }
  });

  it('answers odd path ids with 404, and a NUL in one with 422 naming the parameter', async () => {
    for (const path of ['/api/v1/agents/%E2%98%83/metrics', '/api/v1/mandates/agent/a%27b']) {
      const res = await request(server, 'GET', path, { apiKey: alice.apiKey });
      expect(res.status, path).toBe(404);
      expectEnvelope(res, 404);
    }
    for (const [path, field] of <[string, string][]>[
      ['/api/v1/agents/agt_%00', 'agent_id'],
      ['/api/v1/mandates/mnd_%00x', 'mandate_id'],
    ]) {
      const env = expectEnvelope(await request(server, 'GET', path, { apiKey: alice.apiKey }), 422, 'validation_error');
      expect(env.details?.[0]?.field, path).toBe(field);
    }
  });
});

describe('environments and the OpenAPI document', () => {
  it('honours a key scoped to agents: agents allowed, mandates refused with 403', async () => {
    const { apiKey } = await issuePrincipalKey(server, alice.principalId, 'live', { scopes: 'agents' });
    const scoped = { ...alice, apiKey };
    const agent = await createAgent(server, scoped);
    expect(agent.principal_id).toBe(alice.principalId);
    const res = await request(server, 'GET', `/api/v1/mandates/agent/${agent.id}`, { apiKey });
    expectEnvelope(res, 403, 'forbidden');
  });

  it('keeps a sandbox Principal in the sandbox database', async () => {
    const sandbox = await newPrincipal(server, 'sandbox');
    const agent = await createAgent(server, sandbox);
    const read = await request(server, 'GET', `/api/v1/agents/${agent.id}`, { apiKey: sandbox.apiKey });
    expect(read.status).toBe(200);
    const live = await withDb(
      server,
      'live',
      (sql) => sql`select count(*)::int as n from agents where id = ${agent.id as string}`,
    );
    const sb = await withDb(
      server,
      'sandbox',
      (sql) => sql`select count(*)::int as n from agents where id = ${agent.id as string}`,
    );
    expect([live[0]?.n, sb[0]?.n]).toEqual([0, 1]);
    expectEnvelope(
      await request(server, 'GET', `/api/v1/agents/${agent.id}`, { apiKey: alice.apiKey }),
      404,
      'agent_not_found',
    );
  });

  it('documents every runtime route with its schemas', async () => {
    const res = await request<{
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { schemas: Record<string, unknown> };
    }>(server, 'GET', '/api/v1/openapi.json');
    const paths = res.body.paths;
    for (const [path, method] of [
      ['/api/v1/agents', 'post'],
      ['/api/v1/agents', 'get'],
      ['/api/v1/agents/{agent_id}', 'get'],
      ['/api/v1/agents/{agent_id}/metrics', 'get'],
      ['/api/v1/agents/{agent_id}/status', 'patch'],
      ['/api/v1/mandates', 'post'],
      ['/api/v1/mandates/{mandate_id}', 'get'],
      ['/api/v1/mandates/agent/{agent_id}', 'get'],
      ['/api/v1/thresholds', 'get'],
      ['/api/v1/thresholds', 'put'],
      ['/api/v1/thresholds', 'delete'],
    ] as const) {
      expect(paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(JSON.stringify(paths['/api/v1/agents/{agent_id}/status']?.patch)).toContain('RuntimeAgentStatusRequest');
    for (const name of ['RuntimeAgent', 'RuntimeMandate', 'ThresholdsView', 'ThresholdValues']) {
      expect(res.body.components.schemas[name], name).toBeDefined();
    }
  });
});
