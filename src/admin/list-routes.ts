// Read side of the operator plane: the Clients (cursor-paged, newest first) and the credentials
// of a Client or a Principal. A credential is answered as CONTRACT.md's credential object: never
// its raw key, never its hash.
import { type CredentialRow, credentialJson } from '../auth/credentials.js';
import type { Environment } from '../domain/environment.js';
import { hasPrefix } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import { json, type RouteDef } from '../http/types.js';
import type { Databases, Sql } from '../storage/db.js';
import type { ClientRow } from '../storage/rows/clients.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const ENVIRONMENTS: readonly Environment[] = ['live', 'sandbox'];

function environments(q: Readonly<Record<string, string>>): readonly Environment[] {
  return q.environment === undefined ? ENVIRONMENTS : [q.environment as Environment];
}

async function credentialsOf(
  dbs: Databases,
  envs: readonly Environment[],
  where: (sql: Sql) => Promise<CredentialRow[]>,
): Promise<ReturnType<typeof credentialJson>[]> {
  const out: ReturnType<typeof credentialJson>[] = [];
  // The embedded sandbox never created yet holds no credentials.
  for (const env of envs) {
    if (!dbs.exists(env)) continue;
    for (const row of await where(dbs.forEnv(env))) out.push(credentialJson(row));
  }
  return out;
}

const COLUMNS =
  'id, client_id, principal_id, environment, scopes, ip_allowlist, expires_at, status, revoked_at, created_at, previous_key_expires_at';

export function adminListRoutes(dbs: Databases): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/admin/v1/clients',
      auth: 'admin',
      internal: true,
      query: 'AdminClientListQuery',
      summary: 'The Clients, newest first, cursor-paged',
      handler: async (ctx) => {
        const limit = ctx.query.limit === undefined ? DEFAULT_LIMIT : Math.min(Number(ctx.query.limit), MAX_LIMIT);
        const after = ctx.query.cursor === undefined ? null : decodeCursor(ctx.query.cursor, 'cli_');
        // Clients exist in both databases with the same id; live is the record.
        const sql = dbs.live;
        const rows = await sql<(Pick<ClientRow, 'id' | 'name'> & { ts: string })[]>`
          select id, name, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ts
          from clients
          ${after === null ? sql`` : sql`where (created_at, id) < (${after.ts}::timestamptz, ${after.id})`}
          order by created_at desc, id desc
          limit ${limit + 1}`;
        const page = rows.length > limit ? rows.slice(0, limit) : rows;
        const last = page[page.length - 1];
        return json(200, {
          items: page.map((r) => ({ id: r.id, name: r.name, created_at: new Date(r.ts).toISOString() })),
          next_cursor: rows.length > limit && last !== undefined ? encodeCursor(last.ts, last.id) : null,
        });
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/clients/:client_id/credentials',
      auth: 'admin',
      internal: true,
      query: 'AdminCredentialListQuery',
      summary: "A Client's own credentials (not its Principals'), in both environments unless one is named",
      handler: async (ctx) => {
        const clientId = ctx.params.client_id as string;
        if (!hasPrefix(clientId, 'cli')) throw new ApiError('client_not_found');
        const found = await dbs.live<Pick<ClientRow, 'id'>[]>`select id from clients where id = ${clientId}`;
        if (found.length === 0) throw new ApiError('client_not_found');
        const items = await credentialsOf(
          dbs,
          environments(ctx.query),
          (sql) => sql<CredentialRow[]>`
            select ${sql.unsafe(COLUMNS)} from credentials
            where client_id = ${clientId} and principal_id is null order by created_at, id`,
        );
        return json(200, { items });
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/principals/:principal_id/credentials',
      auth: 'admin',
      internal: true,
      query: 'AdminCredentialListQuery',
      summary: "A Principal's credentials, in both environments unless one is named",
      handler: async (ctx) => {
        const principalId = ctx.params.principal_id as string;
        if (!hasPrefix(principalId, 'prn')) throw new ApiError('principal_not_found');
        let exists = false;
        for (const env of ENVIRONMENTS) {
          if (!dbs.exists(env)) continue;
          const sql = dbs.forEnv(env);
          if ((await sql`select 1 from principals where id = ${principalId}`).length > 0) exists = true;
        }
        if (!exists) throw new ApiError('principal_not_found');
        const items = await credentialsOf(
          dbs,
          environments(ctx.query),
          (sql) => sql<CredentialRow[]>`
            select ${sql.unsafe(COLUMNS)} from credentials
            where principal_id = ${principalId} order by created_at, id`,
        );
        return json(200, { items });
      },
    },
  ];
}
