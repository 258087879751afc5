// GET and PUT /api/v1/principals/:principal_id/timezone: the Principal's IANA time zone, in which
// the calendar windows of its mandates' caps run (docs/holds.md "Windows"; default UTC). A change
// reaches every agent of the Principal before its next decision (invalidatePrincipal): the
// running totals are rebuilt for the windows of the new zone.
import type { Services } from '../app/services.js';
import { isTimeZone } from '../decision/model/calendar.js';
import { ApiError } from '../errors/registry.js';
import { json, type RouteDef } from '../http/types.js';
import type { PrincipalRow } from '../storage/rows/principals.js';
import { bodyOf, ownPrincipal } from './context.js';
import { invalidatePrincipal } from './engine-handle.js';

export function principalTimezoneRoutes(services: Services): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/principals/:principal_id/timezone',
      auth: 'principal',
      response: 'PrincipalTimezone',
      operationId: 'getPrincipalTimezone',
      summary: "The Principal's time zone (calendar windows of the mandate caps)",
      handler: async (ctx) => {
        const auth = ownPrincipal(ctx);
        const { db } = ctx;
        const [row] = await db<Pick<PrincipalRow, 'timezone'>[]>`
          select timezone from principals where id = ${auth.principalId}`;
        if (row === undefined) throw new ApiError('principal_not_found');
        return json(200, { principal_id: auth.principalId, timezone: row.timezone });
      },
    },
    {
      method: 'PUT',
      path: '/api/v1/principals/:principal_id/timezone',
      auth: 'principal',
      body: 'PrincipalTimezone',
      response: 'PrincipalTimezone',
      errors: ['invalid_timezone'],
      operationId: 'setPrincipalTimezone',
      summary: "Set the Principal's IANA time zone (default UTC)",
      handler: async (ctx) => {
        const auth = ownPrincipal(ctx);
        const { db } = ctx;
        const { timezone } = bodyOf<{ timezone: string }>(ctx);
        if (!isTimeZone(timezone)) throw new ApiError('invalid_timezone');
        const rows = await db`
          update principals set timezone = ${timezone} where id = ${auth.principalId} returning id`;
        if (rows.length === 0) throw new ApiError('principal_not_found');
        await invalidatePrincipal(services, auth.environment, auth.principalId);
        return json(200, { principal_id: auth.principalId, timezone });
      },
    },
  ];
}
