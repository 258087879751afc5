// Text PostgreSQL cannot store, refused once at the edge for every string of every request:
// U+0000 (text columns and jsonb refuse it) and unpaired UTF-16 surrogates (not encodable as
// UTF-8: postgres.js would silently write U+FFFD into text, and jsonb refuses the `\ud800`
// escape). Left in, either fails the statement that stores it, and with it a shared audit batch
// of other tenants' decisions. Body values and object keys at any depth, decoded path
// parameters, query and form values are checked; the answer is 422 validation_error naming each
// offending field.
import { ApiError, type ErrorDetail } from '../errors/registry.js';

declare global {
  interface String {
    /** ES2024 (V8 11.3, Node 20): false when the string holds an unpaired surrogate. */
    isWellFormed(): boolean;
  }
}

/** At most this many offending fields are named in one answer. */
const MAX_DETAILS = 20;
/** A field name echoed in details is cut to this many characters. */
const MAX_SEGMENT_CHARS = 64;
const NUL = '\u0000';

/** Why PostgreSQL cannot store `s`, or null when it can. */
export function unstorableReason(s: string): string | null {
  if (!s.isWellFormed()) return 'must not contain an unpaired UTF-16 surrogate (U+D800 to U+DFFF)';
  if (s.indexOf(NUL) !== -1) return 'must not contain U+0000 (NUL)';
  return null;
}

/**
 * Throws validation_error 422 when any string in `value` (values and object keys, at any depth)
 * cannot be stored. Iterative, so a document nested 100,000 levels deep (which JSON.parse
 * accepts) cannot exhaust the stack.
 */
export function assertStorableText(value: unknown, root = ''): void {
  const details = collect(value, root);
  if (details !== null) throw unstorable(details);
}

/** The same check over a flat record (decoded path parameters, query or form values). */
export function assertStorableFields(fields: Readonly<Record<string, string>>): void {
  let details: ErrorDetail[] | null = null;
  for (const key in fields) {
    const reason = unstorableReason(key) ?? unstorableReason(fields[key] as string);
    if (reason === null) continue;
    details ??= [];
    if (details.length < MAX_DETAILS) details.push({ field: printable(key), code: 'unstorable_text', message: reason });
  }
  if (details !== null) throw unstorable(details);
}

function unstorable(details: ErrorDetail[]): ApiError {
  return new ApiError('validation_error', 'The request contains text that cannot be stored.', { details });
}

function collect(value: unknown, root: string): ErrorDetail[] | null {
  let details: ErrorDetail[] | null = null;
  // Three parallel stacks (value, its field path, the object key that led to it) in place of
  // recursion; children are pushed last-first so that fields are named in document order.
  const values: unknown[] = [value];
  const paths: string[] = [root];
  const keys: (string | null)[] = [null];
  while (values.length > 0) {
    const v = values.pop();
    const path = paths.pop() as string;
    const key = keys.pop();
    if (typeof key === 'string') {
      const reason = unstorableReason(key);
      if (reason !== null) {
        details ??= [];
        details.push({ field: path, code: 'unstorable_text', message: `field name ${reason}` });
        if (details.length >= MAX_DETAILS) return details;
      }
    }
    if (typeof v === 'string') {
      const reason = unstorableReason(v);
      if (reason !== null) {
        details ??= [];
        details.push({ field: path || '(body)', code: 'unstorable_text', message: reason });
        if (details.length >= MAX_DETAILS) return details;
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        values.push(v[i]);
        paths.push(join(path, String(i)));
        keys.push(null);
      }
    } else if (v !== null && typeof v === 'object') {
      const names = Object.keys(v);
      for (let i = names.length - 1; i >= 0; i--) {
        const name = names[i] as string;
        values.push((v as Record<string, unknown>)[name]);
        paths.push(join(path, printable(name)));
        keys.push(name);
      }
    }
  }
  return details;
}

/**
 * A field name as sent, cut to a bounded length. Offending characters are echoed as they are:
 * the JSON answer escapes them (\u0000, \ud800), and the client can match the name it sent.
 */
function printable(key: string): string {
  return key.length > MAX_SEGMENT_CHARS ? `${key.slice(0, MAX_SEGMENT_CHARS)}…` : key;
}

function join(a: string, b: string): string {
  return a === '' ? b : `${a}.${b}`;
}
