// The configuration the bench measures by default: production's, PostgreSQL and NATS
// JetStream. DATABASE_URL and NATS_URL name them; when unset, a PostgreSQL and a NATS server
// listening on this machine's default ports (127.0.0.1:5432, 127.0.0.1:4222) are used; when
// none answers (or --embedded asks), the service runs on embedded PGlite with the in-process
// bus, and the bench says so.
import { connect as tcp } from 'node:net';
import { userInfo } from 'node:os';
import postgres from 'postgres';
import { socketTarget } from '../../src/storage/db.js';

export const LOCAL_POSTGRES_PORT = 5432;
export const LOCAL_NATS_PORT = 4222;

export interface BenchConfiguration {
  /** Base PostgreSQL URL (the bench creates fresh databases on that server), or null: embedded. */
  readonly databaseUrl: string | null;
  readonly natsUrl: string | null;
  /** How each was chosen, for the plan line and the result record. */
  readonly source: { readonly database: string; readonly nats: string };
}

async function answersSql(url: string): Promise<boolean> {
  const t = socketTarget(url);
  const sql = postgres(t.url, { ...t.options, max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcp({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

export async function benchConfiguration(
  env: NodeJS.ProcessEnv,
  o: { readonly embedded: boolean },
): Promise<BenchConfiguration> {
  if (o.embedded) {
    return {
      databaseUrl: null,
      natsUrl: null,
      source: { database: 'embedded PGlite (--embedded)', nats: 'in-process bus (--embedded)' },
    };
  }
  let databaseUrl: string | null = env.DATABASE_URL ?? null;
  let database = 'DATABASE_URL';
  if (databaseUrl === null) {
    const local = `postgres://${encodeURIComponent(userInfo().username)}@127.0.0.1:${LOCAL_POSTGRES_PORT}/postgres`;
    if (await answersSql(local)) {
      databaseUrl = local;
      database = `local PostgreSQL at 127.0.0.1:${LOCAL_POSTGRES_PORT} (DATABASE_URL unset)`;
    } else
      database = `embedded PGlite: DATABASE_URL unset and no PostgreSQL answers at 127.0.0.1:${LOCAL_POSTGRES_PORT}`;
  }
  let natsUrl: string | null = env.NATS_URL ?? null;
  let nats = 'NATS_URL';
  if (natsUrl === null) {
    if (await listening(LOCAL_NATS_PORT)) {
      natsUrl = `nats://127.0.0.1:${LOCAL_NATS_PORT}`;
      nats = `local NATS at 127.0.0.1:${LOCAL_NATS_PORT} (NATS_URL unset)`;
    } else nats = `in-process bus: NATS_URL unset and nothing listens at 127.0.0.1:${LOCAL_NATS_PORT}`;
  }
  return { databaseUrl, natsUrl, source: { database, nats } };
}
