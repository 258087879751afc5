// What every runtime-plane handler needs from its request: the calling Principal, its Client,
// the environment and that environment's database. Routes are declared auth 'principal', so the
// edge has already authenticated a Principal key or Bearer token.
import type { Environment, PrincipalAuth } from '../auth/types.js';
import { ApiError } from '../errors/registry.js';
import type { RequestContext } from '../http/types.js';
import type { Sql } from '../storage/db.js';

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

/** Timestamps leave the service as ISO 8601 UTC with a trailing Z. */
export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
