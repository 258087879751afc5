// The READMEs' TypeScript example (packages/client/examples/first-authorization.ts, quoted
// whole by README.md and packages/client/README.md) run as a user runs it: Node strips its
// types and resolves '@asas/client' to the built package; it authorizes against a real service.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/fixtures/server.js';
import { type OnboardedPrincipal, onboardThroughClient } from './fixtures.js';

const EXAMPLE = fileURLToPath(new URL('../examples/first-authorization.ts', import.meta.url));
const READMES = ['../../../README.md', '../README.md'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
let server: TestServer;
let principal: OnboardedPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  principal = await onboardThroughClient(server);
});
afterAll(async () => {
  await server?.close();
});

async function runExample(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [EXAMPLE], {
      env: { PATH: process.env.PATH, ...env },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the TypeScript example of the READMEs', () => {
  it('is quoted whole by both READMEs', () => {
    const example = readFileSync(EXAMPLE, 'utf8');
    for (const readme of READMES) {
      const blocks = [...readFileSync(readme, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
      expect(blocks, readme).toContain(example);
    }
  });

  it('authorizes the first purchase', async () => {
    const run = await runExample({
      BASE: server.url,
      PRINCIPAL_KEY: principal.principalKey,
      AGENT_ID: principal.agentId,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^APPROVE approved auth_\w+\n$/);
  });

  it('prints the typed error when the call is refused', async () => {
    const run = await runExample({ BASE: server.url, PRINCIPAL_KEY: principal.principalKey, AGENT_ID: 'not-an-agent' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^422 validation_error agent_id: /);
  });
});
