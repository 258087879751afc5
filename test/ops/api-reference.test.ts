// docs/api.md is what src/app/api-reference.ts renders from the running service's OpenAPI
// document and the error registry: it lists every public endpoint and every error code, and it
// cannot drift. UPDATE_DOCS=1 rewrites the file instead of failing.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { renderApiReference } = (await import(
  `${DIST}app/api-reference.js`
)) as typeof import('../../dist/src/app/api-reference.js');
const { ERRORS } = (await import(`${DIST}errors/registry.js`)) as typeof import('../../dist/src/errors/registry.js');

const FILE = fileURLToPath(new URL('../../docs/api.md', import.meta.url));
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('docs/api.md', () => {
  it('is the reference rendered from the OpenAPI document and the error registry', async () => {
    const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as Parameters<
      typeof renderApiReference
    >[0];
    const rendered = renderApiReference(doc);
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const m of Object.keys(methods)) expect(rendered).toContain(`### ${m.toUpperCase()} ${path}\n`);
    }
    for (const code of Object.keys(ERRORS)) expect(rendered).toContain(`| \`${code}\` |`);
    if (process.env.UPDATE_DOCS === '1') writeFileSync(FILE, rendered);
    expect(
      readFileSync(FILE, 'utf8'),
      'docs/api.md is stale: UPDATE_DOCS=1 npx vitest run test/ops/api-reference.test.ts',
    ).toBe(rendered);
  });
});
