// Forward-only SQL migrations from migrations/*.sql, applied in file-name order at start under
// an advisory lock so several instances starting together apply each file exactly once.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Sql } from './connect.js';
import { MIGRATIONS_DIR } from './paths.js';

const LOCK_KEY = 727_274_001;

export async function migrate(sql: Sql, log: Logger, label: string): Promise<void> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY})`;
    await tx`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    const applied = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name));
    for (const file of files) {
      if (applied.has(file)) continue;
      await tx.unsafe(readFileSync(join(MIGRATIONS_DIR, file), 'utf8')).simple();
      await tx`insert into schema_migrations (name) values (${file})`;
      log.info({ database: label, migration: file }, 'applied migration');
    }
  });
}
