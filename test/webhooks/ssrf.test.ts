// SSRF under WEBHOOK_URL_POLICY=public, against a real listener on loopback that counts every
// TCP connection: registration refuses inward URLs in every notation, and a webhook whose
// address is (or later resolves) inward is never connected to at delivery time.
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, insertOutbox } from '../fixtures/outbox.js';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn } from '../fixtures/test-db.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { WebhookHttpClient } = (await import(
  `${DIST}webhooks/http-client.js`
)) as typeof import('../../src/webhooks/http-client.js');

let listener: Server;
let port: number;
let connections = 0;
let server: TestServer;
let clientId: string;
let prn: string;
let key: string;

beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  port = (listener.address() as { port: number }).port;
  server = await startTestServer({
    WEBHOOK_URL_POLICY: 'public',
    WEBHOOK_RETRY_SCHEDULE_MS: '50',
    WEBHOOK_TIMEOUT_MS: '2000',
  });
  const client = await provisionClient(server);
  clientId = client.clientId;
  prn = await insertPrincipalRow(server, 'live', clientId, client.programId);
  key = (await issuePrincipalKey(server, prn, 'live')).apiKey;
});

afterAll(async () => {
  await server?.close();
  await new Promise((r) => listener?.close(r));
});

describe('registration under policy public', () => {
  it('refuses every notation of a loopback address with 422 invalid_webhook_url', async () => {
    const hosts = [
      '127.0.0.1',
      '2130706433',
      '0177.0.0.1',
      '0x7f.1',
      '0x7f000001',
      '127.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[64:ff9b::7f00:1]',
      '[2002:7f00:1::]',
      'localhost',
      '169.254.169.254',
      '[fd00:ec2::254]',
    ];
    for (const h of hosts) {
      for (const scheme of ['https', 'http']) {
        const res = await request(server, 'POST', '/api/v1/webhooks', {
          apiKey: key,
          body: { url: `${scheme}://${h}:${port}/hook`, event_types: ['*'] },
        });
        expectEnvelope(res, 422, 'invalid_webhook_url');
      }
    }
    const ok = await request(server, 'POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: 'https://hooks.example.com/mandate', event_types: ['*'] },
    });
    expect(ok.status).toBe(201);
    const id = (ok.body.webhook as { id: string }).id;
    expectEnvelope(
      await request(server, 'PATCH', `/api/v1/webhooks/${id}`, {
        apiKey: key,
        body: { url: `https://127.1:${port}/` },
      }),
      422,
      'invalid_webhook_url',
    );
    await request(server, 'DELETE', `/api/v1/webhooks/${id}`, { apiKey: key });
    expect(connections).toBe(0);
  });
});

describe('delivery under policy public', () => {
  it('never connects to a webhook whose stored URL points inward (literal or a name resolving to 127.0.0.1)', async () => {
    // Rows written behind the API's back, as if the address had changed after registration.
    const urls = [`https://127.0.0.1:${port}/a`, `https://localhost:${port}/b`, `https://[::ffff:127.0.0.1]:${port}/c`];
    const sql = sqlOn(server, 'live');
    const ids = urls.map((_, i) => `wh_ssrf${i}${Date.now()}`);
    for (const [i, url] of urls.entries()) {
      await sql`insert into webhooks (id, principal_id, client_id, url, event_types, secret)
        values (${ids[i] as string}, ${prn}, ${clientId}, ${url}, ${['*']}, 'whsec_dGVzdA==')`;
    }
    const e = envelope('gate.fired', { agent_id: 'agt_ssrf' });
    await insertOutbox(server.dbUrls.live, clientId, prn, [e]);
    // Both attempts (first and the one retry) are made and recorded as blocked.
    for (const id of ids) {
      let items: { status: string; attempts: number; last_error: string | null }[] = [];
      for (let i = 0; i < 100; i++) {
        const res = await request<{ items: typeof items }>(server, 'GET', `/api/v1/webhooks/${id}/deliveries`, {
          apiKey: key,
        });
        items = res.body.items;
        if (items[0]?.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(items[0]).toMatchObject({ status: 'failed', attempts: 2 });
      expect(items[0]?.last_error).toBe('destination not allowed');
    }
    expect(connections).toBe(0);
  });

  it('re-checks after DNS: a public-looking name that resolves to 127.0.0.1 is refused at connect', async () => {
    const lookups: string[] = [];
    const client = new WebhookHttpClient({
      policy: 'public',
      timeoutMs: 2000,
      allowedPorts: [443, port],
      lookup: ((hostname: string, _opts: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) => {
        lookups.push(hostname);
        cb(null, [{ address: '127.0.0.1', family: 4 }]);
      }) as never,
    });
    try {
      const res = await client.post(`https://hooks.example.com:${port}/x`, '{}', {
        'content-type': 'application/json',
      });
      expect(res.ok).toBe(false);
      expect(res.statusCode).toBeNull();
      // The recorded error never names the address the name resolved to.
      expect(res.error).toBe('destination not allowed');
      expect(lookups).toEqual(['hooks.example.com']);
      const literal = await client.post(`https://0x7f.1:${port}/x`, '{}', {});
      expect(literal.error).toBe('destination not allowed');
      const plain = await client.post(`http://hooks.example.com:${port}/x`, '{}', {});
      expect(plain.error).toBe('destination not allowed');
      // A port outside WEBHOOK_ALLOWED_PORTS is refused before any lookup.
      const otherPort = await client.post(`https://hooks.example.com:${port + 1}/x`, '{}', {});
      expect(otherPort.error).toBe('destination not allowed');
      expect(lookups).toEqual(['hooks.example.com']);
    } finally {
      await client.close();
    }
    expect(connections).toBe(0);
  });
});
