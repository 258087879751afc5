// The source text of JSON numbers in a request body. JSON.parse turns `1e-7` or `10.50` into
// binary floats, which lose what the client wrote; an amount must be read from what was written.
// Only amounts that arrived as JSON numbers pay for this second parse of the raw body (string
// amounts, the common case, never do): its reviver receives each number's source text
// (`context.source`, JSON.parse source text access, Node 22), kept in place of the number. The
// parse is kept per body, so several amounts of one request share it. A repeated key keeps the
// last value, as the first parse did.
import { expandNumberText } from '../domain/money.js';
import type { RequestContext } from './types.js';

/** A JSON number as written in the body. */
class NumberSource {
  constructor(readonly text: string) {}
}

type SourceReviver = (key: string, value: unknown, context: { source?: string }) => unknown;
const keepNumberSource: SourceReviver = (_key, value, context) =>
  typeof value === 'number' && context.source !== undefined ? new NumberSource(context.source) : value;

const parsed = new WeakMap<Buffer, unknown>();

function withSources(rawBody: Buffer): unknown {
  let doc = parsed.get(rawBody);
  if (doc === undefined) {
    try {
      doc = JSON.parse(rawBody.toString('utf8'), keepNumberSource as (key: string, value: unknown) => unknown);
    } catch {
      doc = null;
    }
    parsed.set(rawBody, doc);
  }
  return doc;
}

/** The source text of the JSON number at `path` of the body (e.g. "1e-7"); null if there is none. */
export function numberSourceText(rawBody: Buffer, path: readonly string[]): string | null {
  let node = withSources(rawBody);
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || node instanceof NumberSource) return null;
    node = (node as Record<string, unknown>)[key];
  }
  return node instanceof NumberSource ? node.text : null;
}

/**
 * An amount field as exact decimal text: a string as given, a JSON number as written in the
 * body (exponent expanded without a float: 1e-7 -> "0.0000001"). Null for anything else,
 * including a number whose exponent no amount can have.
 */
export function amountText(rawBody: Buffer, value: unknown, path: readonly string[]): string | null {
  if (typeof value === 'string') return value;
  if (typeof value !== 'number') return null;
  const source = numberSourceText(rawBody, path);
  return source === null ? null : expandNumberText(source);
}

/**
 * Replaces each amount at `paths` that arrived as a JSON number by its exact decimal text, in
 * the validated body, so every later reader (limits, hashes, idempotency fingerprints) sees what
 * the client wrote. An exponent no amount can have becomes the text "out of range", which the
 * amount check refuses naming the field.
 */
export function exactAmounts(ctx: RequestContext, paths: readonly (readonly string[])[]): void {
  for (const path of paths) {
    let parent: unknown = ctx.body;
    for (let i = 0; i < path.length - 1; i++) {
      if (parent === null || typeof parent !== 'object') break;
      parent = (parent as Record<string, unknown>)[path[i] as string];
    }
    if (parent === null || typeof parent !== 'object') continue;
    const key = path[path.length - 1] as string;
    const value = (parent as Record<string, unknown>)[key];
    if (typeof value !== 'number') continue;
    (parent as Record<string, unknown>)[key] = amountText(ctx.rawBody, value, path) ?? 'out of range';
  }
}
