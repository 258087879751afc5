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

/**
 * A statement of a state load with its values written into its text, sent unnamed
 * (prepare: false). postgres.js describes a statement with parameters before its first use on
 * each connection (Parse and Describe, then Bind and Execute once the types are back: one more
 * round trip, and no other query pipelined behind it meanwhile), so on a connection that has not
 * run a load yet, a load of one round trip took two or three; a statement without parameters goes
 * out whole (Parse, Describe, Bind, Execute) and costs one round trip on any connection. Not
 * prepared: its text differs per agent, and would pile up in every connection's cache.
 */
export function unprepared<T>(sql: Sql, text: string): Promise<T[]> {
  return sql.unsafe(text, [], { prepare: false }) as unknown as Promise<T[]>;
}

/** Characters of the values a load writes into its statements: no quote, no backslash. */
const PLAIN = /^[A-Za-z0-9_.:+-]*$/;

/**
 * A value as an SQL literal for unprepared(): our own ids (newId: a prefix and base-62), times
 * (ISO 8601 UTC) and integers. Anything else is refused with an error (the load fails, and the
 * request gets the safe decision), never quoted into the text.
 */
export function literal(v: string | Date | number): string {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new Error(`not an integer literal: ${v}`);
    return String(v);
  }
  const s = v instanceof Date ? v.toISOString() : v;
  if (!PLAIN.test(s)) throw new Error(`not a plain literal: ${JSON.stringify(s)}`);
  return `'${s}'`;
}
