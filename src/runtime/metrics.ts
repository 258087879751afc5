// GET /api/v1/agents/:agent_id/metrics: decision counts from the authorizations audit log, fed
// to the pipeline's metricsFor (src/engine/pipeline/trust.ts) under the Principal's effective
// thresholds, so the promotion criteria shown are exactly the ones the engine promotes by.
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
  const [counts] = await db<Counts[]>`
    select count(*) filter (where decision = 'APPROVE')::text as approved,
      count(*) filter (where decision = 'DECLINE')::text as declined,
      count(*) filter (where decision = 'STEP_UP')::text as step_ups
    from authorizations where agent_id = ${agentId}`;
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
