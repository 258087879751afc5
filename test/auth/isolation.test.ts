// SPEC.md "Environment routing": the key prefix picks the database; a sandbox key never sees
// live records and a live key never sees sandbox records; tokens keep their environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal, expectUnauthorized } from '../fixtures/auth-modules.js';
import { issuePrincipalKey, type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn } from '../fixtures/test-db.js';

let server: TestServer;
let tenant: ProvisionedClient;
let livePrincipal: string;
let sandboxPrincipal: string;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await provisionClient(server);
  livePrincipal = await createPrincipal(server, tenant.liveKey, tenant.programId);
  sandboxPrincipal = await createPrincipal(server, tenant.sandboxKey, tenant.programId);
});
afterAll(async () => {
  await server?.close();
});

const agentsOf = (principalId: string, apiKey: string) =>
  request(server, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey });

describe('sandbox/live isolation', () => {
  it('keys carry their environment in the prefix', () => {
    expect(tenant.liveKey.startsWith('mdt_live_')).toBe(true);
    expect(tenant.sandboxKey.startsWith('mdt_test_')).toBe(true);
  });

  it('a sandbox Client key never sees a live Principal, and a live key never a sandbox one', async () => {
    expect((await agentsOf(livePrincipal, tenant.liveKey)).status).toBe(200);
    expect((await agentsOf(sandboxPrincipal, tenant.sandboxKey)).status).toBe(200);
    expectEnvelope(await agentsOf(livePrincipal, tenant.sandboxKey), 404, 'principal_not_found');
    expectEnvelope(await agentsOf(sandboxPrincipal, tenant.liveKey), 404, 'principal_not_found');
  });

  it('a key is looked up only in the database its prefix names', async () => {
    const live = await issuePrincipalKey(server, livePrincipal, 'live');
    // The same random part under the other prefix is a different, unknown key.
    const swapped = `mdt_test_${live.apiKey.slice('mdt_live_'.length)}`;
    expectUnauthorized(await request(server, 'GET', `/api/v1/principals/${livePrincipal}`, { apiKey: swapped }));
    const legacy = `mdt_${live.apiKey.slice('mdt_live_'.length)}`;
    expectUnauthorized(await request(server, 'GET', `/api/v1/principals/${livePrincipal}`, { apiKey: legacy }));
  });

  it('Principal keys and their tokens stay in their environment', async () => {
    const sk = await issuePrincipalKey(server, sandboxPrincipal, 'sandbox');
    expect(sk.apiKey.startsWith('mdt_test_')).toBe(true);
    expect((await request(server, 'GET', `/api/v1/principals/${sandboxPrincipal}`, { apiKey: sk.apiKey })).status).toBe(
      200,
    );
    const t = await request<{ access_token: string }>(server, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: sandboxPrincipal, client_secret: sk.apiKey },
    });
    expect(t.status).toBe(200);
    const claims = JSON.parse(Buffer.from(t.body.access_token.split('.')[1] as string, 'base64url').toString());
    expect(claims.env).toBe('sandbox');
    expect(
      (await request(server, 'GET', `/api/v1/principals/${sandboxPrincipal}`, { bearer: t.body.access_token })).status,
    ).toBe(200);
    // A sandbox Principal has no live credential to issue against.
    const res = await request(server, 'POST', `/admin/v1/principals/${sandboxPrincipal}/credentials`, {
      adminKey: server.adminKey,
      body: { environment: 'live' },
    });
    expectEnvelope(res, 404, 'principal_not_found');
  });
});

describe('legacy mdt_ keys', () => {
  it('without an environment segment authenticate against the live database', async () => {
    const { createHash } = await import('node:crypto');
    const legacy = `mdt_${'L'.repeat(8)}${Date.now()}abcdefghijklmnopqrstuvwx`;
    await sqlOn(server, 'live')`insert into credentials (id, client_id, environment, key_hash)
      values (${`acr_legacy${Date.now()}`}, ${tenant.clientId}, 'live', ${createHash('sha256').update(legacy).digest()})`;
    expect((await agentsOf(livePrincipal, legacy)).status).toBe(200);
    expectEnvelope(await agentsOf(sandboxPrincipal, legacy), 404, 'principal_not_found');
  });
});
