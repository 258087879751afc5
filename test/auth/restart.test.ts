// The signing key and the generated admin key are created once and kept: after a restart on
// the same databases and DATA_DIR, earlier tokens still verify and the same admin key works.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { EMBEDDED, PG_BASE_URL, request } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { startApp } = (await import(`${DIST}app/app.js`)) as typeof import('../../src/app/app.js');
const { loadConfig } = (await import(`${DIST}config/config.js`)) as typeof import('../../src/config/config.js');

const dataDir = mkdtempSync(join(tmpdir(), 'asas-restart-'));
const dbName = `t_${randomBytes(6).toString('hex')}`;
const env: Record<string, string> = { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', WORKERS: '1' };
if (!EMBEDDED) env.DATABASE_URL = `${PG_BASE_URL}/${dbName}`;

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (EMBEDDED) return;
  const sql = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  try {
    for (const n of [dbName, `${dbName}_sandbox`]) await sql.unsafe(`drop database if exists "${n}" with (force)`);
  } finally {
    await sql.end({ timeout: 5 });
  }
});

describe('restart', () => {
  it('keeps the token signing key and the generated admin key', async () => {
    const first = await startApp(loadConfig(env));
    const adminKey = readFileSync(join(dataDir, 'admin.key'), 'utf8').trim();
    const target = { url: first.url, adminKey };
    let token: string;
    let principalId: string;
    let jwksBefore: unknown;
    try {
      const tenant = await provisionClient(target);
      principalId = await insertPrincipalRow({ dbUrls: first.services.dbs.urls }, 'live', tenant.clientId);
      const { apiKey } = await issuePrincipalKey(target, principalId, 'live');
      const res = await request<{ access_token: string }>(first, 'POST', '/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: principalId, client_secret: apiKey },
      });
      expect(res.status).toBe(200);
      token = res.body.access_token;
      jwksBefore = (await request(first, 'GET', '/.well-known/jwks.json')).body;
    } finally {
      await first.close();
    }

    const second = await startApp(loadConfig(env));
    try {
      expect(readFileSync(join(dataDir, 'admin.key'), 'utf8').trim()).toBe(adminKey);
      expect((await request(second, 'GET', '/.well-known/jwks.json')).body).toEqual(jwksBefore);
      expect((await request(second, 'GET', `/api/v1/principals/${principalId}`, { bearer: token })).status).toBe(200);
      const created = await request(second, 'POST', '/admin/v1/clients', { adminKey, body: { name: 'after restart' } });
      expect(created.status).toBe(201);
    } finally {
      await second.close();
    }
  }, 240_000); // two cold starts; embedded PGlite starts slowly on a busy machine
});
