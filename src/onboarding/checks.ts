// Business-rule checks shared by the onboarding handlers, after schema validation: who the
// caller is, identifiers safe to look up, and bodies not nested too deep to store.
import type { ClientAuth } from '../auth/types.js';
import { ApiError, type ErrorDetail, type FieldErrorCode } from '../errors/registry.js';
import type { RequestContext } from '../http/types.js';
import type { Sql } from '../storage/db.js';

/** Free-form objects (metadata) deeper than this are refused rather than stored. */
export const MAX_JSON_DEPTH = 16;
const LOOKUP_ID = /^[A-Za-z0-9_]{1,64}$/;

export function clientAuth(ctx: RequestContext): { auth: ClientAuth; db: Sql } {
  if (ctx.auth === null || ctx.auth.kind !== 'client' || ctx.db === null) throw new ApiError('unauthorized');
  return { auth: ctx.auth, db: ctx.db };
}

/** True when `id` can be an identifier of ours; anything else is simply not found. */
export function isLookupId(id: string | undefined): id is string {
  return id !== undefined && LOOKUP_ID.test(id);
}

/** Collects the offending fields of one request and throws them together as validation_error. */
export class Problems {
  readonly details: ErrorDetail[] = [];

  constructor(private readonly root: string) {}

  add(field: string, message: string, code?: FieldErrorCode): void {
    const detail: ErrorDetail = { field: this.root === '' ? field : `${this.root}.${field}`, message };
    if (code !== undefined) detail.code = code;
    this.details.push(detail);
  }

  throwIfAny(): void {
    if (this.details.length > 0) throw new ApiError('validation_error', undefined, { details: this.details });
  }
}

/**
 * Refuses what would exhaust the stack when serialised: nesting deeper than MAX_JSON_DEPTH.
 * Runs over bodies the schema already accepted (the edge runs it for every body whose text is
 * nested that deep: jsonTextDeeperThan below). Recursive, but never deeper than MAX_JSON_DEPTH. (Text PostgreSQL cannot store, NUL and lone
 * surrogates, is refused for every request at the edge: src/validation/storable-text.ts.)
 */
export function assertStorable(body: unknown): void {
  const problems = new Problems('');
  walk(body, '', 0, problems);
  problems.throwIfAny();
}

function walk(value: unknown, path: string, depth: number, problems: Problems): void {
  if (problems.details.length > 0 || value === null || typeof value !== 'object') return;
  if (depth >= MAX_JSON_DEPTH) {
    problems.add(path || '(body)', `is nested deeper than ${MAX_JSON_DEPTH} levels`, 'too_deep');
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      walk(value[i], path === '' ? String(i) : `${path}.${i}`, depth + 1, problems);
    return;
  }
  for (const [k, v] of Object.entries(value)) walk(v, path === '' ? k : `${path}.${k}`, depth + 1, problems);
}

/** True for a PostgreSQL unique violation (also through PGlite). */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text `raw` (UTF-8) nests objects and arrays more than `limit` levels deep.
 * One pass over the bytes, no allocation: cheap enough for every request on the hot path, where
 * a walk of the parsed document would not be. Brackets inside strings do not count (UTF-8
 * continuation bytes are never ASCII, so a byte-level scan is exact). For text that is not JSON
 * the answer means nothing, and costs nothing either.
 */
export function jsonTextDeeperThan(raw: Uint8Array, limit: number): boolean {
  // Text shorter than this cannot open limit + 1 containers and close them.
  if (raw.length < 2 * (limit + 1)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i] as number;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) depth--;
  }
  return false;
}
