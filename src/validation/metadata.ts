// The size cap on free-form `metadata` objects (METADATA_MAX_BYTES, default 16 KiB serialized).
// Where metadata is accepted is read from the schemas themselves, the source of truth: every
// property of a request schema that refers to common#/$defs/metadata, followed through $refs to
// other schemas (POST /onboard's principal.metadata and agent.metadata), computed once per schema.
import { ApiError, type ErrorDetail } from '../errors/registry.js';
import { schemas } from './generated/schemas.js';
import { MAX_JSON_DEPTH } from './storable.js';

const METADATA_REF = 'common#/$defs/metadata';
const MAX_DEPTH = 8;
const paths = new Map<string, readonly (readonly string[])[]>();

type Schema = Record<string, unknown>;

function collect(schema: Schema | undefined, prefix: readonly string[], out: string[][], depth: number): void {
  if (schema === undefined || depth > MAX_DEPTH) return;
  const ref = schema.$ref;
  if (ref === METADATA_REF) {
    out.push([...prefix]);
    return;
  }
  if (typeof ref === 'string' && !ref.includes('#')) collect(schemas[ref], prefix, out, depth + 1);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[k];
    if (Array.isArray(list)) for (const s of list) collect(s as Schema, prefix, out, depth + 1);
  }
  const props = schema.properties;
  if (props !== null && typeof props === 'object') {
    for (const [name, sub] of Object.entries(props as Record<string, Schema>)) {
      collect(sub, [...prefix, name], out, depth + 1);
    }
  }
}

/** Property paths of `schemaName` where a metadata object is accepted (e.g. [['principal', 'metadata']]). */
export function metadataPaths(schemaName: string): readonly (readonly string[])[] {
  let found = paths.get(schemaName);
  if (found === undefined) {
    const out: string[][] = [];
    collect(schemas[schemaName], [], out, 0);
    found = out;
    paths.set(schemaName, found);
  }
  return found;
}

/**
 * Refuses with 422 validation_error, naming each field, a metadata object whose JSON text is
 * larger than `maxBytes` (UTF-8).
 */
export function assertMetadataSize(body: unknown, where: readonly (readonly string[])[], maxBytes: number): void {
  let details: ErrorDetail[] | null = null;
  for (const path of where) {
    let node: unknown = body;
    for (const key of path) {
      if (node === null || typeof node !== 'object') break;
      node = (node as Record<string, unknown>)[key];
    }
    if (node === null || typeof node !== 'object') continue;
    // Depth first, without recursion: JSON.stringify of thousands of nested levels can exhaust
    // the stack of a deep call chain (seen at 5,000 levels on the embedded defaults).
    if (nestedDeeperThan(node, MAX_JSON_DEPTH)) {
      details ??= [];
      details.push({
        field: path.join('.'),
        code: 'too_deep',
        message: `must not be nested deeper than ${MAX_JSON_DEPTH} levels`,
      });
      continue;
    }
    const bytes = Buffer.byteLength(JSON.stringify(node), 'utf8');
    if (bytes > maxBytes) {
      details ??= [];
      details.push({
        field: path.join('.'),
        code: 'too_large',
        message: `must be at most ${maxBytes} bytes as JSON (got ${bytes})`,
      });
    }
  }
  if (details !== null)
    throw new ApiError('validation_error', 'The metadata is too large or too deeply nested.', { details });
}

/** True when `root` holds objects or arrays more than `limit` levels deep (iterative walk). */
function nestedDeeperThan(root: object, limit: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [value, depth] = top;
    if (value === null || typeof value !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
