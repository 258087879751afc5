// The embedded sandbox database opens on its first use (src/storage/embedded.ts): a fresh
// embedded server has not opened it, /ready and the background rounds leave it closed, Clients
// and Programs created meanwhile reach it as it opens, and concurrent first uses open it once.
// A restart after a clean stop with no background work left in it opens it lazily again.
// On PostgreSQL both databases are open from the start and the same flow passes.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboardAgent } from '../fixtures/onboarding.js';
import { issueClientKey } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { startApp } = (await import(`${DIST}app/app.js`)) as typeof import('../../src/app/app.js');

const EMBEDDED = process.env.TEST_EMBEDDED === '1';

describe('sandbox database opened on first use', () => {
  let server: TestServer;
  let principalApiKey = '';
  let agentId = '';
  const lines: string[] = [];
  const opens = () =>
    lines
      .map((l) => JSON.parse(l) as { msg?: string; database?: string })
      .filter((l) => l.msg === 'embedded database open' && l.database === 'sandbox').length;

  beforeAll(async () => {
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    // The first sandbox request waits for the open (about a second, more on a loaded machine):
    // a long request deadline keeps this test about what opens, not about how fast.
    server = await startTestServer(
      {
        EMBEDDED_SANDBOX_OPEN: 'first-use',
        REQUEST_DEADLINE_MS: '60000',
        HOLD_EXPIRY_SWEEP_MS: '200',
        IDEMPOTENCY_SWEEP_SECONDS: '1',
      },
      { log },
    );
  }, 120_000);
  afterAll(async () => server?.close());

  it('stays closed through /ready, background rounds and live-only provisioning', async () => {
    const dbs = server.app.services.dbs;
    const dataDir = server.app.services.config.dataDir;
    expect(dbs.isOpen('live')).toBe(true);
    expect(dbs.isOpen('sandbox')).toBe(!EMBEDDED);
    expect((await request(server, 'GET', '/ready')).status).toBe(200);
    const client = await request(server, 'POST', '/admin/v1/clients', {
      adminKey: server.adminKey,
      body: { name: 'Lazy' },
    });
    expect(client.status).toBe(201);
    const clientId = client.body.id as string;
    const program = await request(server, 'POST', `/admin/v1/clients/${clientId}/programs`, {
      adminKey: server.adminKey,
      body: { name: 'Lazy program' },
    });
    expect(program.status).toBe(201);
    const liveKey = await issueClientKey(server, clientId, 'live');
    expect(liveKey.apiKey.startsWith('mdt_live_')).toBe(true);
    // Listings and an unknown test key answer without opening it.
    const listed = await request(server, 'GET', `/admin/v1/clients/${clientId}/credentials`, {
      adminKey: server.adminKey,
    });
    expect(listed.status).toBe(200);
    expect((listed.body.items as unknown[]).length).toBe(1);
    const unknown = await request(server, 'GET', '/api/v1/agents', { apiKey: 'mdt_test_notakey0000000000000000' });
    expect(unknown.status).toBe(401);
    // A few rounds of the hold expiry (200 ms) and idempotency (1 s) sweeps, and a scrape.
    const metrics = await request(server, 'GET', '/metrics', { adminKey: server.adminKey });
    expect(metrics.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(dbs.isOpen('sandbox')).toBe(!EMBEDDED);
    if (EMBEDDED) {
      expect(existsSync(join(dataDir, 'pglite', 'sandbox'))).toBe(false);
      expect(opens()).toBe(0);
    }

    // Concurrent first uses: three sandbox keys issued at once, for the Client created while
    // the sandbox was closed (it is copied in as the sandbox opens).
    const keys = await Promise.all([1, 2, 3].map(() => issueClientKey(server, clientId, 'sandbox')));
    for (const k of keys) expect(k.apiKey.startsWith('mdt_test_')).toBe(true);
    expect(new Set(keys.map((k) => k.credentialId)).size).toBe(3);
    expect(dbs.isOpen('sandbox')).toBe(true);
    if (EMBEDDED) {
      expect(opens()).toBe(1);
      expect(existsSync(join(dataDir, 'pglite', 'sandbox'))).toBe(true);
    }

    // The Program created while it was closed is there too: a sandbox onboarding into it works.
    const onboarded = await onboardAgent(server, keys[0]?.apiKey as string, program.body.id as string);
    principalApiKey = '';
    const principalKey = await request(server, 'POST', `/api/v1/principals/${onboarded.principalId}/sandbox-key`, {
      apiKey: keys[1]?.apiKey as string,
      body: {},
    });
    expect(principalKey.status).toBe(201);
    principalApiKey = principalKey.body.api_key as string;
    agentId = onboarded.agentId;
    const decided = await request(server, 'POST', '/api/v1/authorize', {
      apiKey: principalKey.body.api_key as string,
      body: {
        agent_id: onboarded.agentId,
        amount: '42.50',
        currency: 'USD',
        merchant_name: 'Corner Grocer',
        mcc: '5411',
        country: 'US',
        intent_context: { intent_type: 'purchase', task_reference: 'lazy sandbox' },
      },
    });
    expect(decided.status).toBe(200);
    expect(decided.body.decision).toBe('APPROVE');
    // A Program created now (sandbox open) is written to both at once.
    const second = await request(server, 'POST', `/admin/v1/clients/${clientId}/programs`, {
      adminKey: server.adminKey,
      body: { name: 'Second program' },
    });
    expect(second.status).toBe(201);
    await onboardAgent(server, keys[2]?.apiKey as string, second.body.id as string);
    if (EMBEDDED) expect(opens()).toBe(1);
  }, 120_000);

  it('after a clean stop with no work left in it, a restart opens it on first use again', async () => {
    const config = server.app.services.config;
    await server.app.close();
    lines.length = 0;
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const again = await startApp(config, { log });
    try {
      expect(again.services.dbs.isOpen('sandbox')).toBe(!EMBEDDED);
      expect((await request(again, 'GET', '/ready')).status).toBe(200);
      // The Principal's key from before the restart opens it and decides. The open (about a
      // second) counts against the 1 s answer deadline of /authorize, so the first answer may
      // be the safe decline system_unavailable, which says to retry; the retry is decided.
      let decided = { status: 0, body: {} as Record<string, unknown> };
      for (let attempt = 0; attempt < 20; attempt++) {
        decided = await request(again, 'POST', '/api/v1/authorize', {
          apiKey: principalApiKey,
          body: {
            agent_id: agentId,
            amount: '12.00',
            currency: 'USD',
            merchant_name: 'Corner Grocer',
            mcc: '5411',
            country: 'US',
            intent_context: { intent_type: 'purchase', task_reference: 'after restart' },
          },
        });
        expect(decided.status).toBe(200);
        if ((decided.body.reason_codes as string[]).join() !== 'system_unavailable') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(decided.body.decision, JSON.stringify(decided.body.reason_codes)).toBe('APPROVE');
      expect(again.services.dbs.isOpen('sandbox')).toBe(true);
      if (EMBEDDED) expect(opens()).toBe(1);
    } finally {
      await again.close();
    }
  }, 120_000);
});
