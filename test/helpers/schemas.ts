// Checks a response body against the schema its route documents, with the build's own
// precompiled validators (from DIST_DIR like the server under test).
import type { ValidateFunction } from 'ajv';
import { expect } from 'vitest';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const validators = (await import(`${DIST}validation/generated/validators.js`)) as Record<string, ValidateFunction>;

export function expectSchema(name: string, body: unknown): void {
  const v = validators[name];
  if (v === undefined) throw new Error(`no validator ${name}`);
  const ok = v(structuredClone(body));
  expect(ok ? [] : v.errors, `${name}: ${JSON.stringify(body).slice(0, 400)}`).toEqual([]);
}

/**
 * Null when `text` is the error envelope (schemas/ErrorEnvelope.json) of an answer with HTTP
 * `status` (its own status field equal); otherwise what is wrong with it.
 */
export function envelopeProblem(text: string, status: number): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const v = validators.ErrorEnvelope as ValidateFunction;
  if (!v(body)) return `not an ErrorEnvelope: ${JSON.stringify(v.errors)}`;
  if ((body as { status: unknown }).status !== status) return `status field is not ${status}`;
  return null;
}
