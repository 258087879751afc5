// Business-rule checks shared by the onboarding handlers, after schema validation: identifiers
// safe to look up (bodies too deep to store: src/validation/storable.ts). Who the caller is comes
// typed with the request (RequestContext<'client'>).

const LOOKUP_ID = /^[A-Za-z0-9_]{1,64}$/;

/** True when `id` can be an identifier of ours; anything else is simply not found. */
export function isLookupId(id: string | undefined): id is string {
  return id !== undefined && LOOKUP_ID.test(id);
}

/** True for a PostgreSQL unique violation (also through PGlite). */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}
