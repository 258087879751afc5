// DATABASE_URL in libpq's Unix-socket form reaches the local PostgreSQL over its socket, for
// both databases (live and the derived sandbox) and for the shard workers' own pools.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionClient } from '../fixtures/provision.js';
import { PG_BASE_URL, request, startTestServer, type TestServer } from '../fixtures/server.js';

const SOCKET_DIR = process.env.TEST_PG_SOCKET_DIR ?? '/var/run/postgresql';
const name = `sock_${randomBytes(5).toString('hex')}`;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: `postgres://root@localhost/${name}?host=${SOCKET_DIR}` });
});
afterAll(async () => {
  await server?.close();
  const sql = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  for (const n of [name, `${name}_sandbox`]) await sql.unsafe(`drop database if exists "${n}" with (force)`);
  await sql.end({ timeout: 5 });
});

describe('DATABASE_URL with ?host=<socket dir>', () => {
  it('serves over the Unix socket: ready, and writes land in the named databases', async () => {
    expect((await request(server, 'GET', '/ready')).status).toBe(200);
    const client = await provisionClient(server);
    const sql = postgres(`${PG_BASE_URL}/${name}_sandbox`, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ id: string }[]>`select id from clients where id = ${client.clientId}`;
      expect(rows).toHaveLength(1);
      const via = await sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity where datname = ${name} and client_addr is null`;
      expect(via[0]?.n).toBeGreaterThan(0);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});
