// Two instances on the same PostgreSQL databases: a revocation or rotation made through one
// reaches the other's credential cache through LISTEN/NOTIFY (well before the cache TTL), and
// tokens minted by one verify on the other (one signing key, kept in the live database).
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app/app.js';
import { joinInstance } from '../fixtures/drills/instances.js';
import { deleteStream, ownStream } from '../fixtures/drills/nats-stream.js';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

// Instances sharing a database share one NATS (an in-process bus next to another live
// instance is refused at start): this file's own stream.
const NATS = ownStream('authmi');
let a: TestServer;
let b: RunningApp;
let principalId: string;

beforeAll(async () => {
  a = await startTestServer(NATS);
  b = await joinInstance(a, NATS);
  const tenant = await provisionClient(a);
  principalId = await insertPrincipalRow(a, 'live', tenant.clientId);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await deleteStream(NATS.NATS_STREAM);
});

const me = (server: { url: string }, opts: { apiKey?: string; bearer?: string }) =>
  request(server, 'GET', `/api/v1/principals/${principalId}`, opts);

/** Polls until `server` refuses the credential; the cache TTL (10 s) would be the fallback. */
async function refusedWithin(ms: number, call: () => Promise<{ status: number }>): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if ((await call()).status === 401) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe('several instances', () => {
  it('a key revoked through one instance stops working on the other', async () => {
    const { apiKey, credentialId } = await issuePrincipalKey(a, principalId, 'live');
    expect((await me(b, { apiKey })).status).toBe(200); // cached on b
    const res = await request(a, 'POST', `/admin/v1/credentials/${credentialId}/revoke`, { adminKey: a.adminKey });
    expect(res.status).toBe(200);
    expect(await refusedWithin(3_000, () => me(b, { apiKey }))).toBe(true);
  });

  it('a token minted on one instance verifies on the other and dies with its key', async () => {
    const { apiKey, credentialId } = await issuePrincipalKey(a, principalId, 'live');
    const t = await request<{ access_token: string }>(a, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: principalId, client_secret: apiKey },
    });
    expect((await me(b, { bearer: t.body.access_token })).status).toBe(200);
    await request(b, 'POST', `/admin/v1/credentials/${credentialId}/revoke`, { adminKey: a.adminKey });
    expect(await refusedWithin(3_000, () => me(a, { bearer: t.body.access_token }))).toBe(true);
  });

  it("a token cached on one instance dies there when its key's rotation grace, set through the other, ends", async () => {
    const { apiKey, credentialId } = await issuePrincipalKey(a, principalId, 'live');
    const t = await request<{ access_token: string }>(a, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: principalId, client_secret: apiKey },
    });
    // b verifies the token and caches its credential as it is before the rotation.
    expect((await me(b, { bearer: t.body.access_token })).status).toBe(200);
    const rotated = await request<{ credential: { previous_key_expires_at: string } }>(
      a,
      'POST',
      `/admin/v1/credentials/${credentialId}/rotate`,
      { adminKey: a.adminKey, body: { grace_seconds: 1 } },
    );
    expect(rotated.status).toBe(201);
    const graceEnd = Date.parse(rotated.body.credential.previous_key_expires_at);
    expect((await me(b, { bearer: t.body.access_token })).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, graceEnd - Date.now()) + 100));
    // Well before b's cache TTL (10 s) would have dropped the pre-rotation entry.
    expect(await refusedWithin(1_500, () => me(b, { bearer: t.body.access_token }))).toBe(true);
  });

  it('a revocation written straight into the database (no instance involved) reaches every instance', async () => {
    const { apiKey, credentialId } = await issuePrincipalKey(a, principalId, 'live');
    const t = await request<{ access_token: string }>(a, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: principalId, client_secret: apiKey },
    });
    // Both instances have the key and the token's credential cached.
    for (const s of [a, b]) {
      expect((await me(s, { apiKey })).status).toBe(200);
      expect((await me(s, { bearer: t.body.access_token })).status).toBe(200);
    }
    const sql = postgres(a.dbUrls.live, { max: 1, onnotice: () => {} });
    try {
      await sql`update credentials set status = 'revoked', revoked_at = now() where id = ${credentialId}`;
    } finally {
      await sql.end({ timeout: 5 });
    }
    // Well before the cache TTL (10 s): the credentials trigger notified both at commit.
    for (const s of [a, b]) {
      expect(await refusedWithin(1_500, () => me(s, { apiKey }))).toBe(true);
      expect(await refusedWithin(1_500, () => me(s, { bearer: t.body.access_token }))).toBe(true);
    }
  });

  it('a sandbox key revoked through one instance stops working on the other', async () => {
    const tenant = await provisionClient(a);
    const sandboxPrincipal = await insertPrincipalRow(a, 'sandbox', tenant.clientId);
    const { apiKey, credentialId } = await issuePrincipalKey(a, sandboxPrincipal, 'sandbox');
    const call = (s: { url: string }) => request(s, 'GET', `/api/v1/principals/${sandboxPrincipal}`, { apiKey });
    expect((await call(b)).status).toBe(200);
    await request(a, 'POST', `/admin/v1/credentials/${credentialId}/revoke`, { adminKey: a.adminKey });
    expect(await refusedWithin(1_500, () => call(b))).toBe(true);
  });

  it('a key rotated out with no grace through one instance stops working on the other', async () => {
    const { apiKey, credentialId } = await issuePrincipalKey(a, principalId, 'live');
    expect((await me(b, { apiKey })).status).toBe(200);
    await request(a, 'POST', `/admin/v1/credentials/${credentialId}/rotate`, {
      adminKey: a.adminKey,
      body: { grace_seconds: 0 },
    });
    expect(await refusedWithin(3_000, () => me(b, { apiKey }))).toBe(true);
  });
});
