// Every route of the service, built from the parts the composition root started: one list for
// the HTTP edge (src/app/app.ts) and for the OpenAPI document written without a running service
// (src/app/openapi-document.ts). A factory closes over its parts and uses them when a request
// comes, so building the table touches none of them but the configuration.
import { clientRateLimitRoutes } from '../admin/client-rate-limits.js';
import { adminRoutes } from '../admin/routes.js';
import { authRoutes } from '../auth/routes.js';
import type { TenantShares } from '../http/fair-share.js';
import type { RequestLimits } from '../http/rate-limit.js';
import type { RouteDef } from '../http/types.js';
import { metricsRoutes } from '../observability/metrics-routes.js';
import { onboardingRoutes } from '../onboarding/routes.js';
import { receiptKeyRoutes } from '../receipts/routes.js';
import { authorizeRoutes } from '../runtime/authorize-routes.js';
import { confirmationChannelRoutes } from '../runtime/confirmation-channel-routes.js';
import { runtimeRoutes } from '../runtime/routes.js';
import { stepUpPageRoutes } from '../runtime/step-up-page.js';
import type { SecretBox } from '../secrets/box.js';
import { webhookRoutes } from '../webhooks/routes.js';
import { docsRoutes } from './docs-routes.js';
import type { Services } from './services.js';
import { type ReadinessCheck, systemRoutes } from './system-routes.js';

export interface RouteParts {
  readonly services: Services;
  readonly readiness: readonly ReadinessCheck[];
  /** Every route the router holds, for the OpenAPI document that GET /api/v1/openapi.json serves. */
  readonly allRoutes: () => RouteDef[];
  readonly rateLimiter: RequestLimits;
  /** Fair share of the decisions in flight (FAIR_SHARE_IN_FLIGHT); null: none. */
  readonly fairShare: TenantShares | null;
  readonly secrets: SecretBox;
}

export function serviceRoutes(parts: RouteParts): RouteDef[] {
  const { services, rateLimiter, fairShare, secrets } = parts;
  const { config, dbs, auth, metrics, events, engine, log } = services;
  return [
    ...systemRoutes(services, parts.readiness, parts.allRoutes),
    ...docsRoutes(),
    ...metricsRoutes(metrics),
    ...authRoutes(auth, config.oauthTokenTtlSeconds),
    ...adminRoutes(config, dbs, auth),
    ...clientRateLimitRoutes(dbs, rateLimiter, {
      credentialRequestsPerSecond: config.rateLimitRequestsPerSecond,
      credentialBurstRequests: config.rateLimitBurstRequests,
      clientRequestsPerSecond: config.rateLimitClientRequestsPerSecond,
      clientBurstRequests: config.rateLimitClientBurstRequests,
    }),
    ...receiptKeyRoutes(dbs, auth),
    ...authorizeRoutes({
      engine,
      dbs,
      log,
      onDecision: (decision, gates, seconds) => metrics.decision(decision, gates, seconds),
      onDryRun: (disclosure) => metrics.dryRuns.labels(disclosure).inc(),
      fairShare,
      onFairShareRefused: (level) => metrics.fairShareRefused.labels(level).inc(),
    }),
    ...runtimeRoutes(services),
    ...confirmationChannelRoutes(services, secrets),
    ...stepUpPageRoutes(services),
    ...onboardingRoutes(engine),
    ...webhookRoutes(config, events, secrets),
  ];
}
