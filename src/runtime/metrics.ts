// GET /api/v1/agents/:agent_id/metrics: decision counts from the authorizations audit log (and
// its rollup), fed to the pipeline's metricsFor (src/engine/pipeline/trust.ts) under the
// Principal's effective thresholds, so the promotion criteria shown are exactly the ones the
// engine promotes by.
import { decisionCounts } from '../engine/pipeline/rollup.js';
import { mergeThresholds } from '../engine/pipeline/thresholds.js';
import { type AgentMetrics, metricsFor } from '../engine/pipeline/trust.js';
import type { Sql } from '../storage/db.js';
import { loadOwnedAgent } from './agent-store.js';

export async function agentMetrics(db: Sql, principalId: string, agentId: string): Promise<AgentMetrics> {
  const agent = await loadOwnedAgent(db, principalId, agentId);
  // The rollup plus the rows since its upto, as the engine loads them (src/engine/pipeline/rollup.ts).
  const counts = await decisionCounts(db, agentId, Date.now());
  const [stored] = await db<{ overrides: Record<string, unknown> }[]>`
    select overrides from thresholds where principal_id = ${principalId}`;
  return metricsFor(
    agent.id,
    {
      trustLevel: agent.trust_level,
      approved: counts.approved,
      declined: counts.declined,
      stepUps: counts.stepUps,
      createdAtMs: agent.created_at.getTime(),
    },
    mergeThresholds(stored?.overrides ?? null),
    Date.now(),
  );
}
