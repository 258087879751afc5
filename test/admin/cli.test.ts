// `npm run admin -- …`: the operator plane from a command line against a running server,
// including the generated admin key (DATA_DIR/admin.key, mode 0600, only its hash stored).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPrincipalRow } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn } from '../fixtures/test-db.js';

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

/** Runs the CLI with only DATA_DIR set, as an operator on the service's host would; --json output. */
async function cli(...args: string[]): Promise<{ code: number; json: Record<string, unknown> | null; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir };
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args, '--url', server.url, '--json'], { env });
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
    const rows = await sqlOn(server, 'live')<
      { value_hash: Buffer }[]
    >`select value_hash from service_secrets where name = 'admin_key'`;
    expect(rows.length).toBe(1);
    expect(rows[0]?.value_hash.length).toBe(32);
    expect(rows[0]?.value_hash.toString('utf8')).not.toContain(key);
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

    // The security log holds what the operator just did, newest first; one page at a time.
    const log = await cli('security-log', '--environment', 'sandbox', '--limit', '2');
    expect(log.code).toBe(0);
    const items = log.json?.items as { action: string; target: { id: string }; actor: { kind: string } }[];
    expect(items.map((i) => [i.action, i.target.id])).toEqual([
      ['credential.revoked', credentialId],
      ['credential.rotated', credentialId],
    ]);
    expect(items.every((i) => i.actor.kind === 'operator')).toBe(true);
    const next = await cli('security-log', '--environment', 'sandbox', '--cursor', log.json?.next_cursor as string);
    expect(((next.json?.items ?? []) as { action: string }[]).map((i) => i.action)).toEqual([
      'credential.created',
      'credential.created',
    ]);
    const created = await cli('security-log', '--action', 'client.created', '--actor', 'operator');
    expect(((created.json?.items ?? []) as { target: { id: string } }[]).map((i) => i.target.id)).toContain(clientId);
    const bad = await cli('security-log', '--action', 'nonsense');
    expect(bad.code).toBe(1);
    expect(bad.json).toMatchObject({ status: 422 });
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

function itemsOf<T>(r: { json: Record<string, unknown> | null }): T[] {
  return (r.json?.items ?? []) as T[];
}

/** The CLI's readable output (no --json); `url` defaults to the test server. */
async function cliText(
  args: string[],
  url: string = server.url,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir };
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args, '--url', url], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run admin list-clients / list-keys', () => {
  it('lists Clients newest first, paged, as a table or as JSON', async () => {
    const first = (await cli('create-client', '--name', 'List One')).json?.id as string;
    const second = (await cli('create-client', '--name', 'List Two')).json?.id as string;
    const page = await cli('list-clients', '--limit', '1');
    expect(page.code).toBe(0);
    expect(itemsOf<{ id: string }>(page).map((c) => c.id)).toEqual([second]);
    const next = await cli('list-clients', '--limit', '1', '--cursor', page.json?.next_cursor as string);
    expect(itemsOf<{ id: string; name: string }>(next)[0]).toMatchObject({
      id: first,
      name: 'List One',
    });

    const text = await cliText(['list-clients', '--limit', '2']);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+CREATED_AT$/);
    expect(lines[1]).toMatch(new RegExp(`^${second}\\s+List Two\\s+\\d{4}-`));
    expect(lines[2]).toMatch(new RegExp(`^${first}\\s+List One`));
    // The next page keeps the command's filters.
    expect(text.stdout).toMatch(/more: npm run admin -- list-clients --limit 2 --cursor \S+/);
  });

  it("lists a Client's keys and a Principal's keys, never the key nor its hash", async () => {
    const clientId = (await cli('create-client', '--name', 'Keys')).json?.id as string;
    const live = await cli('issue-client-key', '--client', clientId, '--env', 'live', '--scopes', 'agents');
    const sandbox = await cli('issue-client-key', '--client', clientId, '--env', 'sandbox');
    const principalId = await insertPrincipalRow(server, 'sandbox', clientId);
    const pkey = await cli('issue-principal-key', '--principal', principalId, '--env', 'sandbox');
    const idOf = (r: { json: Record<string, unknown> | null }) =>
      String((r.json?.credential as { id?: string } | undefined)?.id);

    const keys = await cli('list-keys', '--client', clientId);
    expect(keys.code).toBe(0);
    const items = keys.json?.items as Record<string, unknown>[];
    expect(items.map((k) => k.id).sort()).toEqual([idOf(live), idOf(sandbox)].sort());
    expect(items.find((k) => k.id === idOf(live))).toMatchObject({
      environment: 'live',
      scopes: 'agents',
      status: 'active',
    });
    const raw = JSON.stringify(keys.json);
    for (const r of [live, sandbox, pkey]) expect(raw).not.toContain(r.json?.api_key as string);
    for (const k of items) {
      expect(Object.keys(k)).not.toContain('key_hash');
      expect(Object.keys(k)).not.toContain('api_key');
    }
    const onlyLive = await cli('list-keys', '--client', clientId, '--env', 'live');
    expect(itemsOf<{ id: string }>(onlyLive).map((k) => k.id)).toEqual([idOf(live)]);

    const principal = await cli('list-keys', '--principal', principalId);
    expect(itemsOf<{ id: string; principal_id: string }>(principal).map((k) => [k.id, k.principal_id])).toEqual([
      [idOf(pkey), principalId],
    ]);

    const text = await cliText(['list-keys', '--client', clientId]);
    expect(text.stdout.split('\n')[0]).toMatch(/^ID\s+ENVIRONMENT\s+PRINCIPAL_ID\s+STATUS\s+SCOPES/);
    expect(text.stdout).toContain(idOf(live));
    expect(text.stdout).not.toContain(live.json?.api_key as string);
    // A key with every scope (issued without --scopes) reads as such, not as a blank cell.
    const sandboxRow = text.stdout.split('\n').find((l) => l.startsWith(idOf(sandbox)));
    expect(sandboxRow).toMatch(/\bactive\s+\* \(all\)\s/);
    expect(text.stdout.split('\n').find((l) => l.startsWith(idOf(live)))).toMatch(/\bactive\s+agents\s/);
  });

  it('a readable answer by default, the raw key flagged as shown once', async () => {
    const clientId = (await cli('create-client', '--name', 'Readable')).json?.id as string;
    const text = await cliText(['issue-client-key', '--client', clientId, '--env', 'sandbox']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^credential\.id\s+acr_/m);
    expect(text.stdout).toMatch(/^api_key\s+mdt_test_/m);
    expect(text.stdout).toContain('shown this once');
  });
});

describe('npm run admin takes only the options of its command', () => {
  it('refuses an option its command does not take, naming the one it meant, rather than ignore it', async () => {
    const env = await cliText(['security-log', '--env', 'sandbox']);
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('security-log does not take --env; did you mean --environment?');
    const environment = await cliText(['list-keys', '--client', 'cli_x', '--environment', 'live']);
    expect(environment.code).toBe(2);
    expect(environment.stderr).toContain('list-keys does not take --environment; did you mean --env?');
    const name = await cliText(['revoke', '--credential', 'acr_x', '--name', 'x']);
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('revoke does not take --name');
  });

  it("security-log: the next page keeps the filters, and ACTOR.ID names the actor's credential", async () => {
    const clientId = (await cli('create-client', '--name', 'Actor')).json?.id as string;
    const principalId = await insertPrincipalRow(server, 'sandbox', clientId);
    const pkey = await cli('issue-principal-key', '--principal', principalId, '--env', 'sandbox');
    const apiKey = pkey.json?.api_key as string;
    const credentialId = (pkey.json?.credential as { id: string } | undefined)?.id ?? '';
    for (const n of [3, 4]) {
      const t = await request(server, 'PUT', '/api/v1/thresholds', { apiKey, body: { risk_velocity_max_count: n } });
      expect(t.status, t.text).toBe(200);
    }
    const text = await cliText([
      'security-log',
      '--environment',
      'sandbox',
      '--action',
      'thresholds.updated',
      '--limit',
      '1',
    ]);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^OCCURRED_AT\s+ENVIRONMENT\s+ACTION\s+ACTOR\.KIND\s+ACTOR\.ID\s+TARGET\.TYPE\s+TARGET\.ID$/,
    );
    expect(lines[1]).toMatch(new RegExp(`\\sthresholds\\.updated\\s+principal\\s+${credentialId}\\s`));
    const more = text.stdout.match(/^more: (.*)$/m)?.[1] ?? '';
    expect(more).toMatch(
      /^npm run admin -- security-log --environment sandbox --action thresholds\.updated --limit 1 --cursor \S+$/,
    );
    // The hint, run as printed, gives the second page of the same filter.
    const args = more.split(' ').slice(4);
    const next = await cli(...args);
    expect(next.code).toBe(0);
    expect(itemsOf<{ action: string }>(next).map((i) => i.action)).toEqual(['thresholds.updated']);
  });
});

describe('npm run admin errors say what to do', () => {
  it('an unreachable service', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const res = await cliText(['list-clients'], `http://127.0.0.1:${port}`);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `admin: cannot reach http://127.0.0.1:${port} (ECONNREFUSED): is the service running? set --url\n`,
    );
  });

  it('a refused operator key', async () => {
    const res = await cliText(['list-clients', '--admin-key', 'wrong-key-0123456789']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('(forbidden, HTTP 403)');
    expect(res.stderr).toContain('the operator key was refused: check --admin-key');
  });

  it('an unknown Client, and the fields of a refused request', async () => {
    const missing = await cliText(['list-keys', '--client', 'cli_nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('(client_not_found, HTTP 404)');
    expect(missing.stderr).toContain('list them with `npm run admin -- list-clients`');
    expect(missing.stderr).toMatch(/request id: req_/);
    const bad = await cliText(['list-clients', '--limit', '500']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('  limit: must be a whole number from 1 to 200 [pattern]');
    // A Principal asked for in the other environment: the hint names the environment and --env.
    const clientId = (await cli('create-client', '--name', 'Envs')).json?.id as string;
    const principalId = await insertPrincipalRow(server, 'sandbox', clientId);
    const wrongEnv = await cliText(['issue-principal-key', '--principal', principalId, '--env', 'live']);
    expect(wrongEnv.code).toBe(1);
    expect(wrongEnv.stderr).toContain('(principal_not_found, HTTP 404)');
    expect(wrongEnv.stderr).toContain('no such Principal in live: check the prn_ id, and --env');
    const usage = await cliText(['list-keys']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('list-keys needs --client cli_... or --principal prn_...');
  });
});
