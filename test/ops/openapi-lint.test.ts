// The OpenAPI document passes Redocly's `recommended` rules (redocly.yaml) with no problem; every
// operation has an operationId, unique and camelCase, which client generators name methods from;
// every error answer is an envelope whose codes the registry answers with that status; and
// scripts/openapi-dump.mjs, which `npm run lint:openapi` lints, writes the document the service
// serves.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { ERRORS } = (await import(`${DIST}errors/registry.js`)) as typeof import('../../dist/src/errors/registry.js');

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

interface Operation {
  operationId?: string;
  responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

let server: TestServer;
let dir: string;
let dumped: string;
let served: Doc;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  dumped = join(dir, 'openapi.json');
  execFileSync(process.execPath, [join(ROOT, 'scripts/openapi-dump.mjs'), dumped], { cwd: ROOT });
  server = await startTestServer();
  served = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as Doc;
});
afterAll(async () => {
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function operations(doc: Doc): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
  );
}

describe('the OpenAPI document', () => {
  it('is written by scripts/openapi-dump.mjs as GET /api/v1/openapi.json serves it', () => {
    expect(JSON.parse(readFileSync(dumped, 'utf8'))).toEqual(served);
  });

  it("passes Redocly's recommended rules (redocly.yaml) without an error or a warning", () => {
    // Exits 0 on warnings: the totals decide.
    const out = execFileSync(
      process.execPath,
      [REDOCLY, 'lint', dumped, '--config', join(ROOT, 'redocly.yaml'), '--format=json'],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    const report = JSON.parse(out) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('names every operation with a unique camelCase operationId', () => {
    const ops = operations(served);
    expect(ops.length).toBeGreaterThan(50);
    const seen = new Map<string, string>();
    for (const [name, op] of ops) {
      expect(op.operationId, name).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(seen.get(op.operationId as string), `${name} repeats ${op.operationId}`).toBeUndefined();
      seen.set(op.operationId as string, name);
    }
    // Client generators name their methods after these: once published, they stay.
    expect(served.paths['/api/v1/authorize']?.post?.operationId).toBe('authorize');
    expect(served.paths['/api/v1/authorize/explain']?.post?.operationId).toBe('explainAuthorization');
    expect(served.paths['/api/v1/agents']?.post?.operationId).toBe('createAgent');
  });

  it('answers every operation with a 4xx envelope whose codes the registry answers with that status', () => {
    for (const [name, op] of operations(served)) {
      const errors = Object.entries(op.responses).filter(([status]) => /^4\d\d$/.test(status));
      expect(errors.length, name).toBeGreaterThan(0);
      for (const [status, response] of errors) {
        expect(response.content?.['application/json']?.schema.$ref, `${name} ${status}`).toBe(
          '#/components/schemas/ErrorEnvelope',
        );
        const codes = [...response.description.matchAll(/^`([a-z0-9_]+)`:/gm)].map((m) => m[1] as string);
        expect(codes.length, `${name} ${status}`).toBeGreaterThan(0);
        for (const code of codes) {
          expect(ERRORS[code as keyof typeof ERRORS]?.status, `${name} ${status} ${code}`).toBe(Number(status));
        }
      }
    }
    // Every request may repeat a framing header (400); only a credential's routes answer 401.
    expect(Object.keys(served.paths['/health']?.get?.responses ?? {})).not.toContain('401');
    expect(Object.keys(served.paths['/api/v1/authorize']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['400', '401', '403', '413', '415', '422', '429']),
    );
    expect(served.paths['/api/v1/principals']?.post?.responses['409']?.description).toContain(
      '`duplicate_client_customer_ref`',
    );
  });
});
