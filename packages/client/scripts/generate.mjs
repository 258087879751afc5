// Generates the client's code that comes from the service's OpenAPI document:
// - src/generated/openapi.ts: the types of every path, operation and schema (openapi-typescript);
// - src/generated/operations.ts: which operations take an Idempotency-Key header, which take an
//   idempotency_key body field, and which need no credential, read from the same document.
//
//   node packages/client/scripts/generate.mjs             # the document of the built service (dist/)
//   node packages/client/scripts/generate.mjs <url|file>  # a running service's, or a saved copy
//
// With no argument it reads the document of the build in dist/ (`npm run build` first), see
// builtDocument. packages/client/test/generated.test.ts fails when the committed files are not
// what this writes from the served document (UPDATE_CLIENT=1 there rewrites them).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const PACKAGE = new URL('../', import.meta.url);
const HEADER = '/* Generated from the OpenAPI document by packages/client/scripts/generate.mjs. Do not edit. */\n';

/** The generated files, by path inside packages/client/, rendered from `doc`. */
export async function render(doc) {
  const ast = await openapiTS(doc, {
    // A field with a default may be left out of a request: keep it optional.
    defaultNonNullable: false,
    // An object schema without properties (metadata) holds any values.
    emptyObjectsUnknown: true,
    silent: true,
  });
  return {
    'src/generated/openapi.ts': HEADER + astToString(ast),
    'src/generated/operations.ts': HEADER + renderOperations(doc),
  };
}

/** Writes the generated files into packages/client/. */
export async function write(doc) {
  for (const [path, text] of Object.entries(await render(doc))) {
    writeFileSync(new URL(path, PACKAGE), text);
    process.stdout.write(`wrote packages/client/${path}\n`);
  }
}

function renderOperations(doc) {
  const header = [];
  const body = [];
  const open = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
      const key = `${method.toUpperCase()} ${path}`;
      if ((op.parameters ?? []).some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')) {
        header.push(key);
      }
      const schema = resolve(doc, op.requestBody?.content?.['application/json']?.schema);
      if (schema?.properties?.idempotency_key !== undefined) body.push(key);
      if (Array.isArray(op.security) && op.security.length === 0) open.push(key);
    }
  }
  const set = (name, doc, keys) =>
    `/** ${doc} */\nexport const ${name}: ReadonlySet<string> = new Set([\n${keys.map((k) => `  '${k}',\n`).join('')}]);\n`;
  return [
    set('IDEMPOTENCY_KEY_HEADER', 'Operations that take an Idempotency-Key header ("METHOD /path").', header),
    set('IDEMPOTENCY_KEY_FIELD', 'Operations whose JSON body takes an idempotency_key field.', body),
    set('NO_CREDENTIAL', 'Operations that need no credential.', open),
  ].join('\n');
}

function resolve(doc, schema) {
  const ref = schema?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  return ref
    .slice(2)
    .split('/')
    .reduce((node, part) => node?.[part.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
}

/**
 * The document of the build in dist/, as GET /api/v1/openapi.json serves it, built from the route
 * table without starting the service (src/app/openapi-document.ts, as scripts/openapi-dump.mjs).
 */
export async function builtDocument() {
  const dist = new URL(`../../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url);
  const { openApiDocument } = await import(new URL('app/openapi-document.js', dist).href);
  const { loadConfig } = await import(new URL('config/config.js', dist).href);
  return openApiDocument(loadConfig({}));
}

async function documentFrom(source) {
  if (source === undefined) return builtDocument();
  if (/^https?:\/\//.test(source)) {
    const url = new URL(source);
    if (url.pathname === '/' || url.pathname === '') url.pathname = '/api/v1/openapi.json';
    const res = await fetch(url);
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
    return res.json();
  }
  return JSON.parse(readFileSync(source, 'utf8'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await write(await documentFrom(process.argv[2]));
}
