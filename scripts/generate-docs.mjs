// `npm run docs`: writes the reference pages generated from the code, from the build in dist/
// (`npm run docs` builds first): docs/configuration.md from src/config/reference.ts and
// docs/metrics.md from the metrics registry. docs/api.md is rendered from a running service's
// OpenAPI document: UPDATE_DOCS=1 npx vitest run test/ops/api-reference.test.ts.
// test/ops/configuration-reference.test.ts and test/ops/metrics-reference.test.ts fail when a
// page is not what this writes.
import { writeFileSync } from 'node:fs';

const dist = new URL(`../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url);
const { renderConfigReference } = await import(new URL('config/reference.js', dist).href);
const { renderMetricsReference } = await import(new URL('observability/metrics-reference.js', dist).href);

for (const [page, text] of [
  ['docs/configuration.md', renderConfigReference()],
  ['docs/metrics.md', renderMetricsReference()],
]) {
  writeFileSync(new URL(`../${page}`, import.meta.url), text);
  process.stdout.write(`wrote ${page}\n`);
}
