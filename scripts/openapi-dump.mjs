// `npm run lint:openapi`: writes the public OpenAPI document, as GET /api/v1/openapi.json serves
// it, to the file named by the first argument (default dist/openapi.json), from the build in
// dist/ (`npm install` builds it; `npm run build` after a change) and without starting the
// service; redocly.yaml lints it. test/ops/openapi.test.ts checks it is the served document.
import { writeFileSync } from 'node:fs';

const dist = new URL(`../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url);
const { openApiDocument } = await import(new URL('app/openapi-document.js', dist).href);
const { loadConfig } = await import(new URL('config/config.js', dist).href);

const file = process.argv[2] ?? 'dist/openapi.json';
writeFileSync(file, `${JSON.stringify(openApiDocument(loadConfig({})), null, 2)}\n`);
process.stdout.write(`wrote ${file}\n`);
