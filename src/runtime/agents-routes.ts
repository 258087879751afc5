// The runtime plane's agents (SPEC.md "Agents (Principal)"): create, list, read, metrics and
// status changes, all scoped to the calling Principal. A status change reaches the agent's actor
// before its next decision (invalidateAgent after the update commits).

import type { Services } from '../app/services.js';
import { recordSecurityEvent, type SecurityAction } from '../audit/security-log.js';
import { didMethod, ed25519DidKey, ed25519FromDidKey, generateDidKey, isDuplicateAgentDid } from '../domain/did.js';
import { newId } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import { json, type RouteDef } from '../http/types.js';
import type { AgentRow } from '../storage/rows/agents.js';
import type { PrincipalRow } from '../storage/rows/principals.js';
import { type AgentStatus, type AgentWithCounts, agentView, listAgents, loadOwnedAgent } from './agent-store.js';
import { bodyOf, idParam } from './context.js';
import { invalidateAgent } from './engine-handle.js';
import { agentMetrics } from './metrics.js';
import { checkRegistrationProof, type Ed25519Jwk } from './registration-proof.js';

const AGENT_STATUS_ACTIONS: Record<AgentStatus, SecurityAction> = {
  ACTIVE: 'agent.reactivated',
  SUSPENDED: 'agent.suspended',
  REVOKED: 'agent.revoked',
};

interface CreateBody {
  display_name: string;
  capabilities: string[];
  did?: string;
  public_key_jwk?: Ed25519Jwk & Record<string, unknown>;
  registration_proof?: string;
  principal_id?: string;
  metadata?: Record<string, unknown>;
}

function invalid(field: string, message: string): ApiError {
  return new ApiError('validation_error', undefined, { details: [{ field, message }] });
}

/** The agent's DID: as sent, else the did:key of its registered key, else a fresh did:key. */
function resolveDid(body: CreateBody): string {
  const jwkKey = body.public_key_jwk === undefined ? null : Buffer.from(body.public_key_jwk.x, 'base64url');
  if (jwkKey !== null && jwkKey.length !== 32) throw invalid('public_key_jwk.x', 'must encode a 32-byte Ed25519 key');
  if (body.did === undefined) return jwkKey === null ? generateDidKey() : ed25519DidKey(jwkKey);
  if (didMethod(body.did) === null) throw invalid('did', 'is not a valid DID (did:<method>:<id>)');
  if (jwkKey !== null && body.did.startsWith('did:key:')) {
    // A did:key names its key: it must be the one the proof was made with.
    const didKey = ed25519FromDidKey(body.did);
    if (didKey === null || !Buffer.from(didKey).equals(jwkKey)) {
      throw invalid('did', 'a did:key must encode the Ed25519 key of public_key_jwk');
    }
  }
  return body.did;
}

export function agentsRoutes(services: Services): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/agents',
      auth: 'principal',
      body: 'RuntimeAgentCreateRequest',
      response: 'RuntimeAgent',
      successStatus: 201,
      operationId: 'createAgent',
      summary: 'Register an agent under the calling Principal',
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const b = bodyOf<CreateBody>(ctx);
        if (b.principal_id !== undefined && b.principal_id !== auth.principalId) {
          throw new ApiError('forbidden', "principal_id must be the caller's own Principal.");
        }
        const did = resolveDid(b);
        if (b.public_key_jwk !== undefined && b.registration_proof !== undefined) {
          const problem = checkRegistrationProof(b.public_key_jwk, b.registration_proof, {
            principalId: auth.principalId,
            displayName: b.display_name,
            did: b.did ?? null,
          });
          if (problem !== null) throw invalid('registration_proof', problem);
        }
        const principals = await db<(Pick<PrincipalRow, 'client_id'> & { programs: string[] })[]>`
          select p.client_id,
            coalesce((select array_agg(pp.program_id order by pp.program_id) from principal_programs pp
              where pp.principal_id = p.id), '{}') as programs
          from principals p where p.id = ${auth.principalId}`;
        const principal = principals[0];
        if (principal === undefined) throw new ApiError('principal_not_found');
        const programId = principal.programs.length === 1 ? (principal.programs[0] as string) : null;
        const jwk = b.public_key_jwk === undefined ? null : { kty: 'OKP', crv: 'Ed25519', x: b.public_key_jwk.x };
        const id = newId('agt');
        let rows: AgentWithCounts[];
        try {
          rows = await db<AgentWithCounts[]>`
            insert into agents (id, principal_id, client_id, program_id, name, did, did_method, status,
              trust_level, capabilities, metadata, public_key_jwk)
            values (${id}, ${auth.principalId}, ${principal.client_id}, ${programId}, ${b.display_name},
              ${did}, ${didMethod(did) as string}, 'ACTIVE', 'REGISTERED', ${b.capabilities},
              ${b.metadata === undefined ? null : db.json(b.metadata as never)},
              ${jwk === null ? null : db.json(jwk)})
            returning id, principal_id, program_id, name, did, did_method, status, trust_level,
              kya_score::text as kya_score, capabilities, metadata, created_at, '0' as total, '0' as declined`;
        } catch (err) {
          // A DID is unique within the Client (migration 0090); another Client may hold the same DID.
          if (isDuplicateAgentDid(err)) {
            throw new ApiError('conflict', 'An agent with this DID is already registered in this Client.', {
              details: [{ field: 'did', code: 'already_exists', message: 'is already registered in this Client' }],
            });
          }
          throw err;
        }
        return json(201, agentView(rows[0] as AgentWithCounts));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/agents',
      auth: 'principal',
      query: 'RuntimeAgentListQuery',
      response: 'RuntimeAgentList',
      operationId: 'listAgents',
      summary: "The caller's agents, newest first, paged",
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const page = Number(ctx.query.page ?? '1');
        const pageSize = Number(ctx.query.page_size ?? '20');
        const result = await listAgents(db, auth.principalId, {
          status: ctx.query.status ?? null,
          trustLevel: ctx.query.trust_level ?? null,
          limit: pageSize,
          offset: (page - 1) * pageSize,
        });
        return json(200, { agents: result.rows.map(agentView), total: result.total, page, page_size: pageSize });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/agents/:agent_id',
      auth: 'principal',
      response: 'RuntimeAgent',
      operationId: 'getAgent',
      summary: "One of the caller's agents",
      handler: async (ctx) => {
        const { auth, db } = ctx;
        return json(
          200,
          agentView(await loadOwnedAgent(db, auth.principalId, idParam(ctx, 'agent_id', 'agent_not_found'))),
        );
      },
    },
    {
      method: 'GET',
      path: '/api/v1/agents/:agent_id/metrics',
      auth: 'principal',
      response: 'RuntimeAgentMetrics',
      operationId: 'getAgentMetrics',
      summary: "An agent's decision counts and trust promotion eligibility",
      handler: async (ctx) => {
        const { auth, db } = ctx;
        return json(200, await agentMetrics(db, auth.principalId, idParam(ctx, 'agent_id', 'agent_not_found')));
      },
    },
    {
      method: 'PATCH',
      path: '/api/v1/agents/:agent_id/status',
      auth: 'principal',
      body: 'RuntimeAgentStatusRequest',
      response: 'RuntimeAgentStatusResponse',
      errors: ['invalid_status_transition'],
      operationId: 'setAgentStatus',
      summary: 'Suspend, reactivate or revoke an agent (REVOKED is final)',
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const agentId = idParam(ctx, 'agent_id', 'agent_not_found');
        const { status, reason } = bodyOf<{ status: AgentStatus; reason: string }>(ctx);
        // One statement, so a concurrent revoke cannot be undone by a racing reactivation; the
        // previous status (locked) and the security record share its transaction.
        const rows = await db.begin(async (tx) => {
          const before = await tx<Pick<AgentRow, 'status'>[]>`
            select status from agents where id = ${agentId} and principal_id = ${auth.principalId} for update`;
          const changed = await tx<Pick<AgentRow, 'id' | 'status' | 'trust_level' | 'name'>[]>`
            update agents set status = ${status}, updated_at = now(),
              status_reason = case when status = 'REVOKED' then status_reason else ${reason} end
            where id = ${agentId} and principal_id = ${auth.principalId}
              and (status <> 'REVOKED' or ${status} = 'REVOKED')
            returning id, status, trust_level, name`;
          if (changed.length > 0) {
            await recordSecurityEvent(tx, ctx, {
              action: AGENT_STATUS_ACTIONS[status],
              targetType: 'agent',
              targetId: agentId,
              changes: { from: before[0]?.status ?? null, to: status, reason },
            });
          }
          return changed;
        });
        const row = rows[0];
        if (row === undefined) {
          await loadOwnedAgent(db, auth.principalId, agentId); // 404 when not the caller's
          throw new ApiError(
            'invalid_status_transition',
            `The agent is REVOKED, which is final; it cannot become ${status}.`,
          );
        }
        await invalidateAgent(services, auth.environment, agentId);
        return json(200, { id: row.id, status: row.status, trust_level: row.trust_level, display_name: row.name });
      },
    },
  ];
}
