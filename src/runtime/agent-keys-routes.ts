// Agent keys (docs/auth.md "Agent keys"): the Principal, with its full credential, issues, lists
// and revokes API keys bound to one of its agents. An agent key has the format, hashing, expiry,
// IP allowlist and environment of every key (src/auth/credentials.ts; the environment is the
// caller's), is shown once, and is revoked at once and for good (its tokens too).
import type { Services } from '../app/services.js';
import { credentialCreated, recordSecurityEvent } from '../audit/security-log.js';
import { boundAgent } from '../auth/agent-keys.js';
import { CREDENTIAL_COLUMNS, type CredentialRow, credentialJson, issueCredential } from '../auth/credentials.js';
import { ApiError } from '../errors/registry.js';
import { json, type RequestContext, type RouteDef } from '../http/types.js';
import type { Sql } from '../storage/db.js';
import type { AgentRow } from '../storage/rows/agents.js';
import { bodyOf, idParam } from './context.js';

interface CreateBody {
  ip_allowlist?: string[];
  expires_at?: string | null;
}

/**
 * Only the Principal's full credential (no scope list, no agent binding) manages agent keys: a
 * narrower key must not mint a credential, even a narrower one.
 */
function assertFullCredential(ctx: RequestContext<'principal'>): void {
  if (ctx.auth.scopes.length !== 0 || boundAgent(ctx.auth) !== null) {
    throw new ApiError('forbidden', "Agent keys are managed with the Principal's full credential.");
  }
}

/** The caller's agent named by the path (404 agent_not_found otherwise). */
async function ownedAgent(ctx: RequestContext<'principal'>): Promise<Pick<AgentRow, 'id' | 'client_id' | 'status'>> {
  const id = idParam(ctx, 'agent_id', 'agent_not_found');
  const [agent] = await ctx.db<Pick<AgentRow, 'id' | 'client_id' | 'status'>[]>`
    select id, client_id, status from agents where id = ${id} and principal_id = ${ctx.auth.principalId}`;
  if (agent === undefined) throw new ApiError('agent_not_found');
  return agent;
}

export function agentKeysRoutes(services: Services): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/agents/:agent_id/keys',
      auth: 'principal',
      body: 'AgentKeyCreateRequest',
      bodyOptional: true,
      response: 'AgentKeyCreated',
      successStatus: 201,
      operationId: 'createAgentKey',
      summary: 'Issue an API key bound to one agent (decisions, mandates, holds and step-ups of that agent only)',
      handler: async (ctx) => {
        assertFullCredential(ctx);
        const { auth, db } = ctx;
        const body = bodyOf<CreateBody>(ctx);
        const agent = await ownedAgent(ctx);
        if (agent.status === 'REVOKED') {
          throw new ApiError('validation_error', undefined, {
            details: [{ field: 'agent_id', code: 'not_allowed', message: 'the agent is REVOKED' }],
          });
        }
        const issued = await db.begin(async (tx) => {
          const out = await issueCredential(tx as unknown as Sql, {
            clientId: auth.clientId,
            principalId: auth.principalId,
            agentId: agent.id,
            environment: auth.environment,
            ipAllowlist: body.ip_allowlist ?? null,
            expiresAt: body.expires_at ?? null,
          });
          await recordSecurityEvent(tx, ctx, credentialCreated(out.credential, 'agent-key'));
          return out;
        });
        return json(201, { credential: issued.credential, api_key: issued.apiKey });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/agents/:agent_id/keys',
      auth: 'principal',
      response: 'AgentKeyList',
      operationId: 'listAgentKeys',
      summary: "An agent's keys, newest first (never the keys themselves)",
      handler: async (ctx) => {
        assertFullCredential(ctx);
        const agent = await ownedAgent(ctx);
        const { db } = ctx;
        const rows = await db<CredentialRow[]>`
          select ${db(CREDENTIAL_COLUMNS)} from credentials
           where agent_id = ${agent.id} and principal_id = ${ctx.auth.principalId}
           order by created_at desc, id desc`;
        return json(200, { agent_id: agent.id, keys: rows.map(credentialJson) });
      },
    },
    {
      method: 'POST',
      path: '/api/v1/agents/:agent_id/keys/:credential_id/revoke',
      auth: 'principal',
      response: 'AgentKeyRevoked',
      successStatus: 200,
      operationId: 'revokeAgentKey',
      summary: 'Revoke an agent key at once and for good (its tokens too)',
      handler: async (ctx) => {
        assertFullCredential(ctx);
        const agent = await ownedAgent(ctx);
        const id = idParam(ctx, 'credential_id', 'credential_not_found');
        const { db } = ctx;
        const [own] = await db<Pick<CredentialRow, 'id'>[]>`
          select id from credentials
           where id = ${id} and agent_id = ${agent.id} and principal_id = ${ctx.auth.principalId}`;
        if (own === undefined) throw new ApiError('credential_not_found');
        // The record commits in the revocation's own transaction (as the operator's revoke).
        const revoked = await services.auth.credentials.revoke(id, (tx, row) =>
          recordSecurityEvent(tx, ctx, {
            action: 'credential.revoked',
            targetType: 'credential',
            targetId: id,
            changes: { status: 'revoked', revoked_at: row.revoked_at?.toISOString() ?? null, agent_id: agent.id },
          }),
        );
        return json(200, { credential: credentialJson(revoked) });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/agent-key',
      auth: 'principal',
      response: 'AgentCredential',
      agentKey: 'handler',
      operationId: 'getOwnAgentKey',
      summary: 'The calling agent key: its credential and the agent it acts for (agent keys only)',
      handler: async (ctx) => {
        // What an agent's software (the MCP server, docs/mcp.md) learns its agent from, so that
        // the agent id comes from the key and from nothing a caller says.
        if (boundAgent(ctx.auth) === null) throw new ApiError('forbidden', 'Only an agent key acts for an agent.');
        const { db } = ctx;
        const [row] = await db<CredentialRow[]>`
          select ${db(CREDENTIAL_COLUMNS)} from credentials where id = ${ctx.auth.credentialId}`;
        if (row === undefined) throw new ApiError('credential_not_found');
        return json(200, credentialJson(row));
      },
    },
  ];
}
