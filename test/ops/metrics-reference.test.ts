// docs/metrics.md is what src/observability/metrics-reference.ts renders from the metrics
// registry, and the registry is what a running service exposes at GET /metrics: every family
// it serves, with the same type and help, has a row. UPDATE_DOCS=1 rewrites the page instead
// of failing (as `npm run docs` does).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { metricFamilies, renderMetricsReference } = (await import(
  `${DIST}observability/metrics-reference.js`
)) as typeof import('../../src/observability/metrics-reference.js');

const FILE = fileURLToPath(new URL('../../docs/metrics.md', import.meta.url));
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** name → "type: help" of every family in a text exposition. */
function exposed(text: string): Map<string, string> {
  const help = new Map<string, string>();
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const h = /^# HELP (\S+) (.*)$/.exec(line);
    if (h !== null) help.set(h[1] as string, (h[2] as string).replace(/\\n/g, '\n').replace(/\\\\/g, '\\'));
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t !== null) out.set(t[1] as string, `${t[2]}: ${help.get(t[1] as string)}`);
  }
  return out;
}

describe('docs/metrics.md', () => {
  it('is the page rendered from the metrics registry, with a row per family', () => {
    const families = metricFamilies();
    const rendered = renderMetricsReference(families);
    for (const f of families) {
      expect(rendered).toContain(`| \`${f.name}\` | ${f.type} |`);
      if (f.buckets !== null) expect(rendered).toContain(`| \`${f.name}\` | ${f.buckets.join(', ')} |`);
    }
    if (process.env.UPDATE_DOCS === '1') writeFileSync(FILE, rendered);
    expect(
      readFileSync(FILE, 'utf8'),
      'docs/metrics.md is stale: npm run docs (or UPDATE_DOCS=1 npx vitest run test/ops/metrics-reference.test.ts)',
    ).toBe(rendered);
  });

  it("lists every family a running service's GET /metrics serves, with its type and help", async () => {
    const res = await request(server, 'GET', '/metrics', { adminKey: server.adminKey });
    expect(res.status).toBe(200);
    const served = exposed(res.text);
    const listed = new Map(metricFamilies().map((f) => [f.name, `${f.type}: ${f.help}`]));
    expect(served.size).toBeGreaterThan(50);
    expect(served).toEqual(listed);
  });
});
