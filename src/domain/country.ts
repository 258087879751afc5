// Countries: accepted as ISO 3166-1 alpha-2 or alpha-3, stored and logged as alpha-3
// (CONTRACT.md "Values SPEC.md does not name").
// The package's index without locales: its default entry registers all 78 name locales in every
// thread that imports it (tens of ms and ~10 MB each); the codes need none.
import countries from 'i18n-iso-countries/index.js';

/** Upper-case alpha-3 for a valid alpha-2 or alpha-3 code, otherwise null. */
export function toAlpha3(code: string): string | null {
  const upper = code.trim().toUpperCase();
  if (upper.length === 2) return countries.alpha2ToAlpha3(upper) ?? null;
  if (upper.length === 3) return countries.isValid(upper) ? upper : null;
  return null;
}
