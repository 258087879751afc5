// The database's own deadline for a group commit (migrations/0263_commit_guard.sql): the
// committer sends BEGIN, the batch and COMMIT in one round trip, and the batch's outbox row
// carries commit_by; a COMMIT that lands after it rolls back with SQLSTATE AS001, so a database
// that stalls after receiving a batch never records decisions already answered as declined
// (test/engine/database-down.test.ts shows it through the service).
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../fixtures/server.js';
import { onceMore } from '../fixtures/test-db.js';

let server: TestServer;
let sql: postgres.Sql;

beforeAll(async () => {
  server = await startTestServer();
  sql = postgres(server.dbUrls.live, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await server?.close();
});

async function batchesWithin(commitBy: Date | null, marker: string): Promise<unknown> {
  try {
    // Through onceMore: on embedded PGlite a statement interleaved with the service's own fails
    // (34000) and rolls the transaction back, and the whole transaction is sent again.
    await onceMore(() =>
      sql.begin(async (tx) => {
        // Marked published: the service's relay leaves these rows (not events) alone.
        await tx`insert into outbox_batches (events, event_count, commit_by, published_at)
          values (${JSON.stringify([[marker]])}, 1, ${commitBy}, now())`;
      }),
    );
    return null;
  } catch (err) {
    return err;
  }
}

async function stored(marker: string): Promise<number> {
  const [r] = await onceMore(
    () => sql<{ n: number }[]>`select count(*)::int as n from outbox_batches where events like ${`%${marker}%`}`,
  );
  return r?.n ?? -1;
}

describe('the commit guard', () => {
  it('rolls back a COMMIT after commit_by with AS001, and lets one before it or without it commit', async () => {
    const late = await batchesWithin(new Date(Date.now() - 1_000), 'guard-late');
    expect((late as { code?: string } | null)?.code).toBe('AS001');
    expect(await stored('guard-late')).toBe(0);

    expect(await batchesWithin(new Date(Date.now() + 60_000), 'guard-in-time')).toBeNull();
    expect(await stored('guard-in-time')).toBe(1);

    expect(await batchesWithin(null, 'guard-none')).toBeNull();
    expect(await stored('guard-none')).toBe(1);
  });

  it('checks at COMMIT, not at the insert: a transaction that stalls past commit_by rolls back', async () => {
    const err = await onceMore(() =>
      sql.begin(async (tx) => {
        await tx`insert into outbox_batches (events, event_count, commit_by, published_at)
          values (${JSON.stringify([['guard-stalled']])}, 1, ${new Date(Date.now() + 300)}, now())`;
        await tx`select pg_sleep(0.5)`;
      }),
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as { code?: string } | null)?.code).toBe('AS001');
    expect(await stored('guard-stalled')).toBe(0);
  });
});
