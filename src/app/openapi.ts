// Assembles the OpenAPI 3.1 document from the route table and schemas/ (once, lazily; no
// validator is compiled here). `npm run lint:openapi` lints it with Redocly (redocly.yaml).
import { ERRORS, type ErrorCode } from '../errors/registry.js';
import type { RouteDef } from '../http/types.js';
import { schemas } from '../validation/generated/schemas.js';

/** How money is written in requests and responses (docs/guide.md "Amounts"; rendered atop docs/api.md). */
export const AMOUNTS_RULE = [
  '**Amounts.** Requests take amounts as decimal strings (`"42.50"`) or JSON numbers (read from',
  "their source text, exactly), with at most the currency's ISO 4217 minor units. Responses give",
  'every amount as a JSON number (`42.5`) made from the exact decimal, never by float arithmetic,',
  'so it prints as the decimal itself. The signed decision receipt (`receipt`, a JWS) signs its',
  '`amount` as decimal text with the currency\'s minor units (`"42.50"`); webhook and NATS event',
  'payloads carry amounts as decimal text (`"42.5"`, docs/events.md), and so do the sample',
  'payloads of `GET /api/v1/webhooks/events`.',
].join('\n');

const AUTH_SECURITY: Record<string, Record<string, string[]>[]> = {
  client: [{ clientKey: [] }],
  principal: [{ principalKey: [] }, { bearer: [] }],
  principal_key: [{ principalKey: [] }],
  none: [],
};

/** Methods whose requests the edge reads a body of, bounded by MAX_BODY_BYTES (src/http/server.ts). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a route answers when the resource its path names does not exist or is not the caller's. */
const NOT_FOUND: Readonly<Record<string, ErrorCode>> = {
  principal_id: 'principal_not_found',
  agent_id: 'agent_not_found',
  mandate_id: 'mandate_not_found',
  authorization_id: 'authorization_not_found',
  step_up_id: 'step_up_not_found',
  credential_id: 'credential_not_found',
  webhook_id: 'webhook_not_found',
  event_id: 'not_found',
};

/** What an agent key (docs/auth.md "Agent keys") may do on a route that admits it. */
const AGENT_KEY_NOTE: Readonly<Record<'path' | 'handler', string>> = {
  path: "Also open to an agent key, for its own agent only (the path's agent_id); another agent is 403 forbidden.",
  handler:
    'Also open to an agent key, for its own agent only; another agent (named, or owning the resource) is 403 forbidden.',
};

/**
 * The error codes a route answers: those the edge answers on every route of its kind
 * (src/http/server.ts, src/auth/), then its handler's own (RouteDef.errors).
 */
export function errorCodes(r: RouteDef): ErrorCode[] {
  // Any request: a repeated Content-Length, Transfer-Encoding or Host header is 400; text that
  // cannot be stored (U+0000, a lone surrogate) in the path or the query is 422.
  const codes = new Set<ErrorCode>(['bad_request', 'validation_error']);
  if (BODY_METHODS.has(r.method)) codes.add('payload_too_large');
  if (r.body !== undefined) {
    codes.add('invalid_json');
    codes.add('unsupported_media_type');
  }
  if (r.auth !== 'none') {
    // No credential, or one that does not authenticate; its scope or IP allowlist refuses the
    // path; the credential's request rate or its source's failed attempts are over their limit.
    codes.add('unauthorized');
    codes.add('forbidden');
    codes.add('rate_limited');
  }
  for (const [, param] of r.path.matchAll(/:([a-z_]+)/g)) codes.add(NOT_FOUND[param as string] ?? 'not_found');
  if (r.idempotencyKey === true) {
    codes.add('idempotency_key_reuse');
    codes.add('idempotency_key_expired');
    codes.add('idempotency_key_in_use');
  }
  for (const code of r.errors ?? []) codes.add(code);
  return [...codes];
}

/** One response per error status, each listing its codes with their registry messages. */
function errorResponses(r: RouteDef): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(r)) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status) as ErrorCode[];
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${ERRORS[c].message}`).join('\n\n'),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return out;
}

export function buildOpenApi(routes: readonly RouteDef[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    if (r.internal === true || r.auth === 'admin') continue;
    const path = r.path.replace(/:([a-z_]+)/g, '{$1}');
    const params = [...r.path.matchAll(/:([a-z_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const op: Record<string, unknown> = {
      operationId: r.operationId,
      summary: r.summary,
      ...(r.agentKey === undefined ? {} : { description: AGENT_KEY_NOTE[r.agentKey] }),
      security: AUTH_SECURITY[r.auth] ?? [],
      parameters: params,
      responses: {
        [String(r.successStatus ?? 200)]: {
          description: 'Success',
          ...(r.response === undefined ? {} : { content: { 'application/json': { schema: ref(r.response) } } }),
        },
        ...errorResponses(r),
        default: { description: 'Error', content: { 'application/json': { schema: ref('ErrorEnvelope') } } },
      },
    };
    if (r.query !== undefined) {
      const q = schemas[r.query] as { properties?: Record<string, unknown>; required?: string[] } | undefined;
      for (const [name, schema] of Object.entries(q?.properties ?? {})) {
        params.push({
          name,
          in: 'query',
          required: q?.required?.includes(name) ?? false,
          schema: rewriteRefs(schema, r.query),
        } as never);
      }
    }
    if (r.idempotencyKey === true) {
      params.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255 },
        description:
          'Replays the first answer for 24 hours; the same key with another body is 422 idempotency_key_reuse.',
      } as never);
    }
    if (r.body !== undefined) {
      const content: Record<string, unknown> = { 'application/json': { schema: ref(r.body) } };
      if (r.form === true) content['application/x-www-form-urlencoded'] = { schema: ref(r.body) };
      op.requestBody = { required: r.bodyOptional !== true, content };
    }
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Agent Spending Authorization Service', version: '1.0.0', description: AMOUNTS_RULE },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: reachableSchemas(paths),
      securitySchemes: {
        clientKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Client API key' },
        principalKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Principal API key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}

const COMPONENTS = '#/components/schemas/';

function ref(name: string): { $ref: string } {
  return { $ref: `${COMPONENTS}${name}` };
}

/**
 * Every schema of schemas/ as a component, the operator plane's too (which the public document
 * leaves out): each schema by its name, each entry of a schema's $defs as "<schema>.<entry>".
 */
export function schemaComponents(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const { $defs, ...own } = schema as { $defs?: Record<string, unknown> };
    out[name] = rewriteRefs(own, name);
    for (const [entry, def] of Object.entries($defs ?? {})) out[`${name}.${entry}`] = rewriteRefs(def, name);
  }
  return out;
}

/**
 * The document's components: each schema of schemas/ and each entry of a schema's $defs (as
 * "<schema>.<entry>", e.g. common.amount), those the paths use and those they use in turn.
 */
function reachableSchemas(paths: unknown): Record<string, unknown> {
  const all = new Map(Object.entries(schemaComponents()));
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENTS)) {
        const name = v.slice(COMPONENTS.length);
        if (used.has(name)) continue;
        if (!all.has(name)) throw new Error(`OpenAPI: $ref ${v} names no schema`);
        used.add(name);
        visit(all.get(name));
      } else visit(v);
    }
  };
  visit(paths);
  return Object.fromEntries([...all].filter(([name]) => used.has(name)).sort(([a], [b]) => a.localeCompare(b)));
}

/** Keywords whose value maps names to schemas (not a schema itself). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
/** Keywords whose value is data, copied as it is. */
const DATA = new Set(['enum', 'const', 'default', 'examples', 'x-example']);

/**
 * A schema of schemas/ (JSON Schema draft-07, as the request validators compile it) as a
 * component of OpenAPI 3.1's JSON Schema (2020-12): its $id is dropped, its $refs point at
 * components ("common#/$defs/amount" at "#/components/schemas/common.amount", "#/$defs/x" inside
 * schema S at S.x, "Webhook" at Webhook), and draft-07's `dependencies`, which 2019-09 split in
 * two, becomes dependentRequired (its lists of names) and dependentSchemas (its schemas).
 */
function rewriteRefs(node: unknown, schema: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, schema));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$id') continue;
    if (k === '$ref' && typeof v === 'string') out[k] = `${COMPONENTS}${componentOf(v, schema)}`;
    else if (k === 'dependencies' && v !== null && typeof v === 'object') {
      for (const [name, dep] of Object.entries(v)) {
        const [key, value] = Array.isArray(dep)
          ? ['dependentRequired', dep]
          : ['dependentSchemas', rewriteRefs(dep, schema)];
        out[key] = { ...(out[key] as object | undefined), [name]: value };
      }
    } else if (SCHEMA_MAPS.has(k) && v !== null && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, rewriteRefs(sub, schema)]));
    } else if (DATA.has(k)) out[k] = v;
    else out[k] = rewriteRefs(v, schema);
  }
  return out;
}

function componentOf(target: string, schema: string): string {
  const m = /^([A-Za-z0-9_]*)(?:#\/\$defs\/([A-Za-z0-9_]+))?$/.exec(target);
  if (m === null)
    throw new Error(`OpenAPI: schemas/${schema}.json: $ref "${target}" is not "<schema>" or "<schema>#/$defs/<entry>"`);
  const file = m[1] === '' ? schema : (m[1] as string);
  return m[2] === undefined ? file : `${file}.${m[2]}`;
}
