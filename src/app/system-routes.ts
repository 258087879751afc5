// Public operational endpoints of CONTRACT.md: /health, /ready, /api/v1/openapi.json.
import { ApiError } from '../errors/registry.js';
import { json, type RouteDef } from '../http/types.js';
import { buildOpenApi } from './openapi.js';
import type { Services } from './services.js';

export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<boolean>;
}

export function systemRoutes(
  services: Services,
  readiness: readonly ReadinessCheck[],
  allRoutes: () => RouteDef[],
): RouteDef[] {
  let openapi: string | null = null;
  return [
    {
      method: 'GET',
      path: '/health',
      auth: 'none',
      operationId: 'getHealth',
      summary: 'Process liveness',
      handler: () => json(200, { status: 'ok' }),
    },
    {
      method: 'GET',
      path: '/ready',
      auth: 'none',
      operationId: 'getReadiness',
      summary: 'Readiness: databases and event bus reachable',
      handler: async () => {
        const checks: Record<string, boolean> = { databases: await services.dbs.ping() };
        for (const r of readiness) checks[r.name] = await r.check().catch(() => false);
        const ok = Object.values(checks).every(Boolean);
        if (!ok) {
          throw new ApiError(
            'service_unavailable',
            `Not ready: ${Object.keys(checks)
              .filter((k) => !checks[k])
              .join(', ')}`,
          );
        }
        return json(200, { status: 'ready', checks });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/openapi.json',
      auth: 'none',
      operationId: 'getOpenApiDocument',
      summary: 'The public API as an OpenAPI 3.1 document',
      handler: () => {
        openapi ??= JSON.stringify(buildOpenApi(allRoutes()));
        return { status: 200, rawJson: openapi };
      },
    },
  ];
}
