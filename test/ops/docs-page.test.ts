// GET /docs in a real headless browser (Debian's chromium driven by playwright-core): the
// page renders the reference from /api/v1/openapi.json with no request leaving the service,
// and shows every public endpoint of the OpenAPI document. `npm test` installs chromium when missing.
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

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
