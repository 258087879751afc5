// The operator plane of CONTRACT.md over HTTP: shapes, X-Admin-Key, both databases, errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPrincipalRow } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn, type TestSql } from '../fixtures/test-db.js';

let server: TestServer;
let live: TestSql;
let sandbox: TestSql;

beforeAll(async () => {
  server = await startTestServer();
  live = sqlOn(server, 'live');
  sandbox = sqlOn(server, 'sandbox');
});
afterAll(async () => {
  await server?.close();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function admin(method: string, path: string, body?: unknown) {
  return request(server, method, path, { adminKey: server.adminKey, body });
}

describe('X-Admin-Key', () => {
  it('a missing or wrong admin key is 403 forbidden in the envelope', async () => {
    const missing = await request(server, 'POST', '/admin/v1/clients', { body: { name: 'x' } });
    expectEnvelope(missing, 403, 'forbidden');
    const wrong = await request(server, 'POST', '/admin/v1/clients', {
      adminKey: `${server.adminKey}x`,
      body: { name: 'x' },
    });
    expectEnvelope(wrong, 403, 'forbidden');
    const apiKeyInstead = await request(server, 'POST', '/admin/v1/clients', {
      apiKey: server.adminKey,
      body: { name: 'x' },
    });
    expectEnvelope(apiKeyInstead, 403, 'forbidden');
  });

  it('the operator plane is not in the public OpenAPI document', async () => {
    const res = await request<{ paths: Record<string, unknown> }>(server, 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths).some((p) => p.startsWith('/admin'))).toBe(false);
    expect(Object.keys(res.body.paths)).toContain('/oauth/token');
  });
});

describe('Clients and Programs', () => {
  it('creates a Client in both databases with the same id', async () => {
    const res = await admin('POST', '/admin/v1/clients', { name: 'Acme Pay' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cli_[0-9A-Za-z]{24}$/),
      name: 'Acme Pay',
      created_at: expect.stringMatching(ISO),
    });
    const id = res.body.id as string;
    expect(await live`select name from clients where id = ${id}`).toEqual([{ name: 'Acme Pay' }]);
    expect(await sandbox`select name from clients where id = ${id}`).toEqual([{ name: 'Acme Pay' }]);
  });

  it('creates a Program in both databases; an unknown Client is 404 client_not_found', async () => {
    const client = await admin('POST', '/admin/v1/clients', { name: 'P' });
    const clientId = client.body.id as string;
    const res = await admin('POST', `/admin/v1/clients/${clientId}/programs`, { name: 'Rewards' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^prg_/),
      client_id: clientId,
      name: 'Rewards',
      created_at: expect.stringMatching(ISO),
    });
    const id = res.body.id as string;
    expect((await live`select client_id from programs where id = ${id}`).length).toBe(1);
    expect((await sandbox`select client_id from programs where id = ${id}`).length).toBe(1);
    expectEnvelope(await admin('POST', '/admin/v1/clients/cli_nope/programs', { name: 'x' }), 404, 'client_not_found');
    expectEnvelope(await admin('POST', '/admin/v1/clients/bogus/programs', { name: 'x' }), 404, 'client_not_found');
  });

  it('validates bodies with validation_error naming the field', async () => {
    const env = expectEnvelope(await admin('POST', '/admin/v1/clients', {}), 422, 'validation_error');
    expect(env.details?.map((d) => d.field)).toContain('name');
    const extra = expectEnvelope(
      await admin('POST', '/admin/v1/clients', { name: 'a', x: 1 }),
      422,
      'validation_error',
    );
    expect(extra.details?.map((d) => d.field)).toContain('x');
  });
});

describe('credentials', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = (await admin('POST', '/admin/v1/clients', { name: 'Keys' })).body.id as string;
  });

  it('issues a Client key per environment, stored only as a SHA-256 hash', async () => {
    for (const [env, prefix, db] of [
      ['live', 'mdt_live_', () => live],
      ['sandbox', 'mdt_test_', () => sandbox],
    ] as const) {
      const res = await admin('POST', `/admin/v1/clients/${clientId}/credentials`, {
        environment: env,
        scopes: 'principals,agents',
        ip_allowlist: ['203.0.113.7', '10.0.0.0/8'],
        expires_at: '2099-01-01T00:00:00Z',
      });
      expect(res.status).toBe(201);
      const apiKey = res.body.api_key as string;
      expect(apiKey.startsWith(prefix)).toBe(true);
      expect(apiKey.length).toBeGreaterThanOrEqual(prefix.length + 32);
      expect(res.body.credential).toEqual({
        id: expect.stringMatching(/^acr_/),
        client_id: clientId,
        environment: env,
        scopes: 'principals,agents',
        ip_allowlist: ['203.0.113.7', '10.0.0.0/8'],
        expires_at: '2099-01-01T00:00:00.000Z',
        status: 'active',
        created_at: expect.stringMatching(ISO),
      });
      const id = (res.body.credential as { id: string }).id;
      const rows = await db()<{ key_hash: Buffer }[]>`select key_hash from credentials where id = ${id}`;
      expect(rows[0]?.key_hash.toString('hex')).toMatch(/^[0-9a-f]{64}$/);
      const stored = await db()`select * from credentials where id = ${id}`;
      expect(JSON.stringify(stored)).not.toContain(apiKey);
      // Issued in its own environment's database only.
      const other = env === 'live' ? sandbox : live;
      expect((await other`select 1 from credentials where id = ${id}`).length).toBe(0);
    }
  });

  it('rejects bad scopes, IPs, past expiry and unknown environments with validation_error', async () => {
    const path = `/admin/v1/clients/${clientId}/credentials`;
    const bad = [
      [{ environment: 'live', scopes: 'agents,payments' }, 'scopes'],
      [{ environment: 'live', ip_allowlist: ['300.1.1.1'] }, 'ip_allowlist.0'],
      [{ environment: 'live', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      [{ environment: 'live', expires_at: 'tomorrow' }, 'expires_at'],
      [{ environment: 'staging' }, 'environment'],
      [{}, 'environment'],
    ] as const;
    for (const [body, field] of bad) {
      const env = expectEnvelope(await admin('POST', path, body), 422, 'validation_error');
      expect(env.details?.map((d) => d.field)).toContain(field);
    }
    expectEnvelope(
      await admin('POST', '/admin/v1/clients/cli_missing/credentials', { environment: 'live' }),
      404,
      'client_not_found',
    );
  });

  it('issues a Principal key in the Principal database; unknown or other-environment Principal is 404', async () => {
    const principalId = await insertPrincipalRow(server, 'sandbox', clientId);
    const res = await admin('POST', `/admin/v1/principals/${principalId}/credentials`, { environment: 'sandbox' });
    expect(res.status).toBe(201);
    expect(res.body.credential).toMatchObject({
      principal_id: principalId,
      client_id: clientId,
      environment: 'sandbox',
      scopes: '',
      ip_allowlist: [],
      expires_at: null,
    });
    expect((res.body.api_key as string).startsWith('mdt_test_')).toBe(true);
    expectEnvelope(
      await admin('POST', `/admin/v1/principals/${principalId}/credentials`, { environment: 'live' }),
      404,
      'principal_not_found',
    );
    expectEnvelope(
      await admin('POST', '/admin/v1/principals/prn_none/credentials', { environment: 'live' }),
      404,
      'principal_not_found',
    );
  });

  it('rotates (201, same id, new key) and revokes (200, status revoked); unknown ids are 404', async () => {
    const issued = await admin('POST', `/admin/v1/clients/${clientId}/credentials`, { environment: 'live' });
    const id = (issued.body.credential as { id: string }).id;
    const rotated = await admin('POST', `/admin/v1/credentials/${id}/rotate`, { grace_seconds: 60 });
    expect(rotated.status).toBe(201);
    expect((rotated.body.credential as { id: string }).id).toBe(id);
    expect(rotated.body.api_key).not.toBe(issued.body.api_key);
    expect((rotated.body.credential as { previous_key_expires_at: string }).previous_key_expires_at).toMatch(ISO);
    const rotatedNoBody = await request(server, 'POST', `/admin/v1/credentials/${id}/rotate`, {
      adminKey: server.adminKey,
    });
    expect(rotatedNoBody.status).toBe(201);
    const revoked = await request(server, 'POST', `/admin/v1/credentials/${id}/revoke`, { adminKey: server.adminKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body.credential).toMatchObject({ id, status: 'revoked', revoked_at: expect.stringMatching(ISO) });
    expect(revoked.body.api_key).toBeUndefined();
    // Revoked is final: it cannot be rotated back to life.
    expectEnvelope(await admin('POST', `/admin/v1/credentials/${id}/rotate`, {}), 409, 'conflict');
    expectEnvelope(await admin('POST', '/admin/v1/credentials/acr_nope/rotate', {}), 404, 'credential_not_found');
    expectEnvelope(await admin('POST', '/admin/v1/credentials/acr_nope/revoke'), 404, 'credential_not_found');
    expectEnvelope(
      await admin('POST', `/admin/v1/credentials/${id}/rotate`, { grace_seconds: -1 }),
      422,
      'validation_error',
    );
  });
});
