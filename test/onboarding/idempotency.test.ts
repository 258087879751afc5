import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody, mandateBody, onboardBody, principalBody } from '../fixtures/onboarding.js';
import { type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn, type TestSql } from '../fixtures/test-db.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { requestHash } = (await import(
  `${DIST}onboarding/idempotency.js`
)) as typeof import('../../src/onboarding/idempotency.js');

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

let n = 0;
const newKey = () => `idem-${Date.now()}-${n++}`;

function post(path: string, body: unknown, key: string, apiKey = client.liveKey) {
  return request(server, 'POST', path, { apiKey, body, headers: { 'idempotency-key': key } });
}

async function principalsWithRef(db: TestSql, ref: string): Promise<number> {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from principals where client_customer_ref = ${ref}`;
  return row?.n ?? -1;
}

describe('Idempotency-Key on the onboarding creates', () => {
  it('replays the original status and body for the same key and body, creating one object', async () => {
    const key = newKey();
    const body = principalBody(client.programId, { client_customer_ref: 'idem-replay' });
    const first = await post('/api/v1/principals', body, key);
    expect(first.status).toBe(201);
    const second = await post('/api/v1/principals', body, key);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await principalsWithRef(live, 'idem-replay')).toBe(1);
  });

  it('replays a 202 as a 202', async () => {
    const key = newKey();
    const body = principalBody(client.programId, { verification: { type: 'KYC', mode: 'platform_provider' } });
    const first = await post('/api/v1/principals', body, key);
    expect(first.status).toBe(202);
    const again = await post('/api/v1/principals', body, key);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
  });

  it('refuses the same key with a different body: 422 idempotency_key_reuse', async () => {
    const key = newKey();
    expect((await post('/api/v1/principals', principalBody(client.programId), key)).status).toBe(201);
    expectEnvelope(
      await post('/api/v1/principals', principalBody(client.programId), key),
      422,
      'idempotency_key_reuse',
    );
    // The same body on another endpoint is another request too.
    expectEnvelope(await post('/api/v1/onboard', onboardBody(client.programId), key), 422, 'idempotency_key_reuse');
  });

  it('covers /onboard, agents and mandates', async () => {
    const key = newKey();
    const body = onboardBody(client.programId);
    const first = await post('/api/v1/onboard', body, key);
    expect(first.status).toBe(201);
    const again = await post('/api/v1/onboard', body, key);
    expect(again.text).toBe(first.text);
    const { principal, agent } = first.body as { principal: { id: string }; agent: { id: string } };

    const agentKey = newKey();
    const a1 = await post(`/api/v1/principals/${principal.id}/agents`, agentBody({ name: 'idem' }), agentKey);
    const a2 = await post(`/api/v1/principals/${principal.id}/agents`, agentBody({ name: 'idem' }), agentKey);
    expect(a1.status).toBe(201);
    expect(a2.body).toEqual(a1.body);
    const mandateKey = newKey();
    const m1 = await post(`/api/v1/agents/${agent.id}/mandates`, mandateBody(), mandateKey);
    const m2 = await post(`/api/v1/agents/${agent.id}/mandates`, mandateBody(), mandateKey);
    expect(m1.status).toBe(201);
    expect(m2.body).toEqual(m1.body);
    const [counts] = await live<{ agents: number; mandates: number }[]>`select
      (select count(*)::int from agents where principal_id = ${principal.id}) as agents,
      (select count(*)::int from mandates where principal_id = ${principal.id}) as mandates`;
    expect(counts).toEqual({ agents: 2, mandates: 2 });
  });

  it('lets concurrent requests with one key create exactly one object (201 + 409 in_use or replays)', async () => {
    const key = newKey();
    const body = principalBody(client.programId, { client_customer_ref: 'idem-race' });
    const results = await Promise.all(Array.from({ length: 6 }, () => post('/api/v1/principals', body, key)));
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of created) expect(r.text).toBe(created[0]?.text);
    for (const r of results.filter((x) => x.status !== 201)) expectEnvelope(r, 409, 'idempotency_key_in_use');
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null).length).toBe(1);
    expect(await principalsWithRef(live, 'idem-race')).toBe(1);
  });

  it('answers 409 idempotency_key_in_use while the first request is in flight', async () => {
    const key = newKey();
    const body = principalBody(client.programId);
    const hash = requestHash({ method: 'POST', path: '/api/v1/principals', body });
    await live`insert into idempotency_keys (client_id, key, request_hash, state) values (${client.clientId}, ${key}, ${hash}, 'in_flight')`;
    expectEnvelope(await post('/api/v1/principals', body, key), 409, 'idempotency_key_in_use');
    // A claim abandoned by a crashed process is taken over after a while.
    await live`update idempotency_keys set created_at = now() - interval '10 minutes' where key = ${key}`;
    expect((await post('/api/v1/principals', body, key)).status).toBe(201);
  });

  it('releases the key when the request fails, so it can be retried with a corrected body', async () => {
    const key = newKey();
    const bad = principalBody(client.programId, { verification: { type: 'KYC', mode: 'client_attested' } });
    expectEnvelope(await post('/api/v1/principals', bad, key), 422, 'attestation_required');
    const [row] = await live`select count(*)::int as n from idempotency_keys where key = ${key}`;
    expect(row?.n).toBe(0);
    expect((await post('/api/v1/principals', principalBody(client.programId), key)).status).toBe(201);
  });

  it('forgets a key after 24 hours', async () => {
    const key = newKey();
    expect((await post('/api/v1/principals', principalBody(client.programId), key)).status).toBe(201);
    await live`update idempotency_keys set created_at = now() - interval '25 hours' where key = ${key}`;
    expect((await post('/api/v1/principals', principalBody(client.programId), key)).status).toBe(201);
  });

  it('scopes keys per Client and per environment', async () => {
    const key = newKey();
    const mine = await post(
      '/api/v1/principals',
      principalBody(client.programId, { client_customer_ref: 'idem-scope' }),
      key,
    );
    expect(mine.status).toBe(201);
    const theirs = await post(
      '/api/v1/principals',
      principalBody(other.programId, { client_customer_ref: 'idem-scope' }),
      key,
      other.liveKey,
    );
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    const inSandbox = await post(
      '/api/v1/principals',
      principalBody(client.programId, { client_customer_ref: 'idem-scope' }),
      key,
      client.sandboxKey,
    );
    expect(inSandbox.status).toBe(201);
    expect(inSandbox.body.id).not.toBe(mine.body.id);
    expect(await principalsWithRef(sandbox, 'idem-scope')).toBe(1);
    expect(await principalsWithRef(live, 'idem-scope')).toBe(2);
  });

  it('refuses a malformed Idempotency-Key header', async () => {
    const env = expectEnvelope(
      await post('/api/v1/principals', principalBody(client.programId), 'x'.repeat(300)),
      422,
      'validation_error',
    );
    expect(env.details?.[0]?.field).toBe('Idempotency-Key');
  });
});
