// The idempotency sweep's /authorize rules against real PostgreSQL: answers past the retention
// and beyond the newest N of a Principal are dropped, ties at the cap's boundary by id, and a
// Principal is examined through its own index range only.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencySweep } from '../../src/storage/idempotency-sweep.js';
import { migrate } from '../../src/storage/migrate.js';

const BASE = process.env.TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432';
const NAME = `t_sweep_${randomBytes(5).toString('hex')}`;
let admin: postgres.Sql;
let sql: postgres.Sql;

beforeAll(async () => {
  admin = postgres(`${BASE}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${NAME}"`);
  sql = postgres(`${BASE}/${NAME}`, { max: 2, onnotice: () => {} });
  await migrate(sql as never, pino({ level: 'silent' }), 'test');
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists "${NAME}" with (force)`);
  await admin?.end({ timeout: 5 });
});

/** A keyed decision as the group commit records it: the audit row, its answer apart (0300). */
async function store(id: string, principalId: string, at: Date): Promise<void> {
  await sql`insert into authorizations (id, principal_id, agent_id, amount, currency, decision, reason_codes,
      gates_fired, processing_time_ms, created_at, idempotency_key)
    values (${id}, ${principalId}, 'agt_a', 1, 'USD', 'APPROVE', '{}', '{}', 1, ${at}, ${`k_${id}`})`;
  await sql`insert into authorization_responses (authorization_id, principal_id, created_at, response)
    values (${id}, ${principalId}, ${at}, ${JSON.stringify({ id })}::json)`;
}

/** A keyed decision as an instance of the release before 0300 recorded it: the answer on the row. */
async function storeOnRow(id: string, principalId: string, at: Date): Promise<void> {
  await sql`insert into authorizations (id, principal_id, agent_id, amount, currency, decision, reason_codes,
      gates_fired, processing_time_ms, response, created_at, idempotency_key)
    values (${id}, ${principalId}, 'agt_a', 1, 'USD', 'APPROVE', '{}', '{}', 1, ${sql.json({ id })}, ${at}, ${`k_${id}`})`;
}

async function stored(principalId: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select authorization_id as id from authorization_responses where principal_id = ${principalId}
    union all
    select id from authorizations where principal_id = ${principalId} and response is not null
    order by id`;
  return rows.map((r) => r.id);
}

function sweep(cap: number): IdempotencySweep {
  return new IdempotencySweep(
    { forEnv: () => sql as never, isOpen: (env) => env === 'live' },
    pino({ level: 'silent' }),
    { maxStoredPerOwner: cap, intervalMs: 3_600_000, retentionSeconds: 3_600 },
  );
}

describe('IdempotencySweep, POST /authorize answers', () => {
  it('drops answers past the retention and beyond the newest N per Principal, ties by id', async () => {
    const now = Date.now();
    // p1: an answer past the retention, then four at one instant (the cap's boundary falls
    // among them) and one newer.
    await store('a_old', 'prn_1', new Date(now - 2 * 3_600_000));
    for (const id of ['a_t1', 'a_t2', 'a_t3', 'a_t4']) await store(id, 'prn_1', new Date(now - 60_000));
    await store('a_new', 'prn_1', new Date(now - 1_000));
    // p2: under the cap, nothing to drop.
    await store('b_1', 'prn_2', new Date(now - 5_000));
    await store('b_2', 'prn_2', new Date(now - 4_000));
    const s = sweep(3);
    await s.run();
    await s.close();
    // The newest three of p1: a_new, then the newest ids of the instant.
    expect(await stored('prn_1')).toEqual(['a_new', 'a_t3', 'a_t4']);
    expect(await stored('prn_2')).toEqual(['b_1', 'b_2']);
    // The audit rows and their keys stay: a repeat of a dropped key is refused, not decided.
    const [count] = await sql<
      { n: number }[]
    >`select count(*)::int as n from authorizations where principal_id = 'prn_1'`;
    expect(count?.n).toBe(6);
  });

  it('caps a Principal whose answers came since the last sweep, on the next sweep', async () => {
    const now = Date.now();
    const s = sweep(2);
    await store('c_1', 'prn_3', new Date(now - 3_000));
    await s.run();
    expect(await stored('prn_3')).toEqual(['c_1']);
    await store('c_2', 'prn_3', new Date(now - 2_000));
    await store('c_3', 'prn_3', new Date(now - 1_000));
    await s.run();
    await s.close();
    expect(await stored('prn_3')).toEqual(['c_2', 'c_3']);
  });
  it('drops more answers than one statement touches, in several small statements, in one sweep', async () => {
    // 1,300 stored answers of one Principal against a cap of 100: the 1,200 beyond it take three
    // statements of 500 (small statements leave the group commits room between them).
    const now = Date.now();
    await sql`insert into authorizations (id, principal_id, agent_id, amount, currency, decision, reason_codes,
        gates_fired, processing_time_ms, created_at, idempotency_key)
      select 'd_' || lpad(i::text, 5, '0'), 'prn_4', 'agt_a', 1, 'USD', 'APPROVE', '{}', '{}', 1,
        ${new Date(now - 600_000)}::timestamptz + make_interval(secs => i / 10.0), 'k_d_' || i
      from generate_series(1, 1300) as i`;
    await sql`insert into authorization_responses (authorization_id, principal_id, created_at, response)
      select id, principal_id, created_at, json_build_object('id', id) from authorizations where principal_id = 'prn_4'`;
    const s = sweep(100);
    await s.run();
    await s.close();
    const kept = await stored('prn_4');
    expect(kept.length).toBe(100);
    expect(kept[0]).toBe('d_01201');
    expect(kept.at(-1)).toBe('d_01300');
  });

  it('drops an answer an earlier release kept on the audit row once past the retention, and keeps its key', async () => {
    const now = Date.now();
    await storeOnRow('e_old', 'prn_5', new Date(now - 2 * 3_600_000));
    await storeOnRow('e_new', 'prn_5', new Date(now - 1_000));
    const s = sweep(100);
    await s.run();
    await s.close();
    expect(await stored('prn_5')).toEqual(['e_new']);
    const keys = await sql<{ idempotency_key: string }[]>`
      select idempotency_key from authorizations where principal_id = 'prn_5' order by id`;
    expect(keys.map((k) => k.idempotency_key)).toEqual(['k_e_new', 'k_e_old']);
  });
});
