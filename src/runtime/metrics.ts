// GET /api/v1/agents/:agent_id/metrics: decision counts from the authorizations audit log (and
// its rollup), fed to the pipeline's metricsFor (src/engine/pipeline/trust.ts) under the
// Principal's effective thresholds, so the promotion criteria shown are exactly the ones the
// engine promotes by.
import { mergeThresholds } from '../engine/pipeline/thresholds.js';
import { type AgentMetrics, metricsFor } from '../engine/pipeline/trust.js';
import type { Sql } from '../storage/db.js';
import { loadOwnedAgent } from './agent-store.js';

interface Counts {
  approved: string;
  declined: string;
  step_ups: string;
}

export async function agentMetrics(db: Sql, principalId: string, agentId: string): Promise<AgentMetrics> {
  const agent = await loadOwnedAgent(db, principalId, agentId);
  // The agent's audit rollup (src/engine/pipeline/rollup.ts) plus the rows since its upto: the
  // same counts the engine loads, at a cost that does not grow with the agent's age.
  const [counts] = await db<Counts[]>`
    select (coalesce(r.approved, 0) + count(a.id) filter (where a.decision = 'APPROVE'))::text as approved,
      (coalesce(r.declined, 0) + count(a.id) filter (where a.decision = 'DECLINE'))::text as declined,
      (coalesce(r.step_ups, 0) + count(a.id) filter (where a.decision = 'STEP_UP'))::text as step_ups
    from (select 1) as one
      left join agent_audit_rollups r on r.agent_id = ${agentId}
      left join authorizations a on a.agent_id = ${agentId} and a.created_at >= coalesce(r.upto, '-infinity')
    group by r.approved, r.declined, r.step_ups`;
  const [stored] = await db<{ overrides: Record<string, unknown> }[]>`
    select overrides from thresholds where principal_id = ${principalId}`;
  return metricsFor(
    agent.id,
    {
      trustLevel: agent.trust_level,
      approved: Number(counts?.approved ?? 0),
      declined: Number(counts?.declined ?? 0),
      stepUps: Number(counts?.step_ups ?? 0),
      createdAtMs: agent.created_at.getTime(),
    },
    mergeThresholds(stored?.overrides ?? null),
    Date.now(),
  );
}
