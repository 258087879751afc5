// asyncCommit (src/storage/async-commit.ts) on real PostgreSQL: a statement that names it
// commits with synchronous_commit off, that statement only (the next one on the same connection
// is back to the server's setting), and its write is visible to another connection at once.
// That it skips the WAL flush is PostgreSQL's documented behaviour for the setting; what is
// ours to show is that the setting is the statement's own and does not leak to the
// connection's next statement (a decision's commit on a pooled connection must still wait).
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncCommit } from '../../src/storage/async-commit.js';
import { PG_BASE_URL } from '../fixtures/server.js';

const sql = postgres(`${PG_BASE_URL}/test`, { max: 1, onnotice: () => {} });
const other = postgres(`${PG_BASE_URL}/test`, { max: 1, onnotice: () => {} });
const table = `async_commit_${process.pid}`;

beforeAll(async () => {
  await sql.unsafe(`create table ${table} (id int, setting text)`);
});
afterAll(async () => {
  await sql.unsafe(`drop table if exists ${table}`);
  await sql.end();
  await other.end();
});

describe('asyncCommit', () => {
  it("turns synchronous_commit off for the statement's own transaction only", async () => {
    const [inside] = await sql<{ setting: string }[]>`
      insert into ${sql(table)} (id, setting)
      select 1, current_setting('synchronous_commit') from ${asyncCommit(sql)}
      returning setting`;
    expect(inside?.setting).toBe('off');
    const [after] = await sql<{ setting: string }[]>`select current_setting('synchronous_commit') as setting`;
    expect(after?.setting).toBe('on');
    // Committed and visible to another connection as soon as the statement returned.
    const seen = await other<{ id: number }[]>`select id from ${other(table)} where id = 1`;
    expect(seen).toHaveLength(1);
  });
});
