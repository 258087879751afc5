// Every route of the Principal-facing runtime plane except /authorize (src/runtime/authorize-routes.ts).
import type { Services } from '../app/services.js';
import type { RouteDef } from '../http/types.js';
import { agentsRoutes } from './agents-routes.js';
import { holdsRoutes } from './holds-routes.js';
import { mandatesRoutes } from './mandates-routes.js';
import { principalBudgetRoutes } from './principal-budget-routes.js';
import { principalTimezoneRoutes } from './principal-timezone-routes.js';
import { thresholdsRoutes } from './thresholds-routes.js';

export function runtimeRoutes(services: Services): RouteDef[] {
  return [
    ...agentsRoutes(services),
    ...mandatesRoutes(services),
    ...thresholdsRoutes(services),
    ...holdsRoutes(services),
    ...principalTimezoneRoutes(services),
    ...principalBudgetRoutes(services),
  ];
}
