// Bodies the service can store: field problems collected and thrown together, nesting no deeper
// than MAX_JSON_DEPTH (checked on the text at the edge for every request, on the parsed body
// where it is stored).
import { ApiError, type ErrorDetail, type FieldErrorCode } from '../errors/registry.js';

/** Free-form objects (metadata) deeper than this are refused rather than stored. */
export const MAX_JSON_DEPTH = 16;

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
