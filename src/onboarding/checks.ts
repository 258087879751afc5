// Business-rule checks shared by the onboarding handlers, after schema validation: who the
// caller is and identifiers safe to look up (bodies too deep to store: src/validation/storable.ts).
import type { ClientAuth } from '../auth/types.js';
import { ApiError } from '../errors/registry.js';
import type { RequestContext } from '../http/types.js';
import type { Sql } from '../storage/db.js';

const LOOKUP_ID = /^[A-Za-z0-9_]{1,64}$/;

export function clientAuth(ctx: RequestContext): { auth: ClientAuth; db: Sql } {
  if (ctx.auth === null || ctx.auth.kind !== 'client' || ctx.db === null) throw new ApiError('unauthorized');
  return { auth: ctx.auth, db: ctx.db };
}

/** True when `id` can be an identifier of ours; anything else is simply not found. */
export function isLookupId(id: string | undefined): id is string {
  return id !== undefined && LOOKUP_ID.test(id);
}

/** True for a PostgreSQL unique violation (also through PGlite). */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}
