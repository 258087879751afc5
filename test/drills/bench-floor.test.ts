// The bench's durable floor (bench/servers/floor-server.ts, `npm run bench -- --floor`): every
// answer it gives is a row committed before the answer, whatever the batch it rode in, and a
// body it cannot parse is refused with no row. PostgreSQL only (it is the floor of a service on
// PostgreSQL).
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerDatabase, type PeerDatabase } from '../../dist/bench/peer/database.js';
import { type Started, startFloor } from '../../dist/bench/servers/processes.js';
import { PG_BASE_URL } from '../fixtures/server.js';

let db: PeerDatabase;
let floor: Started;

beforeAll(async () => {
  db = await createPeerDatabase(PG_BASE_URL, { principals: [] });
  floor = await startFloor(db.url);
}, 60_000);

afterAll(async () => {
  await floor?.stop();
  await db?.drop();
});

async function post(body: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${floor.url}/api/v1/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, json: await res.json() };
}

describe('bench durable floor', () => {
  it('answers each request only once its row is committed, in batches under concurrency', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post(JSON.stringify({ agent_id: `agent-${i}`, amount: '1.00' }))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(200));
    expect(answers.every((a) => (a.json as { decision?: string }).decision === 'APPROVE')).toBe(true);
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ agent_id: string }[]>`select body->>'agent_id' as agent_id from floor_audit`;
      expect(rows.map((r) => r.agent_id).sort()).toEqual(Array.from({ length: 200 }, (_, i) => `agent-${i}`).sort());
      // Group commit: fewer transactions than requests (rows of one batch share their xmin).
      const [{ n } = { n: '0' }] = await sql<
        { n: string }[]
      >`select count(distinct xmin::text)::text as n from floor_audit`;
      expect(Number(n)).toBeLessThan(200);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }, 60_000);

  it('refuses a body it cannot parse and commits nothing for it', async () => {
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const [{ n: before } = { n: '0' }] = await sql<{ n: string }[]>`select count(*)::text as n from floor_audit`;
      const r = await post('{"agent_id": ');
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: 'invalid_json' });
      const [{ n: after } = { n: '0' }] = await sql<{ n: string }[]>`select count(*)::text as n from floor_audit`;
      expect(after).toBe(before);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }, 60_000);
});
