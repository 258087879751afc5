// Agents under a Principal (onboarding plane): Program inheritance, a generated did:key when
// none is given, status ACTIVE and trust level REGISTERED on creation.
import { didMethod, generateDidKey, isDuplicateAgentDid } from '../domain/did.js';
import { newId } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import type { AgentRow } from '../storage/rows/agents.js';
import type { Db, Tx } from './idempotency.js';

/** schemas/OnboardAgentCreateRequest.json (defaults applied). */
export interface AgentInput {
  name: string;
  program_id?: string;
  capabilities: string[];
  did?: string;
  external_agent_ref?: string;
  metadata?: Record<string, unknown>;
}

/** schemas/OnboardAgentSummary.json */
export interface AgentSummary {
  id: string;
  name: string;
  status: string;
  trust_level: string;
  kya_score: number | null;
}

/** schemas/OnboardAgent.json */
export interface AgentRecord extends AgentSummary {
  principal_id: string;
  client_id: string;
  program_id: string;
  did: string;
  did_method: string;
  capabilities: string[];
  external_agent_ref: string | null;
  metadata: Record<string, unknown> | null;
  created_at: string;
}

/**
 * The Program of a new agent: the one given, which must be one the Principal is enrolled in,
 * or the Principal's only Program.
 */
export function resolveProgram(enrolled: readonly string[], requested: string | undefined, field: string): string {
  if (requested !== undefined) {
    if (enrolled.includes(requested)) return requested;
    throw new ApiError('principal_not_in_program', undefined, {
      details: [{ field, code: 'not_allowed', message: `the Principal is not enrolled in ${requested}` }],
    });
  }
  if (enrolled.length === 1) return enrolled[0] as string;
  throw new ApiError('principal_not_in_program', undefined, {
    details: [
      {
        field,
        message:
          enrolled.length === 0
            ? 'is required: the Principal is not enrolled in any Program'
            : 'is required: the Principal is enrolled in more than one Program',
      },
    ],
  });
}

export async function createAgent(
  tx: Tx,
  clientId: string,
  principal: { id: string; programs: readonly string[] },
  input: AgentInput,
  root = '',
): Promise<AgentRecord> {
  const at = (f: string) => (root === '' ? f : `${root}.${f}`);
  const programId = resolveProgram(principal.programs, input.program_id, at('program_id'));
  let did = input.did;
  let method: string | null;
  if (did === undefined) {
    did = generateDidKey();
    method = 'key';
  } else {
    method = didMethod(did);
    if (method === null) {
      throw new ApiError('validation_error', undefined, {
        details: [{ field: at('did'), code: 'pattern', message: 'is not a W3C DID (did:<method>:<id>)' }],
      });
    }
  }
  const id = newId('agt');
  const now = new Date();
  try {
    await tx`insert into agents (id, principal_id, client_id, program_id, name, did, did_method, status,
      trust_level, capabilities, external_agent_ref, metadata, created_at, updated_at)
      values (${id}, ${principal.id}, ${clientId}, ${programId}, ${input.name}, ${did}, ${method}, 'ACTIVE',
        'REGISTERED', ${input.capabilities}, ${input.external_agent_ref ?? null},
        ${input.metadata === undefined ? null : tx.json(input.metadata as never)}, ${now}, ${now})`;
  } catch (err) {
    // A DID is unique within the Client (migration 0090); another Client may hold the same DID.
    if (isDuplicateAgentDid(err)) {
      throw new ApiError('conflict', 'An agent with this DID is already registered in this Client.', {
        details: [{ field: at('did'), code: 'already_exists', message: 'is already registered in this Client' }],
      });
    }
    throw err;
  }
  return {
    id,
    principal_id: principal.id,
    client_id: clientId,
    program_id: programId,
    did,
    did_method: method,
    name: input.name,
    status: 'ACTIVE',
    trust_level: 'REGISTERED',
    kya_score: null,
    capabilities: input.capabilities,
    external_agent_ref: input.external_agent_ref ?? null,
    metadata: input.metadata ?? null,
    created_at: now.toISOString(),
  };
}

export function summaryOf(a: AgentRecord): AgentSummary {
  return { id: a.id, name: a.name, status: a.status, trust_level: a.trust_level, kya_score: a.kya_score };
}

export async function listAgentSummaries(db: Db, principalId: string): Promise<AgentSummary[]> {
  const rows = await db<
    { id: string; name: string; status: string; trust_level: string; kya_score: string | null }[]
  >`select id, name, status, trust_level, kya_score from agents where principal_id = ${principalId}
    order by created_at, id`;
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    status: r.status,
    trust_level: r.trust_level,
    // A score in [0, 1], not money: a JSON number is its natural form.
    kya_score: r.kya_score === null ? null : Number(r.kya_score),
  }));
}

type ClientAgent = Pick<AgentRow, 'id' | 'principal_id' | 'program_id' | 'status'>;

/** The agent of `clientId` a mandate is granted to, or principal_not_found (SPEC "Error codes"). */
export async function findClientAgent(db: Db, clientId: string, agentId: string): Promise<ClientAgent> {
  const [row] = await db<ClientAgent[]>`
    select id, principal_id, program_id, status from agents where id = ${agentId} and client_id = ${clientId}`;
  if (row === undefined) throw new ApiError('principal_not_found', 'Agent not found for this Client.');
  return row;
}
