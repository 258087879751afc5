// migrations/0080_outbox_event_tuples.sql moves outbox batches written in the 0060 format (a
// json array of event objects) to the tuple text the relay now reads, keeping every event's
// fields and its envelope's exact text, so batches unpublished at the upgrade are relayed as
// they were written.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_BASE_URL } from '../fixtures/server.js';

const DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));
const name = `asas_mig_${randomBytes(4).toString('hex')}`;
let admin: postgres.Sql;
let sql: postgres.Sql;

beforeAll(async () => {
  admin = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  sql = postgres(`${PG_BASE_URL}/${name}`, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists "${name}" with (force)`);
  await admin?.end({ timeout: 5 });
});

const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort();

describe('migration 0080 (outbox event tuples)', () => {
  it('converts unpublished batches of the 0060 format without changing an event', async () => {
    for (const f of files.filter((x) => x < '0080')) await sql.unsafe(readFileSync(`${DIR}${f}`, 'utf8'));
    const payload = {
      event_type: 'gate.fired',
      event_id: 'evt_1',
      timestamp: '2026-11-21T00:00:00.000Z',
      data: { merchant: 'Café "Ünïcode" 😀 \\ tab\t', amount: '1.00', nested: { list: [1, 2.5, null] } },
    };
    const old = [
      {
        event_id: 'evt_1',
        event_type: 'gate.fired',
        client_id: 'cli_1',
        principal_id: 'prn_1',
        payload,
        authorization_id: 'auth_1',
      },
      {
        event_id: 'evt_2',
        event_type: 'authorization.decided',
        client_id: 'cli_1',
        principal_id: 'prn_1',
        payload: { ...payload, event_type: 'authorization.decided', event_id: 'evt_2' },
        authorization_id: null,
      },
    ];
    await sql`insert into outbox_batches (events, event_count) values (${sql.typed(JSON.stringify(old), 25)}::json, 2)`;
    const view = `select seq, position, event_id, event_type, client_id, principal_id, payload::text as payload,
      authorization_id, published_at from outbox_events order by seq, position`;
    const before = await sql.unsafe(view);

    for (const f of files.filter((x) => x >= '0080' && x < '0090'))
      await sql.unsafe(readFileSync(`${DIR}${f}`, 'utf8'));
    expect(await sql.unsafe(view)).toEqual(before);
    const [row] = await sql<{ events: string }[]>`select events from outbox_batches`;
    const tuples = JSON.parse(row?.events as string) as string[][];
    expect(tuples.map((t) => t.slice(0, 5))).toEqual([
      ['evt_1', 'gate.fired', 'cli_1', 'prn_1', 'auth_1'],
      ['evt_2', 'authorization.decided', 'cli_1', 'prn_1', null],
    ]);
    // The relay's body: the envelope's own JSON text, as the 0060 row held it.
    expect(JSON.parse(tuples[0]?.[5] as string)).toEqual(payload);
    expect(tuples[0]?.[5]).toBe(before[0]?.payload);
  });
});
