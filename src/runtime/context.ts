// What every runtime-plane handler needs from its request: the calling Principal, its Client,
// the environment and that environment's database. Routes are declared auth 'principal', so the
// edge has already authenticated a Principal key or Bearer token.

import type { PrincipalAuth } from '../auth/types.js';
import type { Environment } from '../domain/environment.js';
import { ApiError, type ErrorCode } from '../errors/registry.js';
import type { RequestContext } from '../http/types.js';
import { isLookupId } from '../onboarding/checks.js';
import type { Sql } from '../storage/db.js';
import { assertStorable } from '../validation/storable.js';

export interface Caller {
  readonly principalId: string;
  readonly clientId: string;
  readonly environment: Environment;
  readonly db: Sql;
}

export function callerOf(ctx: RequestContext): Caller {
  const auth = ctx.auth;
  if (auth === null || auth.kind !== 'principal' || ctx.db === null) throw new ApiError('unauthorized');
  const p: PrincipalAuth = auth;
  return { principalId: p.principalId, clientId: p.clientId, environment: p.environment, db: ctx.db };
}

/** The caller, when the path's :principal_id is its own Principal (else 404). */
export function ownPrincipal(ctx: RequestContext): Caller {
  const caller = callerOf(ctx);
  if (ctx.params.principal_id !== caller.principalId) throw new ApiError('principal_not_found');
  return caller;
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
