// Runs the validators precompiled from schemas/ (build/build-validators.mjs) and turns AJV
// errors into validation_error details: every field error of the request at once, each with a
// stable code (registry FIELD_ERROR_CODES) and a message for people.
//
// Messages: a schema node may carry "x-error-message" (and "x-error-code"), used in place of
// AJV's text when its pattern, format or anyOf fails; the build refuses a pattern without one
// (a plain prefix such as "^agt_" reads "must start with agt_"), so no answer shows a regex.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ApiError, type ErrorDetail, type FieldErrorCode } from '../errors/registry.js';
import * as collectors from './generated/collectors.js';
import { messages, patterns } from './generated/messages.js';
import * as generated from './generated/validators.js';

const checks = generated as unknown as Record<string, ValidateFunction | undefined>;
const collecting = collectors as unknown as Record<string, ValidateFunction | undefined>;

/** One schema's validators: `check` stops at the first error, `collect` lists them all (capped). */
export interface SchemaValidator {
  readonly name: string;
  readonly check: ValidateFunction;
  readonly collect: ValidateFunction;
}

const byName = new Map<string, SchemaValidator>();

export function getValidator(name: string): SchemaValidator {
  let v = byName.get(name);
  if (v === undefined) {
    const check = checks[name];
    const collect = collecting[name];
    if (check === undefined || collect === undefined) {
      throw new Error(`no validator named ${name}: add schemas/${name}.json`);
    }
    v = { name, check, collect };
    byName.set(name, v);
  }
  return v;
}

/** Validates in place (schema defaults are applied to data) or throws validation_error 422 with every field error. */
export function validate<T>(validator: SchemaValidator, data: unknown, root = ''): T {
  if (validator.check(data)) return data as T;
  throw validationError(schemaErrors(validator, data, root));
}

/** Every field error of `data` against the schema (no more than MAX_DETAILS). */
export function schemaErrors(validator: SchemaValidator, data: unknown, root = ''): ErrorDetail[] {
  validator.collect(data);
  return toDetails(validator.name, validator.collect.errors ?? [], root);
}

/** One validation_error carrying the schema's errors, then the others for fields not yet named. */
export function validationError(details: ErrorDetail[], more?: readonly ErrorDetail[]): ApiError {
  if (more !== undefined && more.length > 0) {
    const named = new Set(details.map((d) => d.field));
    for (const d of more) {
      if (details.length >= MAX_DETAILS) break;
      if (!named.has(d.field) && !named.has(d.field.split('.')[0] as string)) details.push(d);
    }
  }
  return new ApiError('validation_error', 'The request failed validation.', { details });
}

/** An answer names at most this many fields, each cut to MAX_FIELD_CHARS: an unknown key of
 * 900 KB, or 20,000 of them, is not echoed back whole. */
export const MAX_DETAILS = 50;
const MAX_FIELD_CHARS = 200;

export function toDetails(schema: string, errors: readonly ErrorObject[], root = ''): ErrorDetail[] {
  // A failed anyOf/oneOf answers once, for its own node: its branches' errors are not the
  // client's mistakes (an amount "abc" is not "must be number").
  const alternatives = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    if (out.length >= MAX_DETAILS) break;
    if (alternatives.length > 0 && alternatives.some((a) => insideOf(e, a))) continue;
    let field = pointerToField(e.instancePath);
    if (e.keyword === 'required') field = join(field, String(e.params.missingProperty));
    else if (e.keyword === 'additionalProperties') field = join(field, String(e.params.additionalProperty));
    if (root) field = join(root, field);
    if (field.length > MAX_FIELD_CHARS) field = `${field.slice(0, MAX_FIELD_CHARS)}…`;
    const { code, message } = describe(schema, e);
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: field || '(body)', code, message });
  }
  // A failed anyOf without a message of its own says only "is not in any of the accepted
  // forms"; when a branch behind a $ref already said what the field must be (a date-time,
  // say), that says it better, and the field is named once.
  return out.filter(
    (d, i) => !(d.code === 'invalid' && d.message === NO_FORM && out.some((o, j) => j !== i && o.field === d.field)),
  );
}

const NO_FORM = 'is not in any of the accepted forms';

function insideOf(e: ErrorObject, alternative: ErrorObject): boolean {
  return (
    e !== alternative &&
    e.schemaPath.startsWith(`${alternative.schemaPath}/`) &&
    e.instancePath.startsWith(alternative.instancePath)
  );
}

const FORMATS: Record<string, string> = {
  'date-time': 'must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z',
  date: 'must be a date, e.g. 2026-01-31',
  email: 'must be an email address',
  uri: 'must be an absolute URL',
  uuid: 'must be a UUID',
};

function describe(schema: string, e: ErrorObject): { code: FieldErrorCode; message: string } {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { code: 'required', message: 'is required' };
    case 'additionalProperties':
      return { code: 'unknown_field', message: 'is not a known field' };
    case 'type':
      return { code: 'type', message: `must be ${article(String(p.type).replace(',', ' or '))}` };
    case 'pattern':
      return {
        code: (custom(schema, e)?.code as FieldErrorCode | undefined) ?? 'pattern',
        message: custom(schema, e)?.message ?? patterns[String(p.pattern)] ?? 'is not in the expected form',
      };
    case 'format':
      return {
        code: 'format',
        message: custom(schema, e)?.message ?? FORMATS[String(p.format)] ?? `must be a valid ${String(p.format)}`,
      };
    case 'anyOf':
    case 'oneOf': {
      const c = custom(schema, e);
      return {
        code: (c?.code as FieldErrorCode | undefined) ?? 'invalid',
        message: c?.message ?? NO_FORM,
      };
    }
    case 'minLength':
      return {
        code: 'too_short',
        message: p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters long`,
      };
    case 'maxLength':
      return { code: 'too_long', message: `must be at most ${String(p.limit)} characters long` };
    case 'minItems':
      return { code: 'too_few_items', message: `must hold at least ${String(p.limit)} item(s)` };
    case 'maxItems':
      return { code: 'too_many_items', message: `must hold at most ${String(p.limit)} items` };
    case 'maxProperties':
      return { code: 'too_many_properties', message: `must hold at most ${String(p.limit)} keys` };
    case 'uniqueItems':
      return { code: 'duplicate_items', message: `must not repeat an item (items ${p.j} and ${p.i} are equal)` };
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).slice(0, 30).map(String).join(', ');
      return { code: 'enum', message: `must be one of: ${allowed}` };
    }
    case 'const':
      return { code: 'enum', message: `must be ${JSON.stringify(p.allowedValue)}` };
    case 'minimum':
      return { code: 'minimum', message: `must be at least ${String(p.limit)}` };
    case 'exclusiveMinimum':
      return { code: 'minimum', message: `must be greater than ${String(p.limit)}` };
    case 'maximum':
      return { code: 'maximum', message: `must be at most ${String(p.limit)}` };
    case 'exclusiveMaximum':
      return { code: 'maximum', message: `must be less than ${String(p.limit)}` };
    default:
      return { code: 'invalid', message: custom(schema, e)?.message ?? 'is invalid' };
  }
}

/** The x-error-message / x-error-code of the failing schema node, if it has one. */
function custom(schema: string, e: ErrorObject): { message?: string; code?: string } | undefined {
  const path = e.schemaPath.charCodeAt(0) === 35 /* # */ ? `${schema}${e.schemaPath}` : e.schemaPath;
  return messages[path.slice(0, path.lastIndexOf('/'))];
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function pointerToField(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(a: string, b: string): string {
  return a === '' ? b : `${a}.${b}`;
}
