// The client in step with the document: its generated types and operation tables are what
// scripts/generate.mjs renders from the OpenAPI document the service serves now.
// UPDATE_CLIENT=1 rewrites them instead of failing.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/fixtures/server.js';
import { render } from '../scripts/generate.mjs';

const PACKAGE = new URL('../', import.meta.url);
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('packages/client/src/generated', () => {
  it('is what scripts/generate.mjs renders from the served OpenAPI document', async () => {
    const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as { paths: object };
    const files = (await render(doc)) as Record<string, string>;
    expect(Object.keys(files).sort()).toEqual(['src/generated/openapi.ts', 'src/generated/operations.ts']);
    expect(files['src/generated/openapi.ts']).toContain('"/api/v1/authorize": {');
    expect(files['src/generated/operations.ts']).toContain("'POST /api/v1/authorize',");
    for (const [path, text] of Object.entries(files)) {
      if (process.env.UPDATE_CLIENT === '1') writeFileSync(new URL(path, PACKAGE), text);
      expect(
        readFileSync(new URL(path, PACKAGE), 'utf8'),
        `packages/client/${path} is stale: UPDATE_CLIENT=1 npx vitest run packages/client/test/generated.test.ts`,
      ).toBe(text);
    }
  });

  it('depends on the versions the repository builds and tests it with', () => {
    const own = JSON.parse(readFileSync(new URL('package.json', PACKAGE), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const root = JSON.parse(readFileSync(new URL('../../package.json', PACKAGE), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const [name, range] of Object.entries(own.dependencies)) {
      expect(root.dependencies[name] ?? root.devDependencies[name], name).toBe(range);
    }
  });
});
