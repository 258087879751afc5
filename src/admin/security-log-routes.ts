// GET /admin/v1/security-log: the operator pages through the append-only security log
// (src/audit/security-log.ts), newest first, across both databases or one, with filters.
import type { Environment } from '../domain/environment.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { json, type RouteDef } from '../http/types.js';
import type { Databases, Sql } from '../storage/db.js';

const DEFAULT_LIMIT = 50;

interface SecurityLogRow {
  id: string;
  ts: string;
  actor_kind: string;
  actor_credential_id: string | null;
  actor_client_id: string | null;
  actor_principal_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  changes: Record<string, unknown>;
  ip: string | null;
  request_id: string | null;
}

interface Filters {
  after: { ts: string; id: string } | null;
  action: string | null;
  actor: string | null;
  since: string | null;
  until: string | null;
}

function actorFilter(sql: Sql, actor: string) {
  if (actor.startsWith('acr_')) return sql`and actor_credential_id = ${actor}`;
  if (actor.startsWith('cli_')) return sql`and actor_client_id = ${actor}`;
  if (actor.startsWith('prn_')) return sql`and actor_principal_id = ${actor}`;
  return sql`and actor_kind = ${actor}`;
}

function page(sql: Sql, f: Filters, limit: number) {
  return sql<SecurityLogRow[]>`
    select id, to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ts,
      actor_kind, actor_credential_id, actor_client_id, actor_principal_id,
      action, target_type, target_id, changes, ip, request_id
    from security_log
    where true
      ${f.after === null ? sql`` : sql`and (occurred_at, id) < (${f.after.ts}::timestamptz, ${f.after.id})`}
      ${f.action === null ? sql`` : sql`and action = ${f.action}`}
      ${f.actor === null ? sql`` : actorFilter(sql, f.actor)}
      ${f.since === null ? sql`` : sql`and occurred_at >= ${f.since}::timestamptz`}
      ${f.until === null ? sql`` : sql`and occurred_at < ${f.until}::timestamptz`}
    order by occurred_at desc, id desc
    limit ${limit}`;
}

export function securityLogRoutes(dbs: Databases): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/admin/v1/security-log',
      auth: 'admin',
      internal: true,
      query: 'SecurityLogQuery',
      response: 'SecurityLogPage',
      summary: 'The security log, newest first, cursor-paged',
      handler: async (ctx) => {
        const q = ctx.query;
        const limit = q.limit === undefined ? DEFAULT_LIMIT : Number(q.limit);
        const filters: Filters = {
          after: q.cursor === undefined ? null : decodeCursor(q.cursor, 'sec_'),
          action: q.action ?? null,
          actor: q.actor ?? null,
          since: q.since ?? null,
          until: q.until ?? null,
        };
        // The embedded sandbox never created yet has no records.
        const envs: Environment[] = (
          q.environment === undefined ? (['live', 'sandbox'] as Environment[]) : [q.environment as Environment]
        ).filter((env) => dbs.exists(env));
        // Each database answers its newest limit + 1 after the cursor; merged by the same order,
        // the first `limit` of them are the page, and one more tells whether another page exists.
        const found = await Promise.all(envs.map((env) => page(dbs.forEnv(env), filters, limit + 1)));
        const rows = found
          .flatMap((list, i) => list.map((r) => ({ env: envs[i] as Environment, r })))
          .sort((a, b) => (a.r.ts === b.r.ts ? cmp(b.r.id, a.r.id) : cmp(b.r.ts, a.r.ts)));
        const items = rows.slice(0, limit);
        const last = items[items.length - 1];
        return json(200, {
          items: items.map(({ env, r }) => ({
            id: r.id,
            // Millisecond ISO form like every other timestamp; the cursor keeps microseconds.
            occurred_at: new Date(r.ts).toISOString(),
            environment: env,
            actor: {
              kind: r.actor_kind,
              credential_id: r.actor_credential_id,
              client_id: r.actor_client_id,
              principal_id: r.actor_principal_id,
            },
            action: r.action,
            target: { type: r.target_type, id: r.target_id },
            changes: r.changes,
            ip: r.ip,
            request_id: r.request_id,
          })),
          next_cursor: rows.length > limit && last !== undefined ? encodeCursor(last.r.ts, last.r.id) : null,
        });
      },
    },
  ];
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
