// Timestamps leave the service as ISO 8601 UTC with a trailing Z (postgres.js returns Date for a
// timestamptz column; a string is parsed first).
export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
