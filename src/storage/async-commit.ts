// Bookkeeping that may commit without waiting for its WAL to reach the disk
// (docs/engine-durability.md "What waits for the disk"). Every durable commit waits for an
// fsync of the WAL; on a disk that stalls an fsync (this VM's: up to 600 ms idle, 1 s under
// load), fewer of them per second means shorter queues behind each stall for the commits that
// must wait: the decisions' audit rows, events and answers. A statement that names this FROM
// item commits asynchronously (synchronous_commit off for its own transaction, read at its
// commit): visible to everyone at once, durable within PostgreSQL's WAL writer delay (200 ms by
// default), and lost only if PostgreSQL itself crashes in that time, never when this process
// dies. Only for writes whose loss a retry repairs: a relay's published mark (the batch is
// published again, and JetStream's duplicate window drops it), a webhook delivery's claim and
// success (delivered again: webhooks are at least once, deduplicated by event_id), an
// Idempotency-Key's claim (the work's own commit, which waits, flushes the WAL before it).
import type { PendingQuery, Row } from 'postgres';
import type { Sql } from './connect.js';

/** `(select set_config('synchronous_commit', 'off', true)) as async_commit`, for a FROM list. */
export function asyncCommit(sql: Sql): PendingQuery<Row[]> {
  return sql.unsafe(`(select set_config('synchronous_commit', 'off', true)) as async_commit`);
}
