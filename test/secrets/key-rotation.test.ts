// The secrets key across restarts (issue 11, docs/secrets.md): secrets written in plaintext
// before migration 0100 are sealed at start-up and never lost; a restart with a new SECRETS_KEY
// and the old one in SECRETS_KEY_PREVIOUS re-seals everything under the new key and keeps
// working (earlier tokens verify, webhooks sign with the same secret); a key that opens none of
// the stored secrets stops start-up with one clear line, and changes nothing.
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { keyIdOf, newSecretsKey, openEnvelope, signedWith } from '../fixtures/secrets.js';
import { EMBEDDED, PG_BASE_URL, request } from '../fixtures/server.js';
import { sqlOn, type TestSql, withDb } from '../fixtures/test-db.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { startApp } = (await import(`${DIST}app/app.js`)) as typeof import('../../src/app/app.js');
const { loadConfig } = (await import(`${DIST}config/config.js`)) as typeof import('../../src/config/config.js');
type App = Awaited<ReturnType<typeof startApp>>;

const dataDir = mkdtempSync(join(tmpdir(), 'asas-secrets-'));
const dbName = `t_${randomBytes(6).toString('hex')}`;
const adminKey = `admin_${randomBytes(16).toString('hex')}`;
const base: Record<string, string> = {
  PORT: '0',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  WORKERS: '1',
  ADMIN_KEY: adminKey,
  WEBHOOK_URL_POLICY: 'any',
};
if (!EMBEDDED) base.DATABASE_URL = `${PG_BASE_URL}/${dbName}`;

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (EMBEDDED) return;
  const sql = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  try {
    for (const n of [dbName, `${dbName}_sandbox`]) await sql.unsafe(`drop database if exists "${n}" with (force)`);
  } finally {
    await sql.end({ timeout: 5 });
  }
});

async function withApp<T>(env: Record<string, string>, fn: (app: App, live: TestSql) => Promise<T>): Promise<T> {
  const app = await startApp(loadConfig({ ...base, ...env }));
  try {
    return await fn(app, sqlOn({ dbUrls: app.services.dbs.urls }, 'live'));
  } finally {
    await app.close();
  }
}

interface SealedRows {
  signing: { kid: string; private_key_pkcs8: Buffer | null; private_key_sealed: string | null }[];
  hooks: { id: string; secret: string | null; secret_sealed: string | null }[];
}

async function sealedRows(live: TestSql): Promise<SealedRows> {
  return {
    signing: await live<SealedRows['signing']>`select kid, private_key_pkcs8, private_key_sealed from signing_keys
      order by kid`,
    hooks: await live<SealedRows['hooks']>`select id, secret, secret_sealed from webhooks order by id`,
  };
}

function expectAllSealedWith(rows: SealedRows, key: string): void {
  const kid = keyIdOf(key);
  expect(rows.signing.length).toBeGreaterThan(0);
  expect(rows.hooks.length).toBeGreaterThan(0);
  for (const r of rows.signing) {
    expect(r.private_key_pkcs8).toBeNull();
    expect(r.private_key_sealed?.startsWith(`asas1.${kid}.`)).toBe(true);
    openEnvelope(r.private_key_sealed as string, key, `signing_keys.private_key:${r.kid}`);
  }
  for (const r of rows.hooks) {
    expect(r.secret).toBeNull();
    expect(r.secret_sealed?.startsWith(`asas1.${kid}.`)).toBe(true);
    openEnvelope(r.secret_sealed as string, key, `webhooks.secret:${r.id}`);
  }
}

/** `node dist/src/main.js` with this environment: its exit code and stderr. */
function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const main = fileURLToPath(new URL('main.js', DIST));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main], { env: { ...process.env, ...base, ...env }, stdio: 'pipe' });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

const OLD = newSecretsKey();
const NEW = newSecretsKey();
let principalId = '';
let principalKey = '';
let token = '';
let legacyKid = '';
let legacySecret = '';
let legacyHookId = '';
let generatedKey = '';

describe('secrets key across restarts', () => {
  it('without SECRETS_KEY generates one under DATA_DIR (mode 0600), and seals plaintext rows from before the migration at start-up', async () => {
    await withApp({}, async (app, live) => {
      const path = join(dataDir, 'secrets.key');
      generatedKey = readFileSync(path, 'utf8').trim();
      expect(Buffer.from(generatedKey, 'base64').length).toBe(32);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const target = { url: app.url, adminKey };
      const { clientId } = await provisionClient(target);
      principalId = await insertPrincipalRow({ dbUrls: app.services.dbs.urls }, 'live', clientId);
      principalKey = (await issuePrincipalKey(target, principalId, 'live')).apiKey;
      // Rows as a service before migration 0100 wrote them: a plaintext PKCS#8 signing key (made
      // the active one) and a plaintext webhook secret.
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      legacyKid = `sk_legacy${randomBytes(4).toString('hex')}`;
      const jwk = { ...(publicKey.export({ format: 'jwk' }) as object), kid: legacyKid, use: 'sig', alg: 'EdDSA' };
      await live`update signing_keys set active = false`;
      await withDb(
        { dbUrls: app.services.dbs.urls },
        'live',
        (sql) => sql`insert into signing_keys (kid, private_key_pkcs8, public_jwk)
          values (${legacyKid}, ${privateKey.export({ format: 'der', type: 'pkcs8' })}, ${sql.json(jwk)})`,
      );
      legacyHookId = `wh_legacy${randomBytes(4).toString('hex')}`;
      legacySecret = `whsec_${randomBytes(32).toString('base64')}`;
      await live`insert into webhooks (id, principal_id, client_id, url, event_types, secret)
        values (${legacyHookId}, ${principalId}, ${clientId}, ${`${receiver.url}/legacy`}, ${['*']}, ${legacySecret})`;
    });

    await withApp({}, async (app, live) => {
      // Sealed under the generated key; the plaintext is gone and nothing was lost.
      const rows = await sealedRows(live);
      expectAllSealedWith(rows, generatedKey);
      const hook = rows.hooks.find((h) => h.id === legacyHookId);
      expect(
        openEnvelope(hook?.secret_sealed as string, generatedKey, `webhooks.secret:${legacyHookId}`).toString(),
      ).toBe(legacySecret);
      // The legacy key signs: a token names it, and verifies.
      const res = await request<{ access_token: string }>(app, 'POST', '/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: principalId, client_secret: principalKey },
      });
      expect(res.status).toBe(200);
      token = res.body.access_token;
      const header = JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8'));
      expect(header.kid).toBe(legacyKid);
      expect((await request(app, 'GET', `/api/v1/principals/${principalId}`, { bearer: token })).status).toBe(200);
      await expectSignedTest(app, legacyHookId, legacySecret);
    });
  }, 240_000);

  it('a SECRETS_KEY that opens none of the stored secrets stops start-up with one clear line, changing nothing', async () => {
    const before = await withApp({}, async (_app, live) => sealedRows(live));
    await expect(startApp(loadConfig({ ...base, SECRETS_KEY: OLD }))).rejects.toThrow(
      new RegExp(`^SECRETS_KEY: stored secrets are sealed with key id ${keyIdOf(generatedKey)}`),
    );
    const run = await runMain({ SECRETS_KEY: OLD, LOG_LEVEL: 'silent' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^configuration error: SECRETS_KEY: stored secrets are sealed with key id [0-9a-f]{16}/),
    ]);
    const after = await withApp({}, async (_app, live) => sealedRows(live));
    expect(after).toEqual(before);
  }, 240_000);

  it('rotates: the new SECRETS_KEY with the old one in SECRETS_KEY_PREVIOUS re-seals everything and keeps working', async () => {
    // From the generated key to OLD (moving to a key from the environment) ...
    await withApp({ SECRETS_KEY: OLD, SECRETS_KEY_PREVIOUS: generatedKey }, async (_app, live) => {
      expectAllSealedWith(await sealedRows(live), OLD);
    });
    // ... then from OLD to NEW, the rotation docs/secrets.md describes.
    await withApp({ SECRETS_KEY: NEW, SECRETS_KEY_PREVIOUS: OLD }, async (app, live) => {
      expectAllSealedWith(await sealedRows(live), NEW);
      expect((await request(app, 'GET', `/api/v1/principals/${principalId}`, { bearer: token })).status).toBe(200);
      await expectSignedTest(app, legacyHookId, legacySecret);
    });
    // Once re-sealed, the new key alone is enough; the old key alone no longer is.
    await withApp({ SECRETS_KEY: NEW }, async (app, live) => {
      expectAllSealedWith(await sealedRows(live), NEW);
      expect((await request(app, 'GET', `/api/v1/principals/${principalId}`, { bearer: token })).status).toBe(200);
      const jwks = await request<{ keys: { kid: string; x: string }[] }>(app, 'GET', '/.well-known/jwks.json');
      expect(jwks.body.keys.map((k) => k.kid)).toContain(legacyKid);
    });
    await expect(startApp(loadConfig({ ...base, SECRETS_KEY: OLD }))).rejects.toThrow(/^SECRETS_KEY: /);
  }, 240_000);

  it('refuses malformed keys in the configuration, naming the variable', () => {
    expect(() => loadConfig({ ...base, SECRETS_KEY: 'short' })).toThrow(/^SECRETS_KEY: must be the base64 of 32/);
    expect(() => loadConfig({ ...base, SECRETS_KEY: randomBytes(16).toString('base64') })).toThrow(/^SECRETS_KEY: /);
    expect(() => loadConfig({ ...base, SECRETS_KEY: NEW, SECRETS_KEY_PREVIOUS: `${OLD},nope` })).toThrow(
      /^SECRETS_KEY_PREVIOUS: /,
    );
    expect(() => loadConfig({ ...base, SECRETS_KEY_PREVIOUS: OLD })).toThrow(/^SECRETS_KEY_PREVIOUS: /);
  });
});

async function expectSignedTest(app: App, webhookId: string, secret: string): Promise<void> {
  // The legacy webhook belongs to the Principal; the test endpoint needs its Principal key.
  const res = await request(app, 'POST', `/api/v1/webhooks/${webhookId}/test`, { apiKey: principalKey });
  expect(res.status).toBe(200);
  const eventId = res.body.event_id as string;
  const [got] = await receiver.waitFor(1, 10_000, (r) => r.body.includes(eventId));
  expect(got !== undefined && signedWith(got, secret)).toBe(true);
}
