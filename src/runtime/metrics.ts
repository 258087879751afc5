// GET /api/v1/agents/:agent_id/metrics: decision counts from the authorizations audit log (and
// its rollup), fed to the pipeline's metricsFor (src/decision/trust.ts) under the
// Principal's effective thresholds, so the promotion criteria shown are exactly the ones the
// engine promotes by.

import { type AgentMetrics, metricsFor } from '../decision/model/promotion.js';
import { decisionCounts } from '../decision/model/rollup.js';
import { mergeThresholds } from '../decision/model/thresholds.js';
import type { Sql } from '../storage/db.js';
import type { ThresholdsRow } from '../storage/rows/thresholds.js';
import { loadOwnedAgent } from './agent-store.js';

export async function agentMetrics(db: Sql, principalId: string, agentId: string): Promise<AgentMetrics> {
  const agent = await loadOwnedAgent(db, principalId, agentId);
  // The rollup plus the rows since its upto, as the engine loads them (src/decision/model/rollup.ts).
  const counts = await decisionCounts(db, agentId, Date.now());
  const [stored] = await db<Pick<ThresholdsRow, 'overrides'>[]>`
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
