// What runtime-plane handlers share beyond the caller itself. Routes are declared auth
// 'principal', so their context (RequestContext<'principal'>) carries the calling Principal
// (ctx.auth) and its environment's database (ctx.db), set by the edge.

import type { PrincipalAuth } from '../auth/types.js';
import { ApiError, type ErrorCode } from '../errors/registry.js';
import type { RequestContext } from '../http/types.js';
import { isLookupId } from '../onboarding/checks.js';
import { assertStorable } from '../validation/storable.js';

/** The caller, when the path's :principal_id is its own Principal (else 404). */
export function ownPrincipal(ctx: RequestContext<'principal'>): PrincipalAuth {
  if (ctx.params.principal_id !== ctx.auth.principalId) throw new ApiError('principal_not_found');
  return ctx.auth;
}

/**
 * The validated body, refused with validation_error when nested too deep to store, rather than
 * failing at the database (NUL and lone surrogates never get past the edge).
 */
export function bodyOf<T>(ctx: RequestContext): T {
  assertStorable(ctx.body);
  return ctx.body as T;
}

/** A path id that can be one of ours; anything else is simply not found. */
export function idParam(ctx: RequestContext, name: string, notFound: ErrorCode): string {
  const id = ctx.params[name];
  if (!isLookupId(id)) throw new ApiError(notFound);
  return id;
}
