// Runs the validators precompiled from schemas/ (build/build-validators.mjs) and turns AJV
// errors into validation_error details that name each offending field.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ApiError, type ErrorDetail } from '../errors/registry.js';
import * as generated from './generated/validators.js';

const validators = generated as unknown as Record<string, ValidateFunction | undefined>;

export function getValidator(name: string): ValidateFunction {
  const v = validators[name];
  if (v === undefined) throw new Error(`no validator named ${name}: add schemas/${name}.json`);
  return v;
}

/** Validates in place (schema defaults are applied to data) or throws validation_error 422. */
export function validate<T>(validator: ValidateFunction, data: unknown, root = ''): T {
  if (validator(data)) return data as T;
  throw new ApiError('validation_error', 'The request failed validation.', {
    details: toDetails(validator.errors ?? [], root),
  });
}

export function toDetails(errors: readonly ErrorObject[], root = ''): ErrorDetail[] {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    let field = pointerToField(e.instancePath);
    if (e.keyword === 'required') field = join(field, String(e.params.missingProperty));
    else if (e.keyword === 'additionalProperties') field = join(field, String(e.params.additionalProperty));
    if (root) field = join(root, field);
    const message =
      e.keyword === 'required'
        ? 'is required'
        : e.keyword === 'additionalProperties'
          ? 'is not a known field'
          : (e.message ?? 'is invalid');
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: field || '(body)', message });
  }
  return out;
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
