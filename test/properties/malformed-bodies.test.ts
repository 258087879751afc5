// Property: for EVERY operation with a request body in the served OpenAPI document (so routes
// added later are covered without touching this file), malformed bodies sent with valid
// credentials for the route's plane never get a 5xx, and every non-2xx answer is the SPEC.md
// error envelope. Bodies start from a value generated from the operation's own schema and are
// then broken: missing or wrongly typed fields, extra fields, huge strings, deep nesting, NUL
// and lone surrogates, extreme numbers; or replaced by non-JSON text, an empty body, other
// JSON types, truncated JSON, or a wrong Content-Type.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { onboardAgent } from '../fixtures/onboarding.js';
import { issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { EMBEDDED, request, startTestServer } from '../helpers/server.js';

type Schema = Record<string, unknown>;
interface OpenApiDoc {
  paths: Record<string, Record<string, { security?: Record<string, string[]>[]; requestBody?: unknown }>>;
  components: { schemas: Record<string, Schema> };
}
interface Operation {
  method: string;
  path: string;
  schema: Schema;
  plane: 'client' | 'principal' | 'none';
}
interface BadRequest {
  raw: string;
  contentType: string;
  what: string;
}

/** Requests in total, spread over the operations (at least PER_OP_MIN each). */
const TOTAL = EMBEDDED ? 2000 : 3000;
const PER_OP_MIN = 60;

const server = await startTestServer();
afterAll(async () => {
  await server.close();
});
const client = await provisionClient(server);
const onboarded = await onboardAgent(server, client.liveKey, client.programId);
const principalKey = (await issuePrincipalKey(server, onboarded.principalId, 'live')).apiKey;
const doc = (await request<OpenApiDoc>(server, 'GET', '/api/v1/openapi.json')).body;

const PARAMS: Record<string, string> = {
  principal_id: onboarded.principalId,
  agent_id: onboarded.agentId,
  mandate_id: onboarded.mandateId,
};

function deref(schema: unknown, depth = 0): Schema {
  let s = (schema ?? {}) as Schema;
  for (let i = 0; typeof s.$ref === 'string' && i < 20; i++) {
    const pointer = (s.$ref as string).replace(/^#\//, '').split('/');
    let node: unknown = doc;
    for (const part of pointer) node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    s = (node ?? {}) as Schema;
  }
  return depth > 50 ? {} : s;
}

function operations(): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const body = op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
      const schema = body?.content?.['application/json']?.schema;
      if (schema === undefined) continue;
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      const plane = schemes.includes('clientKey')
        ? 'client'
        : schemes.includes('principalKey') || schemes.includes('bearer')
          ? 'principal'
          : 'none';
      const concrete = path.replace(
        /\{([a-z_]+)\}/g,
        (_, name: string) => PARAMS[name] ?? `${name.split('_')[0]}_unknown`,
      );
      ops.push({ method: method.toUpperCase(), path: concrete, schema: deref(schema), plane });
    }
  }
  return ops;
}

/** A value the schema (roughly) accepts: the starting point of every mutation. */
function validArb(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(schema);
  if (depth > 6) return fc.constant(null);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as unknown[]));
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((a) => validArb(a, depth + 1)));
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return validArb(s.allOf[0], depth + 1);
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  const type = types.find((t) => t !== 'null') ?? (s.properties ? 'object' : (types[0] ?? 'any'));
  switch (type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = ((s.required ?? []) as string[]).filter((k) => k in props);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = validArb(v, depth + 1);
      for (const k of (s.required ?? []) as string[]) model[k] ??= fc.string({ maxLength: 8 });
      return fc.record(model, { requiredKeys: [...new Set([...required, ...((s.required ?? []) as string[])])] });
    }
    case 'array': {
      const min = (s.minItems as number | undefined) ?? 0;
      const max = Math.max(min, Math.min((s.maxItems as number | undefined) ?? 3, 3));
      const item = validArb(s.items, depth + 1);
      return s.uniqueItems === true
        ? fc.uniqueArray(item, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) })
        : fc.array(item, { minLength: min, maxLength: max });
    }
    case 'string':
      return stringArb(s);
    case 'integer':
      return fc.integer({ min: (s.minimum as number) ?? -1000, max: (s.maximum as number) ?? 1000 });
    case 'number': {
      const min = (s.minimum as number | undefined) ?? (s.exclusiveMinimum as number | undefined) ?? -1e6;
      const max = (s.maximum as number | undefined) ?? (s.exclusiveMaximum as number | undefined) ?? 1e6;
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringArb(s: Schema): fc.Arbitrary<string> {
  if (s.format === 'date-time') {
    return fc
      .date({ min: new Date('2030-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  if (s.format === 'email') return fc.emailAddress();
  if (s.format === 'uri' || s.format === 'url') return fc.webUrl();
  if (typeof s.pattern === 'string') {
    try {
      const max = (s.maxLength as number | undefined) ?? 64;
      return fc.stringMatching(new RegExp(s.pattern as string)).filter((x) => x.length <= max);
    } catch {
      // A pattern fast-check cannot generate from: fall through to plain strings.
    }
  }
  const min = (s.minLength as number | undefined) ?? 0;
  return fc.string({
    minLength: min,
    maxLength: Math.max(min, Math.min((s.maxLength as number | undefined) ?? 16, 16)),
  });
}

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) pathsOf(value[i], [...prefix, i], out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  }
  return out;
}

/** A copy of `root` with the value at `path` replaced (`remove`: deleted). */
function setAt(root: unknown, path: Path, value: unknown, remove = false): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (remove) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

/** JSON text nested `depth` levels deep, built as text: serialising it would need the stack. */
function nestedText(depth: number, asArray: boolean): string {
  return asArray ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}
const NEST_MARK = '__nested_here__';

const wrongTyped = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);
const oddString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', '\udfff\ud800', '💳'.repeat(50), '\u202e', "'; drop table x; --"),
);
const extremeNumber = fc.constantFrom(
  1e308,
  -1e308,
  5e-324,
  -0,
  2 ** 53 + 1,
  -1,
  0,
  1e21,
  999999999999999.9,
  0.1 + 0.2,
);

function mutated(sample: unknown): fc.Arbitrary<BadRequest> {
  const paths = pathsOf(sample);
  const anyPath = fc.constantFrom(...paths);
  const innerPaths = paths.filter((p) => p.length > 0);
  const json = (v: unknown, what: string): BadRequest => ({
    raw: JSON.stringify(v),
    contentType: 'application/json',
    what,
  });
  const options: fc.Arbitrary<BadRequest>[] = [
    fc.tuple(anyPath, wrongTyped).map(([p, v]) => json(setAt(sample, p, v), `wrong type at ${p.join('.')}`)),
    fc.tuple(anyPath, fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })).map(([p, k, v]) => {
      const target = p.reduce<unknown>((n, key) => (n as Record<string | number, unknown>)[key], sample);
      const isObject = target !== null && typeof target === 'object' && !Array.isArray(target);
      return json(
        isObject ? setAt(sample, [...p, `x_${k}`], v) : setAt(sample, p, { [`x_${k}`]: v }),
        `extra field at ${p.join('.')}`,
      );
    }),
    fc
      .tuple(anyPath, fc.integer({ min: 10_000, max: 300_000 }), fc.constantFrom('x', 'é', '\u0000'))
      .map(([p, n, ch]) => json(setAt(sample, p, ch.repeat(n)), `huge string at ${p.join('.')}`)),
    fc.tuple(anyPath, fc.integer({ min: 20, max: 5000 }), fc.boolean()).map(([p, d, arr]) => {
      const text = JSON.stringify(setAt(sample, p, NEST_MARK)).replace(`"${NEST_MARK}"`, nestedText(d, arr));
      return { raw: text, contentType: 'application/json', what: `nesting ${d} at ${p.join('.')}` };
    }),
    fc.tuple(anyPath, oddString).map(([p, v]) => json(setAt(sample, p, v), `odd string at ${p.join('.')}`)),
    fc.tuple(anyPath, extremeNumber).map(([p, v]) => json(setAt(sample, p, v), `number ${v} at ${p.join('.')}`)),
  ];
  if (innerPaths.length > 0) {
    options.push(
      fc.constantFrom(...innerPaths).map((p) => json(setAt(sample, p, undefined, true), `missing ${p.join('.')}`)),
    );
  }
  return fc.oneof(...options);
}

function wholeBody(sample: unknown): fc.Arbitrary<BadRequest> {
  const text = JSON.stringify(sample);
  const raw = (r: string, what: string, contentType = 'application/json'): BadRequest => ({
    raw: r,
    contentType,
    what,
  });
  return fc.oneof(
    fc.string({ maxLength: 200 }).map((s) => raw(s, 'text')),
    fc.constant(raw('', 'empty body')),
    fc.integer({ min: 1, max: Math.max(1, text.length - 1) }).map((n) => raw(text.slice(0, n), 'truncated JSON')),
    fc
      .constantFrom('[]', '[{}]', 'null', '0', '-1.5', '"a string"', 'true', '{}', `[${text}]`)
      .map((s) => raw(s, `JSON ${s.slice(0, 20)}`)),
    fc.integer({ min: 1000, max: 200_000 }).map((n) => raw('['.repeat(n) + ']'.repeat(n), `raw nesting ${n}`)),
    fc
      .integer({ min: 1000, max: 100_000 })
      .map((n) => raw(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`, `raw object nesting ${n}`)),
    fc
      .constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x')
      .map((ct) => raw(text, `content-type ${ct}`, ct)),
    fc.constant(raw('{"a":1,"a":2,', 'broken JSON')),
    fc.constant(raw('\u0000\u0001\u0002', 'control bytes')),
  );
}

function badRequests(op: Operation): fc.Arbitrary<BadRequest> {
  return validArb(op.schema).chain((sample) =>
    fc.oneof({ weight: 3, arbitrary: mutated(sample) }, { weight: 1, arbitrary: wholeBody(sample) }),
  );
}

const ops = operations();
const perOp = Math.max(PER_OP_MIN, Math.ceil(TOTAL / Math.max(1, ops.length)));
let sent = 0;
/** Operations whose property ran all its cases (a failing one stops at its counterexample). */
let completed = 0;

describe('malformed bodies on every operation with a request body', () => {
  it('finds the operations in the served OpenAPI document', () => {
    const names = ops.map((o) => `${o.method} ${o.path}`);
    expect(names).toContain('POST /api/v1/onboard');
    expect(names).toContain('POST /api/v1/principals');
  });

  for (const op of ops) {
    it(`${op.method} ${op.path} (${op.plane}) never answers 5xx, and errors are envelopes`, async () => {
      const apiKey = op.plane === 'client' ? client.liveKey : op.plane === 'principal' ? principalKey : undefined;
      await fc.assert(
        fc.asyncProperty(badRequests(op), async (bad) => {
          sent++;
          const headers: Record<string, string> = { 'content-type': bad.contentType };
          if (apiKey !== undefined) headers['x-api-key'] = apiKey;
          const res = await request(server, op.method, op.path, { raw: bad.raw, headers });
          const context = `${op.method} ${op.path} [${bad.what}] -> ${res.status} ${res.text.slice(0, 300)}`;
          expect(res.status, context).toBeLessThan(500);
          if (res.status < 200 || res.status >= 300) {
            const b = res.body as Record<string, unknown> | null;
            expect(b, context).not.toBeNull();
            expect(typeof b?.error, context).toBe('string');
            expect(typeof b?.message, context).toBe('string');
            expect(b?.status, context).toBe(res.status);
            expect(String(b?.request_id), context).toMatch(/^req_/);
          }
        }),
        { numRuns: perOp, endOnFailure: true },
      );
      completed++;
    });
  }

  it('sent thousands of malformed bodies and the service is still healthy', async () => {
    expect(sent).toBeGreaterThanOrEqual(perOp * completed);
    if (completed === ops.length) expect(sent).toBeGreaterThanOrEqual(TOTAL);
    expect((await request(server, 'GET', '/health')).status).toBe(200);
  });
});
