// Assembles the OpenAPI 3.1 document from the route table and schemas/ (once, lazily; no
// validator is compiled here).
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
      summary: r.summary,
      security: AUTH_SECURITY[r.auth] ?? [],
      parameters: params,
      responses: {
        [String(r.successStatus ?? 200)]: {
          description: 'Success',
          ...(r.response === undefined ? {} : { content: { 'application/json': { schema: ref(r.response) } } }),
        },
        default: { description: 'Error', content: { 'application/json': { schema: ref('ErrorEnvelope') } } },
      },
    };
    if (r.query !== undefined) {
      const q = schemas[r.query] as { properties?: Record<string, unknown>; required?: string[] } | undefined;
      for (const [name, schema] of Object.entries(q?.properties ?? {})) {
        params.push({ name, in: 'query', required: q?.required?.includes(name) ?? false, schema } as never);
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
  const components: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(schemas)) components[name] = rewriteRefs(schema);
  return {
    openapi: '3.1.0',
    info: { title: 'Agent Spending Authorization Service', version: '1.0.0', description: AMOUNTS_RULE },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        clientKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Client API key' },
        principalKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Principal API key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}

function ref(name: string): { $ref: string } {
  return { $ref: `#/components/schemas/${name}` };
}

/** "common#/$defs/x" becomes "#/components/schemas/common/$defs/x"; $id is dropped. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$id') continue;
    if (k === '$ref' && typeof v === 'string') {
      const [file, pointer] = v.split('#') as [string, string | undefined];
      out[k] = `#/components/schemas/${file}${pointer ?? ''}`;
    } else out[k] = rewriteRefs(v);
  }
  return out;
}
