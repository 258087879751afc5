// The decision engine as the runtime plane sees it: after a change to an agent, its mandates
// or its Principal's thresholds commits, the owning actor must reload before its next decision.
// The HTTP answer waits for the engine to acknowledge, so "200" means "in force".
import type { Services } from '../app/services.js';
import type { Environment } from '../domain/environment.js';

/** Tells the owning actor to reload the agent (status, mandates). */
export function invalidateAgent(services: Services, env: Environment, agentId: string): Promise<void> {
  return services.engine.invalidateAgent(env, agentId);
}

/** Tells every actor of the Principal to reload its thresholds. */
export function invalidatePrincipal(services: Services, env: Environment, principalId: string): Promise<void> {
  return services.engine.invalidatePrincipal(env, principalId);
}
