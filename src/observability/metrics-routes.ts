// GET /metrics: the Prometheus text exposition of src/observability/metrics.ts, for the
// operator (X-Admin-Key), never in the public OpenAPI document.
import type { RouteDef } from '../http/types.js';
import { PROMETHEUS_CONTENT_TYPE, type ServiceMetrics } from './metrics.js';

export function metricsRoutes(metrics: ServiceMetrics): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/metrics',
      auth: 'admin',
      internal: true,
      summary: 'Prometheus metrics (operator key)',
      handler: async () => ({
        status: 200,
        rawJson: await metrics.collect(),
        headers: { 'content-type': PROMETHEUS_CONTENT_TYPE },
      }),
    },
  ];
}
