// The idempotency stores, bounded and honest: on POST /authorize the same idempotency_key with a
// different transaction is 422 idempotency_key_reuse (it used to replay the first decision) and
// a replay says so (Idempotent-Replayed: true); both stores (per Principal on /authorize, per
// Client on onboarding) drop stored answers after 24 hours and beyond the per-owner cap
// (IDEMPOTENCY_MAX_STORED_PER_OWNER), swept in the background, and a key whose answer was
// dropped is refused (422 idempotency_key_expired), never acted on twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAgentWithMandate, authorize, authorizeBody, type EngineFixture, setup } from '../fixtures/engine-setup.js';
import { principalBody } from '../fixtures/onboarding.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { withDb } from '../fixtures/test-db.js';

let server: TestServer;
let f: EngineFixture;
let otherAgent: string;
let n = 0;
const newKey = () => `idem-store-${Date.now().toString(36)}-${n++}`;

beforeAll(async () => {
  server = await startTestServer({
    IDEMPOTENCY_MAX_STORED_PER_OWNER: '2',
    IDEMPOTENCY_SWEEP_SECONDS: '1',
    // One shard keeping one actor: deciding for one agent evicts the other, whose next request
    // then reads its keys from the database (where the sweep works).
    WORKERS: '1',
    ENGINE_MAX_ACTORS: '1',
  });
  f = await setup(server);
  otherAgent = await addAgentWithMandate(server, f.apiKey, 'Other agent', {
    perTransaction: '100.00',
    daily: '900.00',
  });
});
afterAll(async () => {
  await server?.close();
});

/**
 * One statement on the live database, through withDb: on the embedded defaults PGlite's one
 * session can interleave it with the service's own ("portal does not exist"), and it is sent again.
 */
function sql<T extends readonly object[] = Record<string, unknown>[]>(
  strings: TemplateStringsArray,
  ...values: unknown[]
): Promise<T> {
  return withDb(server, 'live', (db) =>
    (db as unknown as (s: TemplateStringsArray, ...v: unknown[]) => Promise<T>)(strings, ...values),
  );
}

async function until(cond: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether the authorization recorded under `key` still keeps its replayable response. */
async function stored(key: string): Promise<boolean> {
  const rows = await sql<{ kept: boolean }[]>`
      select r.authorization_id is not null as kept from authorizations a
      left join authorization_responses r on r.authorization_id = a.id
      where a.principal_id = ${f.principalId} and a.idempotency_key = ${key}`;
  return rows[0]?.kept === true;
}

/** Decides once for the other agent, so the fixture agent's actor is evicted. */
async function evictFixtureActor(): Promise<void> {
  const res = await authorize(server, f.apiKey, authorizeBody(otherAgent, { amount: '1.00' }));
  expect(res.status, res.text).toBe(200);
}

describe('POST /authorize idempotency_key', () => {
  it('replays the same transaction with Idempotent-Replayed: true, the first answer without it', async () => {
    const key = newKey();
    const body = authorizeBody(f.agentId, { amount: '3.00', idempotency_key: key });
    const first = await authorize(server, f.apiKey, body);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The agent re-words its intent on the retry: still the same transaction.
    const again = await authorize(server, f.apiKey, {
      ...body,
      intent_context: { intent_type: 'purchase', task_reference: 'reworded on retry' },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.authorization_id).toBe(first.body.authorization_id);
  });

  it('refuses the same key with a different amount or merchant: 422 idempotency_key_reuse, nothing recorded', async () => {
    const key = newKey();
    const first = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '4.00', idempotency_key: key }));
    expect(first.status, first.text).toBe(200);
    const changes: Record<string, unknown>[] = [
      { amount: '40.00' },
      { merchant_name: 'Elsewhere' },
      { currency: 'EUR' },
    ];
    for (const change of changes) {
      const res = await authorize(
        server,
        f.apiKey,
        authorizeBody(f.agentId, { amount: '4.00', idempotency_key: key, ...change }),
      );
      expectEnvelope(res, 422, 'idempotency_key_reuse');
    }
    // Also from the database, at an actor rebuilt cold.
    await evictFixtureActor();
    const cold = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '40.00', idempotency_key: key }));
    expectEnvelope(cold, 422, 'idempotency_key_reuse');
    const rows = await sql<
      { n: number }[]
    >`select count(*)::int as n from authorizations where idempotency_key = ${key}`;
    expect(rows[0]?.n).toBe(1);
  });

  it('keeps at most the newest N answers per Principal; an older key is refused, never decided again', async () => {
    const keys = [newKey(), newKey(), newKey()];
    for (const key of keys) {
      const res = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '2.00', idempotency_key: key }));
      expect(res.status, res.text).toBe(200);
    }
    await until(async () => !(await stored(keys[0] as string)));
    expect(await stored(keys[2] as string)).toBe(true);
    await evictFixtureActor();
    const old = await authorize(
      server,
      f.apiKey,
      authorizeBody(f.agentId, { amount: '2.00', idempotency_key: keys[0] }),
    );
    expectEnvelope(old, 422, 'idempotency_key_expired');
    const recent = await authorize(
      server,
      f.apiKey,
      authorizeBody(f.agentId, { amount: '2.00', idempotency_key: keys[2] }),
    );
    expect(recent.status, recent.text).toBe(200);
    expect(recent.headers.get('idempotent-replayed')).toBe('true');
  });

  it('drops a stored answer after 24 hours', async () => {
    const key = newKey();
    const res = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '2.50', idempotency_key: key }));
    expect(res.status).toBe(200);
    // The decision's time, on the audit row and on its stored answer (migrations/0300).
    await sql`update authorizations set created_at = now() - interval '25 hours'
        where principal_id = ${f.principalId} and idempotency_key = ${key}`;
    await sql`update authorization_responses r set created_at = a.created_at from authorizations a
        where a.id = r.authorization_id and a.principal_id = ${f.principalId} and a.idempotency_key = ${key}`;
    await until(async () => !(await stored(key)));
    await evictFixtureActor();
    const again = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '2.50', idempotency_key: key }));
    expectEnvelope(again, 422, 'idempotency_key_expired');
  });
});

describe('onboarding Idempotency-Key store', () => {
  async function keyRow(key: string) {
    const rows = await sql<{ kept: boolean }[]>`
        select response_json is not null as kept from idempotency_keys where client_id = ${f.client.clientId} and key = ${key}`;
    return rows[0] ?? null;
  }

  it('keeps at most the newest N answers per Client; an older key is refused, not run again', async () => {
    const sent: { key: string; body: Record<string, unknown> }[] = [];
    for (let i = 0; i < 3; i++) {
      const key = newKey();
      const body = principalBody(f.client.programId);
      const res = await request(server, 'POST', '/api/v1/principals', {
        apiKey: f.client.liveKey,
        body,
        headers: { 'idempotency-key': key },
      });
      expect(res.status, res.text).toBe(201);
      sent.push({ key, body });
    }
    const [oldest, , newest] = sent as [(typeof sent)[0], unknown, (typeof sent)[0]];
    await until(async () => (await keyRow(oldest.key))?.kept === false);
    const old = await request(server, 'POST', '/api/v1/principals', {
      apiKey: f.client.liveKey,
      body: oldest.body,
      headers: { 'idempotency-key': oldest.key },
    });
    expectEnvelope(old, 422, 'idempotency_key_expired');
    const replay = await request(server, 'POST', '/api/v1/principals', {
      apiKey: f.client.liveKey,
      body: newest.body,
      headers: { 'idempotency-key': newest.key },
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('deletes keys past 24 hours in the background', async () => {
    const key = newKey();
    const res = await request(server, 'POST', '/api/v1/principals', {
      apiKey: f.client.liveKey,
      body: principalBody(f.client.programId),
      headers: { 'idempotency-key': key },
    });
    expect(res.status).toBe(201);
    await sql`update idempotency_keys set created_at = now() - interval '25 hours'
        where client_id = ${f.client.clientId} and key = ${key}`;
    await until(async () => (await keyRow(key)) === null);
  });
});
