// GET /docs in a real headless browser (Debian's chromium driven by playwright-core): the
// page renders the reference from /api/v1/openapi.json with no request leaving the service,
// and shows every public endpoint of the OpenAPI document. `npm test` installs chromium when missing.
import { gunzipSync } from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../fixtures/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('GET /docs', () => {
  it('renders every endpoint of the OpenAPI document from assets served here', async () => {
    const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const expected = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(expected.length).toBeGreaterThan(20);

    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url)) foreign.push(r.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock-summary', { timeout: 30_000 });
    const shown = await page.$$eval('.opblock-summary', (blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method} ${path}`;
      }),
    );
    await page.close();
    expect(shown.sort()).toEqual(expected);
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('serves only the listed assets', async () => {
    const ok = await fetch(`${server.url}/docs/assets/swagger-ui.css`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('text/css');
    const other = await fetch(`${server.url}/docs/assets/package.json`);
    expect(other.status).toBe(404);
    const traversal = await fetch(`${server.url}/docs/assets/..%2F..%2Fpackage.json`);
    expect(traversal.status).toBe(404);
  });
});

describe('GET /docs is bounded: cached, compressed, limited per address', () => {
  /** One GET with undici's request, which leaves the body as sent (fetch would decompress it). */
  async function raw(
    target: TestServer,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
    const res = await undiciRequest(target.url + path, { headers });
    const body = Buffer.from(await res.body.arrayBuffer());
    return { status: res.statusCode, headers: res.headers as Record<string, string>, body };
  }

  it('answers a repeat with If-None-Match 304 and no body, and the bundle gzip-compressed to who accepts it', async () => {
    const path = '/docs/assets/swagger-ui-bundle.js';
    const plain = await raw(server, path);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe('public, max-age=86400');
    const etag = plain.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);

    const zipped = await raw(server, path, { 'accept-encoding': 'br, gzip;q=0.8' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.etag).toBe(etag);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);

    const refused = await raw(server, path, { 'accept-encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.equals(plain.body)).toBe(true);

    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await raw(server, path, { 'if-none-match': tag });
      expect(again.status, tag).toBe(304);
      expect(again.body.length).toBe(0);
    }
    const stale = await raw(server, path, { 'if-none-match': '"not-it"' });
    expect(stale.status).toBe(200);
    expect(stale.body.equals(plain.body)).toBe(true);
  });

  it('refuses an address past its burst of 60 with 429, while another address and /health go on', async () => {
    const own = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1/32' });
    try {
      const from = (ip: string) => raw(own, '/docs/assets/swagger-ui.css', { 'x-forwarded-for': ip });
      // 100 at once: 60 fit the burst, and the refill (20/s) while they are answered cannot
      // cover the other 40 unless the machine stalls for two seconds in the middle.
      const answers = await Promise.all(Array.from({ length: 100 }, () => from('203.0.113.7')));
      const ok = answers.filter((r) => r.status === 200).length;
      const refused = answers.filter((r) => r.status === 429);
      expect(ok).toBeGreaterThanOrEqual(60);
      expect(ok + refused.length).toBe(100);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(JSON.parse(r.body.toString('utf8')).error).toBe('rate_limited');
      }
      expect((await from('198.51.100.9')).status).toBe(200);
      expect((await raw(own, '/health', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});
