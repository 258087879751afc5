// docs/api.md, generated: every public endpoint of the OpenAPI document (its credential,
// parameters, request and response fields) and every error code of the registry, as Markdown.
// test/ops/api-reference.test.ts fails when docs/api.md is not what this renders from the
// running service, and rewrites it with UPDATE_DOCS=1.
import { ERRORS, FIELD_ERROR_CODES } from '../errors/registry.js';

type Schema = Record<string, unknown>;

interface Operation {
  summary?: string;
  description?: string;
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema: Schema }> }>;
}

interface OpenApiDoc {
  info?: { description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const CREDENTIALS: Record<string, string> = {
  clientKey: 'Client API key (`X-API-Key`)',
  principalKey: 'Principal API key (`X-API-Key`)',
  bearer: 'OAuth2 access token (`Authorization: Bearer`)',
};

/** Follows "#/components/schemas/…" pointers inside the document. */
function resolve(doc: OpenApiDoc, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 8 && typeof s.$ref === 'string'; i++) {
    const parts = (s.$ref as string).replace('#/components/schemas/', '').split('/');
    let node: unknown = doc.components.schemas;
    for (const p of parts) node = (node as Record<string, unknown> | undefined)?.[p.replace(/~1/g, '/')];
    const { $ref: _ref, ...rest } = s;
    s = { ...(node as Schema), ...rest };
  }
  return s;
}

function typeOf(doc: OpenApiDoc, raw: Schema): string {
  const s = resolve(doc, raw);
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).map((v) => `\`${String(v)}\``).join(', ');
  if (s.const !== undefined) return `\`${String(s.const)}\``;
  const alts = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (Array.isArray(alts)) return alts.map((a) => typeOf(doc, a)).join(' or ');
  const t = Array.isArray(s.type) ? (s.type as string[]).join(' or ') : ((s.type as string | undefined) ?? 'any');
  if (t === 'array' && s.items !== undefined) return `array of ${typeOf(doc, s.items as Schema)}`;
  if (typeof s.format === 'string') return `${t} (${s.format})`;
  return t;
}

function cell(text: unknown): string {
  return String(text ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\s+/g, ' ')
    .trim();
}

/** One row per field, nested objects as dotted names (at most three levels). */
function fieldRows(doc: OpenApiDoc, raw: Schema, prefix: string, depth: number, out: string[]): void {
  const s = resolve(doc, raw);
  const props = s.properties as Record<string, Schema> | undefined;
  if (props === undefined) return;
  const required = new Set((s.required as string[] | undefined) ?? []);
  for (const [name, propRaw] of Object.entries(props)) {
    const prop = resolve(doc, propRaw);
    const field = `${prefix}${name}`;
    const notes: string[] = [];
    if (typeof prop.description === 'string') notes.push(prop.description);
    if (prop.default !== undefined) notes.push(`default \`${JSON.stringify(prop.default)}\``);
    if (typeof prop.maxLength === 'number') notes.push(`at most ${prop.maxLength} characters`);
    if (typeof prop.minimum === 'number' || typeof prop.maximum === 'number') {
      notes.push(`${prop.minimum ?? '…'} to ${prop.maximum ?? '…'}`);
    }
    out.push(
      `| \`${field}\` | ${cell(typeOf(doc, prop))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(notes.join('; '))} |`,
    );
    if (depth < 3) {
      fieldRows(doc, prop, `${field}.`, depth + 1, out);
      const items = prop.items as Schema | undefined;
      if (items !== undefined) fieldRows(doc, items, `${field}[].`, depth + 1, out);
    }
  }
}

function fieldTable(doc: OpenApiDoc, schema: Schema): string[] {
  const rows: string[] = [];
  fieldRows(doc, schema, '', 0, rows);
  if (rows.length === 0) return [];
  return ['| field | type | required | notes |', '|---|---|---|---|', ...rows, ''];
}

export function renderApiReference(doc: OpenApiDoc): string {
  const out: string[] = [
    '# API reference',
    '',
    '<!-- Generated from GET /api/v1/openapi.json and src/errors/registry.ts by',
    '     src/app/api-reference.ts; regenerate with UPDATE_DOCS=1 npx vitest run test/ops/api-reference.test.ts -->',
    '',
    'Every public endpoint of the service. The same document is served as OpenAPI 3.1 at',
    '`GET /api/v1/openapi.json` and rendered in a browser at `GET /docs`. Errors share one',
    'envelope, described at the end with every error code.',
    '',
  ];
  if (doc.info?.description !== undefined) out.push(doc.info.description, '');
  out.push('## Endpoints by resource', '');
  const ops: [string, string, Operation][] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) ops.push([method.toUpperCase(), path, op]);
  }
  const groups = new Map<string, [string, string, Operation][]>(RESOURCES.map(([name]) => [name, []]));
  for (const op of ops) groups.get(resourceOf(op[1]))?.push(op);
  for (const [name, members] of groups) {
    if (members.length === 0) continue;
    out.push(`- ${name}`);
    for (const [method, path] of members) out.push(`  - [\`${method} ${path}\`](#${anchor(method, path)})`);
  }
  out.push('');
  for (const [name, members] of groups) {
    if (members.length === 0) continue;
    out.push(`## ${name}`, '');
    for (const op of members) renderOperation(doc, op, out);
  }
  out.push(
    '## Errors',
    '',
    'Every error answers in one envelope: `{error, message, status, request_id}`, plus',
    '`details: [{field, message}]` and `errors: [{field, code, message}]` when fields are at fault.',
    '`error` is a stable machine code; `message` is for people and may change.',
    '',
    "A refused request lists every field at fault at once (at most 50), the schema's errors and the",
    'cross-field rules together. `errors` is `details` with a stable `code` for each kind of mistake:',
    '',
    '| field error code | meaning |',
    '|---|---|',
    ...Object.entries(FIELD_ERROR_CODES).map(([code, meaning]) => `| \`${code}\` | ${cell(meaning)} |`),
    '',
    '| error code | status | meaning |',
    '|---|---|---|',
  );
  for (const [code, e] of Object.entries(ERRORS)) out.push(`| \`${code}\` | ${e.status} | ${cell(e.message)} |`);
  out.push('');
  return out.join('\n');
}

/** One operation's section: its summary, credential, parameters, body and answers. */
function renderOperation(doc: OpenApiDoc, [method, path, op]: [string, string, Operation], out: string[]): void {
  out.push(`### ${method} ${path}`, '', cell(op.summary), '');
  const creds = (op.security ?? []).flatMap((s) => Object.keys(s)).map((k) => CREDENTIALS[k] ?? k);
  out.push(`Credential: ${creds.length === 0 ? 'none (public)' : creds.join(', or ')}.`, '');
  if (op.description !== undefined) out.push(cell(op.description), '');
  const params = op.parameters ?? [];
  if (params.length > 0) {
    out.push('| parameter | in | type | required |', '|---|---|---|---|');
    for (const p of params) {
      out.push(`| \`${p.name}\` | ${p.in} | ${cell(typeOf(doc, p.schema ?? {}))} | ${p.required ? 'yes' : 'no'} |`);
    }
    out.push('');
  }
  const body = op.requestBody?.content['application/json']?.schema;
  if (body !== undefined) {
    const resolved = resolve(doc, body);
    out.push('Request body (JSON):', '');
    if (typeof resolved.description === 'string') out.push(cell(resolved.description), '');
    out.push(...fieldTable(doc, body));
  }
  const errors: string[] = [];
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (status === 'default') continue;
    if (Number(status) >= 400) {
      // Each error answer's description lists its codes as "`code`: message".
      const codes = [...(response.description ?? '').matchAll(/^`([a-z_]+)`:/gm)].map((m) => `\`${m[1]}\``);
      errors.push(`| ${status} | ${codes.join(', ')} |`);
      continue;
    }
    const schema = response.content?.['application/json']?.schema;
    out.push(`Response ${status}${schema === undefined ? ': no JSON body' : ' (JSON):'}`, '');
    if (schema !== undefined) out.push(...fieldTable(doc, schema));
  }
  if (errors.length > 0)
    out.push('Errors (the envelope of [Errors](#errors)):', '', '| status | error |', '|---|---|', ...errors, '');
}

/**
 * The resources of the reference, in order, each with the paths it holds (the first that
 * matches); a path none matches is listed under the last.
 */
const RESOURCES: readonly (readonly [string, RegExp])[] = [
  ['Authorizing a purchase', /^\/api\/v1\/authorize(\/|$)/],
  ['Holds: capture, release, refund', /^\/api\/v1\/authorizations\//],
  ['Agents', /^\/api\/v1\/(agents(\/\{agent_id\})?(\/metrics|\/status)?$|principals\/\{principal_id\}\/agents$)/],
  ['Mandates', /^\/api\/v1\/(mandates|agents\/\{agent_id\}\/mandates)/],
  ['Thresholds, backtests and shadow thresholds', /^\/api\/v1\/thresholds/],
  ['Step-ups', /^\/api\/v1\/(step-ups|principals\/\{principal_id\}\/step-up-policy)/],
  ['Principal budget', /^\/api\/v1\/principals\/\{principal_id\}\/budget/],
  ['Principals and onboarding', /^\/api\/v1\/(onboard|principals)/],
  ['Webhooks', /^\/api\/v1\/webhooks/],
  ['Tokens and keys', /^\/(oauth|\.well-known)\//],
  ['The service', /./],
];

function resourceOf(path: string): string {
  for (const [name, pattern] of RESOURCES) if (pattern.test(path)) return name;
  return (RESOURCES[RESOURCES.length - 1] as readonly [string, RegExp])[0];
}

/** GitHub's heading anchor for "### METHOD /path". */
function anchor(method: string, path: string): string {
  return `${method} ${path}`
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}
