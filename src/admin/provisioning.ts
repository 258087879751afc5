// Operator-plane writes. Clients and Programs exist in both databases with the same id (the
// sandbox mirrors the tenant structure of live); credentials live in their environment's.
// The embedded sandbox opens on its first use (src/storage/embedded.ts): while it is not open
// they are written to live only, and mirrorTenants copies them in as it opens.
import type postgres from 'postgres';
import { newId } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import type { Databases, Sql } from '../storage/db.js';
import type { ClientRow } from '../storage/rows/clients.js';
import type { ProgramRow } from '../storage/rows/programs.js';

export interface ClientJson {
  id: string;
  name: string;
  created_at: string;
}

export interface ProgramJson {
  id: string;
  client_id: string;
  name: string;
  created_at: string;
}

/**
 * Creates a Client in both databases. `record` writes the security record in the live
 * transaction, which commits only after the sandbox insert succeeded: the Client and its record
 * appear together or not at all.
 */
export async function createClient(
  dbs: Databases,
  name: string,
  // biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
  record: (tx: postgres.TransactionSql<{}>, client: ClientJson) => Promise<void>,
): Promise<ClientJson> {
  const client: ClientJson = { id: newId('cli'), name, created_at: new Date().toISOString() };
  let mirrored = false;
  try {
    await dbs.live.begin(async (tx) => {
      await tx`insert into clients (id, name, created_at) values (${client.id}, ${name}, ${client.created_at})`;
      await record(tx, client);
      // Decided while this transaction holds live: a sandbox that starts opening after this
      // reads the clients of live (mirrorTenants) only once this commits, and sees this one.
      if (!dbs.isOpen('sandbox')) return;
      await dbs.sandbox`insert into clients (id, name, created_at) values (${client.id}, ${name}, ${client.created_at})`;
      mirrored = true;
    });
  } catch (err) {
    // The live commit failed after the sandbox insert (or the sandbox insert failed): undo it.
    if (dbs.isOpen('sandbox')) await dbs.sandbox`delete from clients where id = ${client.id}`.catch(() => {});
    throw err;
  }
  // A sandbox opening right now may have read the clients of live before this commit.
  const opening = mirrored ? null : dbs.whenOpen('sandbox');
  if (opening !== null) {
    await opening;
    await dbs.sandbox`insert into clients (id, name, created_at) values (${client.id}, ${name}, ${client.created_at})
      on conflict (id) do nothing`;
  }
  return client;
}

/**
 * Copies the Clients and Programs of live missing from a sandbox database that opens after
 * the start (those created while it was not open). Runs before any other query reaches it.
 */
export async function mirrorTenants(live: Sql, sandbox: Sql): Promise<number> {
  const clients = await live<ClientRow[]>`
    select id, name, created_at from clients order by created_at, id`;
  const programs = await live<ProgramRow[]>`
    select id, client_id, name, created_at from programs order by created_at, id`;
  let copied = 0;
  for (const c of clients) {
    const r = await sandbox`insert into clients (id, name, created_at) values (${c.id}, ${c.name}, ${c.created_at})
      on conflict (id) do nothing`;
    copied += r.count;
  }
  for (const p of programs) {
    const r = await sandbox`insert into programs (id, client_id, name, created_at)
      values (${p.id}, ${p.client_id}, ${p.name}, ${p.created_at}) on conflict (id) do nothing`;
    copied += r.count;
  }
  return copied;
}

export async function createProgram(dbs: Databases, clientId: string, name: string): Promise<ProgramJson> {
  const inSandbox = async () => !dbs.isOpen('sandbox') || (await clientExists(dbs.sandbox, clientId));
  if (!(await clientExists(dbs.live, clientId)) || !(await inSandbox())) {
    throw new ApiError('client_not_found');
  }
  const id = newId('prg');
  const createdAt = new Date();
  await insertBoth(
    dbs,
    (sql) =>
      // A sandbox opening meanwhile may have copied it from live already (mirrorTenants).
      sql`insert into programs (id, client_id, name, created_at) values (${id}, ${clientId}, ${name}, ${createdAt})
        on conflict (id) do nothing`,
    (sql) => sql`delete from programs where id = ${id}`,
  );
  return { id, client_id: clientId, name, created_at: createdAt.toISOString() };
}

export async function clientExists(sql: Sql, clientId: string): Promise<boolean> {
  const rows = await sql`select 1 from clients where id = ${clientId}`;
  return rows.length > 0;
}

/**
 * Inserts into live, then sandbox; undoes the live insert when the sandbox one fails. A sandbox
 * neither open nor opening is left out: it reads the row from live as it opens (mirrorTenants).
 */
async function insertBoth(
  dbs: Databases,
  insert: (sql: Sql) => Promise<unknown>,
  undo: (sql: Sql) => Promise<unknown>,
): Promise<void> {
  await insert(dbs.live);
  const opening = dbs.whenOpen('sandbox');
  if (opening === null) return;
  try {
    await opening;
    await insert(dbs.sandbox);
  } catch (err) {
    await undo(dbs.live).catch(() => {});
    throw err;
  }
}
