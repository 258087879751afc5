// `npm run admin -- …`: the operator plane from a command line against a running server,
// including the generated admin key (DATA_DIR/admin.key, mode 0600, only its hash stored).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPrincipalRow } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/admin/cli.js`, import.meta.url));

let server: TestServer;
let dataDir: string;

beforeAll(async () => {
  // No ADMIN_KEY: the service generates one and writes it under DATA_DIR.
  dataDir = mkdtempSync(join(tmpdir(), 'asas-cli-'));
  server = await startTestServer({ ADMIN_KEY: '', DATA_DIR: dataDir });
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the CLI with only DATA_DIR set, as an operator on the service's host would. */
async function cli(...args: string[]): Promise<{ code: number; json: Record<string, unknown> | null; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir };
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args, '--url', server.url], { env });
    return { code: 0, json: JSON.parse(stdout), stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    let json: Record<string, unknown> | null = null;
    try {
      json = JSON.parse(e.stderr);
    } catch {
      json = null;
    }
    return { code: e.code, json, stderr: e.stderr };
  }
}

describe('generated admin key', () => {
  it('is written to DATA_DIR/admin.key with mode 0600 and only its SHA-256 is stored', async () => {
    const path = join(dataDir, 'admin.key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const key = readFileSync(path, 'utf8').trim();
    expect(key.length).toBeGreaterThanOrEqual(32);
    const res = await request(server, 'POST', '/admin/v1/clients', { adminKey: key, body: { name: 'via file' } });
    expect(res.status).toBe(201);
    expect(
      (await request(server, 'POST', '/admin/v1/clients', { adminKey: server.adminKey, body: { name: 'x' } })).status,
    ).toBe(403);
    const sql = postgres(server.dbUrls.live, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ value_hash: Buffer }[]>`select value_hash from service_secrets where name = 'admin_key'`;
      expect(rows.length).toBe(1);
      expect(rows[0]?.value_hash.length).toBe(32);
      expect(rows[0]?.value_hash.toString('utf8')).not.toContain(key);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});

describe('npm run admin', () => {
  it('creates a Client and a Program, issues, rotates and revokes keys, printing JSON', async () => {
    const client = await cli('create-client', '--name', 'CLI Client');
    expect(client.code).toBe(0);
    const clientId = client.json?.id as string;
    expect(clientId).toMatch(/^cli_/);
    const program = await cli('create-program', '--client', clientId, '--name', 'CLI Program');
    expect(program.json).toMatchObject({ client_id: clientId, name: 'CLI Program' });

    const key = await cli(
      'issue-client-key',
      '--client',
      clientId,
      '--env',
      'sandbox',
      '--scopes',
      'principals,agents',
      '--ip',
      '127.0.0.1',
      '--ip',
      '10.0.0.0/8',
      '--expires-at',
      '2099-01-01T00:00:00Z',
    );
    expect(key.code).toBe(0);
    expect(key.json?.credential).toMatchObject({
      client_id: clientId,
      environment: 'sandbox',
      scopes: 'principals,agents',
      ip_allowlist: ['127.0.0.1', '10.0.0.0/8'],
      expires_at: '2099-01-01T00:00:00.000Z',
    });
    const apiKey = key.json?.api_key as string;
    expect(apiKey).toMatch(/^mdt_test_/);
    const principalId = await insertPrincipalRow(server, 'sandbox', clientId);
    const list = (k: string) => request(server, 'GET', `/api/v1/principals/${principalId}/agents`, { apiKey: k });
    expect((await list(apiKey)).status).toBe(200);

    const pkey = await cli('issue-principal-key', '--principal', principalId, '--env', 'sandbox');
    expect(pkey.json?.credential).toMatchObject({ principal_id: principalId, environment: 'sandbox' });

    const credentialId = (key.json?.credential as { id: string } | undefined)?.id ?? '';
    const rotated = await cli('rotate', '--credential', credentialId, '--grace-seconds', '0');
    expect(rotated.code).toBe(0);
    expect((await list(apiKey)).status).toBe(401);
    const newKey = rotated.json?.api_key as string;
    expect((await list(newKey)).status).toBe(200);

    const revoked = await cli('revoke', '--credential', credentialId);
    expect(revoked.json?.credential).toMatchObject({ id: credentialId, status: 'revoked' });
    expect((await list(newKey)).status).toBe(401);
  });

  it('reports API errors on stderr with exit code 1, and usage errors with exit code 2', async () => {
    const missing = await cli('create-program', '--client', 'cli_nope', '--name', 'x');
    expect(missing.code).toBe(1);
    expect(missing.json).toMatchObject({ error: 'client_not_found', status: 404 });
    const badKey = await cli('create-client', '--name', 'x', '--admin-key', 'wrong-key-0123456789');
    expect(badKey.code).toBe(1);
    expect(badKey.json).toMatchObject({ error: 'forbidden', status: 403 });
    const usage = await cli('create-client');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--name is required');
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command');
  });
});
