// The fencing of audit batches (migrations/0140_shard_leases.sql), on real PostgreSQL: a batch
// decided under an epoch that a newer claim has replaced is refused with P0F01 in its own
// transaction, and a claim waits for every batch still committing under the old epoch, so the
// new owner reads the old owner's last decisions when it builds state.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let sql: postgres.Sql;

beforeAll(async () => {
  server = await startTestServer();
  sql = postgres(server.dbUrls.live, { max: 4, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await server?.close();
});

/** Claims `shard` for `owner` (after expiring its lease) and returns the new epoch. */
async function claim(owner: string, shard: number): Promise<number> {
  await sql`update shard_leases set expires_at = '-infinity' where shard = ${shard}`;
  const [row] = await sql<{ epoch: string }[]>`select epoch from asas_claim_shards(${owner}, ${[shard]}::int[], 3000)`;
  return Number(row?.epoch);
}

describe('shard lease fencing', () => {
  it('refuses a batch under a replaced epoch with P0F01 and accepts the current one', async () => {
    const old = await claim('ins_a', 7);
    const current = await claim('ins_b', 7);
    expect(current).toBe(old + 1);
    await expect(
      sql.begin((tx) => tx`select asas_assert_fences(${[7]}::int[], ${[String(old)]}::bigint[])`),
    ).rejects.toMatchObject({ code: 'P0F01' });
    await sql.begin((tx) => tx`select asas_assert_fences(${[7]}::int[], ${[String(current)]}::bigint[])`);
  });

  it('refuses the whole batch when one of its shards was lost', async () => {
    const kept = await claim('ins_a', 11);
    const lost = await claim('ins_a', 12);
    await claim('ins_b', 12);
    await expect(
      sql.begin((tx) => tx`select asas_assert_fences(${[11, 12]}::int[], ${[String(kept), String(lost)]}::bigint[])`),
    ).rejects.toMatchObject({ code: 'P0F01' });
  });

  it('makes a claim wait for a batch still committing under the old epoch', async () => {
    const epoch = await claim('ins_a', 21);
    const order: string[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batch = sql.begin(async (tx) => {
      await tx`select asas_assert_fences(${[21]}::int[], ${[String(epoch)]}::bigint[])`;
      await held;
      order.push('batch committed');
    });
    await new Promise((r) => setTimeout(r, 100));
    await sql`update shard_leases set expires_at = '-infinity' where shard = 21`;
    const claimed = sql`select epoch from asas_claim_shards('ins_b', ${[21]}::int[], 3000)`.then((rows) => {
      order.push('claimed');
      return Number(rows[0]?.epoch);
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(order).toEqual([]);
    release();
    await batch;
    expect(await claimed).toBe(epoch + 1);
    expect(order).toEqual(['batch committed', 'claimed']);
  });
});
