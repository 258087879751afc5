// Every route of the Principal-facing runtime plane except /authorize (src/runtime/authorize-routes.ts).
import type { Services } from '../app/services.js';
import type { RouteDef } from '../http/types.js';
import { agentKeysRoutes } from './agent-keys-routes.js';
import { agentsRoutes } from './agents-routes.js';
import { ap2Routes } from './ap2-routes.js';
import { backtestRoutes } from './backtest-routes.js';
import { holdsRoutes } from './holds-routes.js';
import { mandateLifecycleRoutes } from './mandate-lifecycle-routes.js';
import { mandatesRoutes } from './mandates-routes.js';
import { principalBudgetRoutes } from './principal-budget-routes.js';
import { principalTimezoneRoutes } from './principal-timezone-routes.js';
import { shadowRoutes } from './shadow-routes.js';
import { stepUpsRoutes } from './step-ups-routes.js';
import { thresholdsRoutes } from './thresholds-routes.js';

export function runtimeRoutes(services: Services): RouteDef[] {
  return [
    ...agentsRoutes(services),
    ...agentKeysRoutes(services),
    ...mandatesRoutes(services),
    ...mandateLifecycleRoutes(services),
    ...thresholdsRoutes(services),
    ...backtestRoutes(services.ranges),
    ...shadowRoutes(services),
    ...holdsRoutes(services),
    ...principalTimezoneRoutes(services),
    ...stepUpsRoutes(services),
    ...principalBudgetRoutes(services),
    ...ap2Routes(services),
  ];
}
