// A Client's own request rate limits (migration 0260), set on the operator plane:
// GET and PUT /admin/v1/clients/{client_id}/rate-limits. The rows live in the live database; the
// instance that takes the PUT applies it at once, and every instance reads all rows again every
// CLIENT_LIMITS_POLL_MS, so an override holds cluster-wide within that time.
import type { Logger } from 'pino';
import type postgres from 'postgres';
import { recordSecurityEvent } from '../audit/security-log.js';
import { hasPrefix } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import type { ClientLimitOverride, RequestLimits } from '../http/rate-limit.js';
import { json, type RouteDef } from '../http/types.js';
import type { Databases, Sql } from '../storage/db.js';
import { PeriodicJob } from '../storage/periodic-job.js';
import { clientExists } from './provisioning.js';

/** How often each instance reads the overrides again (milliseconds). */
export const CLIENT_LIMITS_POLL_MS = 5_000;

const FIELDS = [
  'credential_requests_per_second',
  'credential_burst_requests',
  'client_requests_per_second',
  'client_burst_requests',
] as const;

type Field = (typeof FIELDS)[number];

interface Row {
  client_id: string;
  credential_requests_per_second: number | null;
  credential_burst_requests: number | null;
  client_requests_per_second: number | null;
  client_burst_requests: number | null;
  updated_at: Date;
}

/** The configured defaults, shown next to a Client's own values. */
export interface LimitDefaults {
  readonly credentialRequestsPerSecond: number;
  readonly credentialBurstRequests: number;
  readonly clientRequestsPerSecond: number;
  readonly clientBurstRequests: number;
}

function override(row: Row): ClientLimitOverride {
  return {
    credentialRequestsPerSecond: row.credential_requests_per_second,
    credentialBurstRequests: row.credential_burst_requests,
    clientRequestsPerSecond: row.client_requests_per_second,
    clientBurstRequests: row.client_burst_requests,
  };
}

function view(clientId: string, row: Row | undefined, d: LimitDefaults): Record<string, unknown> {
  const own = (f: Field) => row?.[f] ?? null;
  return {
    client_id: clientId,
    credential_requests_per_second: own('credential_requests_per_second'),
    credential_burst_requests: own('credential_burst_requests'),
    client_requests_per_second: own('client_requests_per_second'),
    client_burst_requests: own('client_burst_requests'),
    effective: {
      credential_requests_per_second: own('credential_requests_per_second') ?? d.credentialRequestsPerSecond,
      credential_burst_requests: own('credential_burst_requests') ?? d.credentialBurstRequests,
      client_requests_per_second: own('client_requests_per_second') ?? d.clientRequestsPerSecond,
      client_burst_requests: own('client_burst_requests') ?? d.clientBurstRequests,
    },
    updated_at: row?.updated_at.toISOString() ?? null,
  };
}

async function rowOf(
  // biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
  sql: Sql | postgres.TransactionSql<{}>,
  clientId: string,
): Promise<Row | undefined> {
  const [row] = await sql<Row[]>`select * from client_rate_limits where client_id = ${clientId}`;
  return row;
}

/**
 * Reads every Client's own limits into `limits` now and every CLIENT_LIMITS_POLL_MS; a Client
 * whose row lost every value (or is gone) gets the defaults again. A failed read keeps what it had.
 */
export function syncClientLimits(
  dbs: Databases,
  limits: RequestLimits,
  log: Logger,
): { ready: Promise<void>; stop(): Promise<void> } {
  let known = new Set<string>();
  const job = new PeriodicJob({
    intervalMs: CLIENT_LIMITS_POLL_MS,
    log,
    failed: 'client rate limits not read; keeping the last ones',
    round: async () => {
      const rows = await dbs.live<Row[]>`select * from client_rate_limits`;
      const seen = new Set<string>();
      for (const row of rows) {
        limits.setOverride(row.client_id, override(row));
        seen.add(row.client_id);
      }
      for (const id of known) if (!seen.has(id)) limits.setOverride(id, null);
      known = seen;
    },
  });
  job.start();
  return { ready: job.run(), stop: () => job.close() };
}

export function clientRateLimitRoutes(dbs: Databases, limits: RequestLimits, defaults: LimitDefaults): RouteDef[] {
  const knownClient = async (clientId: string) => {
    if (!hasPrefix(clientId, 'cli') || !(await clientExists(dbs.live, clientId)))
      throw new ApiError('client_not_found');
  };
  return [
    {
      method: 'GET',
      path: '/admin/v1/clients/:client_id/rate-limits',
      auth: 'admin',
      internal: true,
      summary: "A Client's own request rate limits, and the limits in effect for it",
      handler: async (ctx) => {
        const clientId = ctx.params.client_id as string;
        await knownClient(clientId);
        return json(200, view(clientId, await rowOf(dbs.live, clientId), defaults));
      },
    },
    {
      method: 'PUT',
      path: '/admin/v1/clients/:client_id/rate-limits',
      auth: 'admin',
      internal: true,
      body: 'AdminClientRateLimits',
      summary: "Set a Client's own request rate limits (null: the configured default again)",
      handler: async (ctx) => {
        const clientId = ctx.params.client_id as string;
        const body = ctx.body as Partial<Record<Field, number | null>>;
        await knownClient(clientId);
        const given = FIELDS.filter((f) => body[f] !== undefined);
        const row = await dbs.live.begin(async (tx) => {
          const before = await rowOf(tx, clientId);
          const next: Record<Field, number | null> = {
            credential_requests_per_second: before?.credential_requests_per_second ?? null,
            credential_burst_requests: before?.credential_burst_requests ?? null,
            client_requests_per_second: before?.client_requests_per_second ?? null,
            client_burst_requests: before?.client_burst_requests ?? null,
          };
          for (const f of given) next[f] = body[f] ?? null;
          const [saved] = await tx<Row[]>`
            insert into client_rate_limits (client_id, credential_requests_per_second, credential_burst_requests,
              client_requests_per_second, client_burst_requests, updated_at)
            values (${clientId}, ${next.credential_requests_per_second}, ${next.credential_burst_requests},
              ${next.client_requests_per_second}, ${next.client_burst_requests}, now())
            on conflict (client_id) do update set
              credential_requests_per_second = excluded.credential_requests_per_second,
              credential_burst_requests = excluded.credential_burst_requests,
              client_requests_per_second = excluded.client_requests_per_second,
              client_burst_requests = excluded.client_burst_requests,
              updated_at = now()
            returning *`;
          await recordSecurityEvent(tx, ctx, {
            action: 'client.rate_limits_updated',
            targetType: 'client',
            targetId: clientId,
            changes: Object.fromEntries(given.map((f) => [f, next[f]])),
          });
          return saved as Row;
        });
        limits.setOverride(clientId, override(row));
        return json(200, view(clientId, row, defaults));
      },
    },
  ];
}
