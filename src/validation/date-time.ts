// The `date-time` format of every schema (the generated validators use this object in place of
// ajv-formats' own: build/build-validators.mjs). RFC 3339 as ajv-formats checks it, and also an
// instant that both JavaScript's Date and PostgreSQL's timestamptz can hold: ajv-formats accepts
// year 0000 (PostgreSQL has no year zero), a leap second 23:59:60 (Date cannot parse it) and
// 9999-12-31T23:59:59-23:59 (year 10000 in UTC, which toISOString writes as "+010000-..."), and
// each of those was a 500 from the database or the serialiser instead of a 422.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const rfc3339 = (
  require('ajv-formats/dist/formats') as { fullFormats: Record<string, { validate: (s: string) => boolean }> }
).fullFormats['date-time'] as { validate: (s: string) => boolean };

/** Years PostgreSQL and an ISO 8601 text of four digits both hold. */
const MIN_YEAR = 1;
const MAX_YEAR = 9999;

/** True when `text` is an RFC 3339 date-time that JavaScript and PostgreSQL read as the same instant. */
export function isRepresentableDateTime(text: string): boolean {
  if (!rfc3339.validate(text)) return false;
  const written = Number(text.slice(0, 4));
  if (written < MIN_YEAR) return false;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  return year >= MIN_YEAR && year <= MAX_YEAR;
}

/** The format object the generated validators call (`formats0.validate(data)`). */
export const dateTime = { validate: isRepresentableDateTime };
