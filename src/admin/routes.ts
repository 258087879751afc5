// The operator (admin) plane of CONTRACT.md: internal routes under /admin/v1, authenticated by
// X-Admin-Key, never in the public OpenAPI document. Raw keys are answered once.

import { credentialCreated, recordSecurityEvent } from '../audit/security-log.js';
import { credentialJson, issueCredential } from '../auth/credentials.js';
import type { AuthService } from '../auth/service.js';
import type { Config } from '../config/config.js';
import type { Environment } from '../domain/environment.js';
import { hasPrefix } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import { json, type RequestContext, type RouteDef } from '../http/types.js';
import type { Databases, Sql } from '../storage/db.js';
import type { PrincipalRow } from '../storage/rows/principals.js';
import { adminListRoutes } from './list-routes.js';
import { clientExists, createClient, createProgram } from './provisioning.js';
import { securityLogRoutes } from './security-log-routes.js';

interface CredentialBody {
  environment: Environment;
  scopes?: string;
  ip_allowlist?: string[];
  expires_at?: string | null;
}

export function adminRoutes(config: Config, dbs: Databases, auth: AuthService): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/admin/v1/clients',
      auth: 'admin',
      internal: true,
      body: 'AdminCreateClient',
      successStatus: 201,
      summary: 'Provision a Client (in both environments)',
      handler: async (ctx) =>
        json(
          201,
          await createClient(dbs, (ctx.body as { name: string }).name, (tx, client) =>
            recordSecurityEvent(tx, ctx, {
              action: 'client.created',
              targetType: 'client',
              targetId: client.id,
              changes: { name: client.name },
            }),
          ),
        ),
    },
    {
      method: 'POST',
      path: '/admin/v1/clients/:client_id/programs',
      auth: 'admin',
      internal: true,
      body: 'AdminCreateProgram',
      successStatus: 201,
      summary: 'Create a Program owned by a Client (in both environments)',
      handler: async (ctx) => {
        const clientId = ctx.params.client_id as string;
        if (!hasPrefix(clientId, 'cli')) throw new ApiError('client_not_found');
        return json(201, await createProgram(dbs, clientId, (ctx.body as { name: string }).name));
      },
    },
    {
      method: 'POST',
      path: '/admin/v1/clients/:client_id/credentials',
      auth: 'admin',
      internal: true,
      body: 'AdminIssueCredential',
      successStatus: 201,
      summary: 'Issue a Client API key',
      handler: async (ctx) => {
        const clientId = ctx.params.client_id as string;
        const body = ctx.body as CredentialBody;
        const sql = dbs.forEnv(body.environment);
        if (!hasPrefix(clientId, 'cli') || !(await clientExists(sql, clientId))) throw new ApiError('client_not_found');
        return issueFor(ctx, sql, clientId, null, body);
      },
    },
    {
      method: 'POST',
      path: '/admin/v1/principals/:principal_id/credentials',
      auth: 'admin',
      internal: true,
      body: 'AdminIssueCredential',
      successStatus: 201,
      summary: 'Issue a Principal API key in the database the Principal lives in',
      handler: async (ctx) => {
        const principalId = ctx.params.principal_id as string;
        const body = ctx.body as CredentialBody;
        const sql = dbs.forEnv(body.environment);
        const [principal] = hasPrefix(principalId, 'prn')
          ? await sql<Pick<PrincipalRow, 'client_id'>[]>`select client_id from principals where id = ${principalId}`
          : [];
        if (principal === undefined) throw new ApiError('principal_not_found');
        return issueFor(ctx, sql, principal.client_id, principalId, body);
      },
    },
    {
      method: 'POST',
      path: '/admin/v1/credentials/:credential_id/rotate',
      auth: 'admin',
      internal: true,
      body: 'AdminRotateCredential',
      successStatus: 201,
      summary: 'Rotate a key; the previous key works until the grace window ends',
      handler: async (ctx) => {
        const id = ctx.params.credential_id as string;
        if (!hasPrefix(id, 'acr')) throw new ApiError('credential_not_found');
        const grace = (ctx.body as { grace_seconds?: number }).grace_seconds ?? config.keyRotationGraceSeconds;
        // The record commits in the rotation's own transaction, in the credential's database.
        const issued = await auth.credentials.rotate(id, grace, (tx, row) =>
          recordSecurityEvent(tx, ctx, {
            action: 'credential.rotated',
            targetType: 'credential',
            targetId: id,
            changes: {
              grace_seconds: grace,
              previous_key_expires_at: row.previous_key_expires_at?.toISOString() ?? null,
            },
          }),
        );
        return json(201, { credential: issued.credential, api_key: issued.apiKey });
      },
    },
    {
      method: 'POST',
      path: '/admin/v1/credentials/:credential_id/revoke',
      auth: 'admin',
      internal: true,
      successStatus: 200,
      summary: 'Revoke a credential at once and for good (its tokens too)',
      handler: async (ctx) => {
        const id = ctx.params.credential_id as string;
        if (!hasPrefix(id, 'acr')) throw new ApiError('credential_not_found');
        // The record commits in the revocation's own transaction.
        const revoked = await auth.credentials.revoke(id, (tx, row) =>
          recordSecurityEvent(tx, ctx, {
            action: 'credential.revoked',
            targetType: 'credential',
            targetId: id,
            changes: { status: 'revoked', revoked_at: row.revoked_at?.toISOString() ?? null },
          }),
        );
        return json(200, { credential: credentialJson(revoked) });
      },
    },
    ...securityLogRoutes(dbs),
    ...adminListRoutes(dbs),
  ];
}

/** Issues a Client (principalId null) or Principal key from an operator-plane body: 201 {credential, api_key}. */
async function issueFor(
  ctx: RequestContext,
  sql: Sql,
  clientId: string,
  principalId: string | null,
  body: CredentialBody,
) {
  const issued = await sql.begin(async (tx) => {
    const out = await issueCredential(tx as unknown as Sql, {
      clientId,
      principalId,
      environment: body.environment,
      scopes: body.scopes ?? null,
      ipAllowlist: body.ip_allowlist ?? null,
      expiresAt: body.expires_at ?? null,
    });
    await recordSecurityEvent(tx, ctx, credentialCreated(out.credential, 'operator'));
    return out;
  });
  return json(201, { credential: issued.credential, api_key: issued.apiKey });
}
