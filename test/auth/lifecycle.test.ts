// SPEC.md "Lifecycle": issue is additive, rotation keeps the previous key inside its grace
// window only, expiry and revocation take effect at once even for cached keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal, expectUnauthorized, sleep } from '../fixtures/auth-modules.js';
import { issueClientKey, issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let tenant: ProvisionedClient;
let principalId: string;

beforeAll(async () => {
  // The default grace window applies when rotate has no grace_seconds.
  server = await startTestServer({ KEY_ROTATION_GRACE_SECONDS: '1' });
  tenant = await provisionClient(server);
  principalId = await createPrincipal(server, tenant.liveKey, tenant.programId);
});
afterAll(async () => {
  await server?.close();
});

const me = (apiKey: string) => request(server, 'GET', `/api/v1/principals/${principalId}`, { apiKey });
const admin = (path: string, body?: unknown) =>
  request(server, 'POST', path, { adminKey: server.adminKey, ...(body === undefined ? {} : { body }) });

describe('issue', () => {
  it('is additive: earlier keys keep working', async () => {
    const a = await issuePrincipalKey(server, principalId, 'live');
    const b = await issuePrincipalKey(server, principalId, 'live');
    expect((await me(a.apiKey)).status).toBe(200);
    expect((await me(b.apiKey)).status).toBe(200);
    const c = await issueClientKey(server, tenant.clientId, 'live');
    const list = (k: string) => request(server, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey: k });
    expect((await list(tenant.liveKey)).status).toBe(200);
    expect((await list(c.apiKey)).status).toBe(200);
  });
});

describe('rotate', () => {
  it('the previous key works inside the grace window and fails after it; the new key works', async () => {
    const { apiKey: oldKey, credentialId } = await issuePrincipalKey(server, principalId, 'live');
    expect((await me(oldKey)).status).toBe(200); // now cached
    const rotated = await admin(`/admin/v1/credentials/${credentialId}/rotate`, { grace_seconds: 2 });
    expect(rotated.status).toBe(201);
    const newKey = rotated.body.api_key as string;
    expect((await me(newKey)).status).toBe(200);
    expect((await me(oldKey)).status).toBe(200);
    const graceEnd = Date.parse(
      (rotated.body.credential as { previous_key_expires_at: string }).previous_key_expires_at,
    );
    await sleep(Math.max(0, graceEnd - Date.now()) + 100);
    expectUnauthorized(await me(oldKey));
    expect((await me(newKey)).status).toBe(200);
  });

  it('grace_seconds 0 retires the previous key at once, even when it was cached', async () => {
    const { apiKey: oldKey, credentialId } = await issuePrincipalKey(server, principalId, 'live');
    expect((await me(oldKey)).status).toBe(200);
    const rotated = await admin(`/admin/v1/credentials/${credentialId}/rotate`, { grace_seconds: 0 });
    expectUnauthorized(await me(oldKey));
    expect((await me(rotated.body.api_key as string)).status).toBe(200);
  });

  it('without grace_seconds uses KEY_ROTATION_GRACE_SECONDS', async () => {
    const { apiKey: oldKey, credentialId } = await issuePrincipalKey(server, principalId, 'live');
    const before = Date.now();
    const rotated = await admin(`/admin/v1/credentials/${credentialId}/rotate`);
    const graceEnd = Date.parse(
      (rotated.body.credential as { previous_key_expires_at: string }).previous_key_expires_at,
    );
    expect(graceEnd - before).toBeGreaterThan(500);
    expect(graceEnd - before).toBeLessThan(2_500);
    expect((await me(oldKey)).status).toBe(200);
    await sleep(Math.max(0, graceEnd - Date.now()) + 100);
    expectUnauthorized(await me(oldKey));
  });

  it('a second rotation retires the first key even inside its window', async () => {
    const { apiKey: k1, credentialId } = await issuePrincipalKey(server, principalId, 'live');
    const r1 = await admin(`/admin/v1/credentials/${credentialId}/rotate`, { grace_seconds: 60 });
    expect((await me(k1)).status).toBe(200);
    const r2 = await admin(`/admin/v1/credentials/${credentialId}/rotate`, { grace_seconds: 60 });
    expectUnauthorized(await me(k1));
    expect((await me(r1.body.api_key as string)).status).toBe(200);
    expect((await me(r2.body.api_key as string)).status).toBe(200);
  });
});

describe('expiry', () => {
  it('a key fails with 401 once expires_at passes, although it was cached while valid', async () => {
    const expiresAt = new Date(Date.now() + 1_500);
    const { apiKey } = await issuePrincipalKey(server, principalId, 'live', { expiresAt: expiresAt.toISOString() });
    expect((await me(apiKey)).status).toBe(200);
    await sleep(expiresAt.getTime() - Date.now() + 50);
    expectUnauthorized(await me(apiKey));
  });
});

describe('revoke', () => {
  it('is immediate for a cached key, and final', async () => {
    const { apiKey, credentialId } = await issuePrincipalKey(server, principalId, 'live');
    expect((await me(apiKey)).status).toBe(200);
    const res = await admin(`/admin/v1/credentials/${credentialId}/revoke`);
    expect(res.status).toBe(200);
    expectUnauthorized(await me(apiKey));
    // Revoking again is harmless and still revoked.
    const again = await admin(`/admin/v1/credentials/${credentialId}/revoke`);
    expect((again.body.credential as { status: string }).status).toBe('revoked');
    expectUnauthorized(await me(apiKey));
  });

  it('no request that starts after the revoke answered succeeds, under concurrent load', async () => {
    const { apiKey, credentialId } = await issuePrincipalKey(server, principalId, 'live');
    let revokedAt = Number.POSITIVE_INFINITY;
    const late: number[] = [];
    let stop = false;
    const load = async () => {
      while (!stop) {
        const started = Date.now();
        const res = await me(apiKey);
        if (started > revokedAt && res.status !== 401) late.push(res.status);
      }
    };
    const workers = [load(), load(), load(), load()];
    await sleep(200);
    await admin(`/admin/v1/credentials/${credentialId}/revoke`);
    revokedAt = Date.now();
    await sleep(300);
    stop = true;
    await Promise.all(workers);
    expect(late).toEqual([]);
    expectUnauthorized(await me(apiKey));
  });
});
