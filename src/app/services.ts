// What every area's routes get from the composition root (src/app/app.ts).

import type { Logger } from 'pino';
import type { AuthService } from '../auth/service.js';
import type { Config } from '../config/config.js';
import type { DecisionEngine } from '../decision/model/contract.js';
import type { EventsService } from '../events/service.js';
import type { Authenticator } from '../http/types.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { RangeRunner } from '../runtime/range-runner.js';
import type { Databases } from '../storage/db.js';

export interface Services {
  readonly config: Config;
  readonly log: Logger;
  readonly dbs: Databases;
  readonly authenticator: Authenticator;
  /** Credential store (cached lookups, rotate, revoke), token signing, operator key. */
  readonly auth: AuthService;
  /** Prometheus metrics (src/observability/metrics.ts): record with its helpers, or add collectors. */
  readonly metrics: ServiceMetrics;
  /** Event bus, outbox relays and webhook dispatcher; nudge(env) after committing outbox rows. */
  readonly events: EventsService;
  /** The decision engine (shard workers); invalidateAgent/invalidatePrincipal after API changes. */
  readonly engine: DecisionEngine;
  /** Backtests and shadow reports, off the thread that answers /authorize (src/runtime/range-runner.ts). */
  readonly ranges: RangeRunner;
}
