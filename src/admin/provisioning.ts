// Operator-plane writes. Clients and Programs exist in both databases with the same id (the
// sandbox mirrors the tenant structure of live); credentials live in their environment's.
import type postgres from 'postgres';
import { newId } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import type { Databases, Sql } from '../storage/db.js';

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
  try {
    await dbs.live.begin(async (tx) => {
      await tx`insert into clients (id, name, created_at) values (${client.id}, ${name}, ${client.created_at})`;
      await record(tx, client);
      await dbs.sandbox`insert into clients (id, name, created_at) values (${client.id}, ${name}, ${client.created_at})`;
    });
  } catch (err) {
    // The live commit failed after the sandbox insert (or the sandbox insert failed): undo it.
    await dbs.sandbox`delete from clients where id = ${client.id}`.catch(() => {});
    throw err;
  }
  return client;
}

export async function createProgram(dbs: Databases, clientId: string, name: string): Promise<ProgramJson> {
  if (!(await clientExists(dbs.live, clientId)) || !(await clientExists(dbs.sandbox, clientId))) {
    throw new ApiError('client_not_found');
  }
  const id = newId('prg');
  const createdAt = new Date();
  await insertBoth(
    dbs,
    (sql) =>
      sql`insert into programs (id, client_id, name, created_at) values (${id}, ${clientId}, ${name}, ${createdAt})`,
    (sql) => sql`delete from programs where id = ${id}`,
  );
  return { id, client_id: clientId, name, created_at: createdAt.toISOString() };
}

export async function clientExists(sql: Sql, clientId: string): Promise<boolean> {
  const rows = await sql`select 1 from clients where id = ${clientId}`;
  return rows.length > 0;
}

/** Inserts into live, then sandbox; undoes the live insert when the sandbox one fails. */
async function insertBoth(
  dbs: Databases,
  insert: (sql: Sql) => Promise<unknown>,
  undo: (sql: Sql) => Promise<unknown>,
): Promise<void> {
  await insert(dbs.live);
  try {
    await insert(dbs.sandbox);
  } catch (err) {
    await undo(dbs.live).catch(() => {});
    throw err;
  }
}
