// SQL of the runtime plane's agents: every read is scoped to the calling Principal, so another
// Principal's agent is indistinguishable from one that does not exist (404, never data).
// total_transactions and decline_rate are counted from the authorizations audit log; a replayed
// idempotency_key never adds a row there, so it never counts twice.

import { declineRate } from '../decision/model/promotion.js';
import { iso } from '../domain/timestamp.js';
import { ApiError } from '../errors/registry.js';
import type { Sql } from '../storage/db.js';
import type { AgentRow, AgentStatus } from '../storage/rows/agents.js';

export type { AgentStatus };

/** An agent as the runtime plane reads it, with its decision counts (NUMERIC text) from the audit log. */
export type AgentWithCounts = Pick<
  AgentRow,
  | 'id'
  | 'principal_id'
  | 'program_id'
  | 'name'
  | 'did'
  | 'did_method'
  | 'status'
  | 'trust_level'
  | 'kya_score'
  | 'capabilities'
  | 'metadata'
  | 'created_at'
> & { total: string; declined: string };

/** The runtime-plane agent shape (SPEC.md "Agent"). */
export function agentView(row: AgentWithCounts): Record<string, unknown> {
  const total = Number(row.total);
  return {
    id: row.id,
    principal_id: row.principal_id,
    program_id: row.program_id,
    did: row.did,
    did_method: row.did_method,
    display_name: row.name,
    status: row.status,
    trust_level: row.trust_level,
    kya_score: row.kya_score === null ? null : Number(row.kya_score),
    capabilities: row.capabilities,
    metadata: row.metadata,
    total_transactions: total,
    decline_rate: declineRate(Number(row.declined), total),
    created_at: iso(row.created_at),
  };
}

/** One of the caller's agents, with its counts; agent_not_found (404) otherwise. */
export async function loadOwnedAgent(db: Sql, principalId: string, agentId: string): Promise<AgentWithCounts> {
  const rows = await db<AgentWithCounts[]>`
    select a.id, a.principal_id, a.program_id, a.name, a.did, a.did_method, a.status, a.trust_level,
      a.kya_score::text as kya_score, a.capabilities, a.metadata, a.created_at,
      s.total::text as total, s.declined::text as declined
    from agents a
    cross join lateral (
      select count(*) as total, count(*) filter (where decision = 'DECLINE') as declined
      from authorizations z where z.agent_id = a.id
    ) s
    where a.id = ${agentId} and a.principal_id = ${principalId}`;
  const row = rows[0];
  if (row === undefined) throw new ApiError('agent_not_found');
  return row;
}

/** Ownership check without the counts. */
export async function assertOwnedAgent(db: Sql, principalId: string, agentId: string): Promise<void> {
  const rows = await db`select 1 from agents where id = ${agentId} and principal_id = ${principalId}`;
  if (rows.length === 0) throw new ApiError('agent_not_found');
}

export interface AgentPage {
  rows: AgentWithCounts[];
  total: number;
}

export async function listAgents(
  db: Sql,
  principalId: string,
  filter: { status: string | null; trustLevel: string | null; limit: number; offset: number },
): Promise<AgentPage> {
  const where = () => db`a.principal_id = ${principalId}
    ${filter.status === null ? db`` : db`and a.status = ${filter.status}`}
    ${filter.trustLevel === null ? db`` : db`and a.trust_level = ${filter.trustLevel}`}`;
  const counted = await db<{ n: string }[]>`select count(*)::text as n from agents a where ${where()}`;
  const rows = await db<AgentWithCounts[]>`
    select a.id, a.principal_id, a.program_id, a.name, a.did, a.did_method, a.status, a.trust_level,
      a.kya_score::text as kya_score, a.capabilities, a.metadata, a.created_at,
      s.total::text as total, s.declined::text as declined
    from agents a
    cross join lateral (
      select count(*) as total, count(*) filter (where decision = 'DECLINE') as declined
      from authorizations z where z.agent_id = a.id
    ) s
    where ${where()}
    order by a.created_at desc, a.id desc
    limit ${filter.limit} offset ${filter.offset}`;
  return { rows, total: Number(counted[0]?.n ?? 0) };
}
