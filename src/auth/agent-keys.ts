// Agent keys (docs/auth.md "Agent keys"): a Principal credential bound to one of the
// Principal's agents. It carries the scope `agent`, which opens no path prefix, so the usual
// scope check refuses it everywhere; what it reaches instead is the routes that declare
// `agentKey` (RouteDef), and on those only its own agent: the path's :agent_id (`path`), or what
// the handler finds it acts on (`handler`, through assertOwnAgent). Everything else is 403
// forbidden, as for any credential outside its scopes.
import { ApiError } from '../errors/registry.js';
import type { RequestContext, RouteDef } from '../http/types.js';
import type { AuthContext } from './types.js';

/** The stored scope of every agent key; not a scope anyone may name at issue (normaliseScopes). */
export const AGENT_SCOPE = 'agent';

const NOT_THIS_ROUTE = 'An agent key may not call this endpoint.';
const NOT_ITS_AGENT = 'An agent key acts only for its own agent.';

/** The agent a credential is bound to, or null for every other caller. */
export function boundAgent(auth: AuthContext | null): string | null {
  return auth !== null && auth.kind === 'principal' && auth.agentId !== undefined ? auth.agentId : null;
}

/** For an agent key: the route must admit agent keys, and a path's :agent_id must be its agent. */
export function assertAgentRoute(agentId: string, route: RouteDef, ctx: RequestContext): void {
  if (route.agentKey === undefined) throw new ApiError('forbidden', NOT_THIS_ROUTE);
  if (route.agentKey === 'path' && ctx.params.agent_id !== agentId) throw new ApiError('forbidden', NOT_ITS_AGENT);
}

/**
 * Refuses an agent key acting on another agent's request or resource (403 forbidden); any other
 * caller passes. `agentId` undefined: the resource was not found, which the handler answers.
 */
export function assertOwnAgent(auth: AuthContext | null, agentId: string | undefined): void {
  const bound = boundAgent(auth);
  if (bound !== null && agentId !== undefined && agentId !== bound) throw new ApiError('forbidden', NOT_ITS_AGENT);
}
