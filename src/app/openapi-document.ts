// The OpenAPI document without a running service, for `npm run lint:openapi`
// (scripts/openapi-dump.mjs): the route table of src/app/route-table.ts built from the
// configuration and stand-ins for the parts that only handlers use (the databases, the engine,
// the event bus...). A stand-in answers any property with another stand-in and throws when
// called or read as a value, so a factory that used one while building the table would fail
// here, naming it, instead of writing a document unlike the one the service serves.
import type { Config } from '../config/config.js';
import { buildOpenApi } from './openapi.js';
import { type RouteParts, serviceRoutes } from './route-table.js';

export function openApiDocument(config: Config): Record<string, unknown> {
  const services = new Proxy({ config } as Record<string | symbol, unknown>, {
    get: (target, key) => (key in target ? target[key] : standIn(`services.${String(key)}`)),
  });
  const parts = {
    services,
    readiness: [],
    allRoutes: () => [],
    rateLimiter: standIn('rateLimiter'),
    fairShare: null,
    secrets: standIn('secrets'),
  } as unknown as RouteParts;
  return buildOpenApi(serviceRoutes(parts));
}

function standIn(name: string): unknown {
  const fail = (): never => {
    throw new Error(`${name} was used while building the route table for the OpenAPI document`);
  };
  return new Proxy(fail, {
    get: (_target, key) => (key === 'then' ? undefined : standIn(`${name}.${String(key)}`)),
    apply: fail,
    construct: fail,
  });
}
