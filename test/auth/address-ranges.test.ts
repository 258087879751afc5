// Address ranges as operators and integrators write them, validated with ipaddr.js: a bad
// TRUSTED_PROXIES entry stops start-up with one line naming the variable (today 999.1.1.1 and
// /99 were accepted), and a bad credential ip_allowlist entry is a 422 naming the entry.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal } from '../fixtures/auth-modules.js';
import { provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const MAIN_JS = new URL(`${DIST}main.js`).pathname;

/** Runs the service's entry point; a configuration it refuses exits before opening anything. */
function start(env: Record<string, string>): { status: number | null; stderr: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'asas-config-'));
  try {
    const r = spawnSync(process.execPath, [MAIN_JS], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        ...env,
      },
      encoding: 'utf8',
      timeout: 15_000,
    });
    return { status: r.status, stderr: r.stderr };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('start-up refuses a bad address range in the configuration', () => {
  const bad = [
    '999.1.1.1',
    '10.0.0.0/99',
    '10.0.0.0/33',
    '/99',
    '::::',
    'fe80::1%eth0',
    '127.1',
    '10.0.0.0/8/8',
    'proxy.lan',
  ];
  for (const entry of bad) {
    it(`TRUSTED_PROXIES=10.0.0.1,${entry}`, () => {
      const r = start({ TRUSTED_PROXIES: `10.0.0.1, ${entry}` });
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(
        `configuration error: TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8)\n`,
      );
    });
  }

  it('WEBHOOK_ALLOWED_PORTS and SHUTDOWN_TIMEOUT_MS are checked the same way', () => {
    expect(start({ WEBHOOK_ALLOWED_PORTS: '443,70000' }).stderr).toMatch(
      /^configuration error: WEBHOOK_ALLOWED_PORTS: [^\n]+\n$/,
    );
    expect(start({ WEBHOOK_ALLOWED_PORTS: 'https' }).status).toBe(2);
    expect(start({ SHUTDOWN_TIMEOUT_MS: 'soon' }).stderr).toMatch(
      /^configuration error: SHUTDOWN_TIMEOUT_MS: [^\n]+\n$/,
    );
  });
});

describe('ranges in use', () => {
  let server: TestServer;
  let clientId: string;
  let principalId: string;
  beforeAll(async () => {
    // 127.0.0.1 written as an IPv4-mapped IPv6 range: the test client is the trusted proxy.
    server = await startTestServer({ TRUSTED_PROXIES: '::ffff:127.0.0.0/104, 2001:db8::/32' });
    const client = await provisionClient(server);
    clientId = client.clientId;
    principalId = await createPrincipal(server, client.liveKey, client.programId);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('rejects a bad ip_allowlist entry with 422 naming it', async () => {
    const entries = ['203.0.113.7', '1.2.3.4/99', '999.1.1.1', 'fe80::1%eth0', '::ffff:1.2.3.4/80', '127.1'];
    const res = await request(server, 'POST', `/admin/v1/clients/${clientId}/credentials`, {
      adminKey: server.adminKey,
      body: { environment: 'live', ip_allowlist: entries },
    });
    const env = expectEnvelope(res, 422, 'validation_error');
    expect(env.details).toEqual(
      [1, 2, 3, 4, 5].map((i) => ({
        field: `ip_allowlist.${i}`,
        message: `"${entries[i]}" is not an IP address or CIDR range`,
      })),
    );
  });

  it('stores entries in canonical form and matches through the trusted (mapped) proxy range', async () => {
    const issued = await request<{ api_key: string; credential: { ip_allowlist: string[] } }>(
      server,
      'POST',
      `/admin/v1/clients/${clientId}/credentials`,
      {
        adminKey: server.adminKey,
        body: { environment: 'live', ip_allowlist: ['::ffff:198.51.100.0/120', '2001:DB8:0:0::1', '203.0.113.7/32'] },
      },
    );
    expect(issued.status, issued.text).toBe(201);
    expect(issued.body.credential.ip_allowlist).toEqual(['198.51.100.0/24', '2001:db8::1', '203.0.113.7']);
    const k = { apiKey: issued.body.api_key };
    const call = (from: string) =>
      request(server, 'GET', `/api/v1/principals/${principalId}/agents`, {
        apiKey: k.apiKey,
        headers: { 'x-forwarded-for': from },
      });
    for (const ok of ['198.51.100.77', '::ffff:198.51.100.1', '2001:db8::1', '203.0.113.7']) {
      expect((await call(ok)).status, ok).toBe(200);
    }
    for (const no of ['198.51.101.1', '2001:db8::2', '203.0.113.8', 'garbage']) {
      expectEnvelope(await call(no), 403, 'forbidden');
    }
  });
});
