// Independent reads of a state load, at once where the pool can take them: on PostgreSQL they
// go out together (on several connections, or pipelined on one), so a load costs two round
// trips to the database instead of one per read (docs/engine-durability.md "Slow PostgreSQL").
// A pool of one connection (embedded PGlite, which serves one statement at a time and must not
// see pipelined queries) gets them one after another, in the order given.
import type { Sql } from '../storage/db.js';

type Reads<T extends readonly unknown[]> = { readonly [K in keyof T]: () => Promise<T[K]> };

/** True when `sql` may run several statements at once (a pool of more than one connection). */
export function concurrent(sql: Sql): boolean {
  const max = (sql as { options?: { max?: unknown } }).options?.max;
  return typeof max === 'number' && max > 1;
}

/** Runs `fns` together when the pool allows it, else one after another; their results in order. */
export async function reads<T extends readonly unknown[]>(sql: Sql, ...fns: Reads<T>): Promise<T> {
  if (concurrent(sql)) return (await Promise.all(fns.map((f) => f()))) as unknown as T;
  const out: unknown[] = [];
  for (const f of fns) out.push(await f());
  return out as unknown as T;
}
