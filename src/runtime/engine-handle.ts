// The decision engine as the runtime plane sees it: after a change to an agent, its mandates
// or its Principal's thresholds commits, the owning actor must reload before its next decision.
import type { Services } from '../app/services.js';
import type { Environment } from '../auth/types.js';
import type { DecisionEngine } from '../engine/contract.js';

type Invalidation = Pick<DecisionEngine, 'invalidateAgent' | 'invalidatePrincipal'>;

/** Tells the owning actor to reload the agent (status, mandates). */
export async function invalidateAgent(services: Services, env: Environment, agentId: string): Promise<void> {
  const engine = engineOf(services);
  if (engine !== null) await engine.invalidateAgent(env, agentId);
}

/** Tells every actor of the Principal to reload its thresholds. */
export async function invalidatePrincipal(services: Services, env: Environment, principalId: string): Promise<void> {
  const engine = engineOf(services);
  if (engine !== null) await engine.invalidatePrincipal(env, principalId);
}

function engineOf(services: Services): Invalidation | null {
  return (services as Services & { engine?: Invalidation }).engine ?? null;
}
