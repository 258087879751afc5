// Every answered decision is durable with its events: its audit row and its outbox rows
// (authorization.decided with the SPEC.md Authorization entry, plus the decision's own events)
// were written by the same transaction, and no row exists for a decision never answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZATION_ENTRY_FIELDS } from '../fixtures/authorize-fields.js';
import {
  authorize,
  authorizeBody,
  type EngineFixture,
  query,
  relaxRateGates,
  setup,
} from '../fixtures/engine-setup.js';
import { startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
const fixtures: EngineFixture[] = [];

const ENTRY_FIELDS = [...AUTHORIZATION_ENTRY_FIELDS].sort();

beforeAll(async () => {
  server = await startTestServer();
  for (let i = 0; i < 3; i++) {
    const f = await setup(server, {
      limits: { max_amount_per_transaction: '50.00', max_daily_amount: '400.00', currency: 'USD' },
    });
    await relaxRateGates(server, f.apiKey);
    // One decision first, as live traffic would have: the burst below is about batching commits.
    expect((await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '1.00' }))).body.decision).toBe(
      'APPROVE',
    );
    fixtures.push(f);
  }
});
afterAll(async () => {
  await server?.close();
});

describe('durable audit', () => {
  it('commits each answered decision with its outbox rows in one transaction', async () => {
    // A burst across three agents (one shard batch may hold several): approvals and declines.
    const sends = [];
    for (let i = 0; i < 60; i++) {
      const f = fixtures[i % 3] as EngineFixture;
      const amount = i % 10 === 9 ? '75.00' : '5.00';
      sends.push(authorize(server, f.apiKey, authorizeBody(f.agentId, { amount })));
    }
    const answers = await Promise.all(sends);
    const ids = answers.map((r) => {
      expect(r.status).toBe(200);
      expect(r.body.reason_codes).not.toContain('system_unavailable');
      return r.body.authorization_id as string;
    });
    expect(new Set(ids).size).toBe(60);
    expect(answers.filter((r) => r.body.decision === 'DECLINE').length).toBe(6);

    const audit = await query(
      server,
      'live',
      (sql) =>
        sql<{ id: string; decision: string; tx: string }[]>`
        select id, decision, recorded_at::text as tx from authorizations where id in ${sql(ids)}`,
    );
    expect(audit).toHaveLength(60);
    const byId = new Map(audit.map((a) => [a.id, a]));
    for (const r of answers) expect(byId.get(r.body.authorization_id as string)?.decision).toBe(r.body.decision);

    const events = await query(
      server,
      'live',
      (sql) =>
        sql<{ event_type: string; auth: string; tx: string; payload: Record<string, unknown> }[]>`
        select event_type, coalesce(payload->'data'->>'authorization_id', payload->'data'->>'id') as auth,
          created_at::text as tx, payload
        from outbox_events where coalesce(payload->'data'->>'authorization_id', payload->'data'->>'id') in ${sql(ids)}`,
    );
    for (const r of answers) {
      const id = r.body.authorization_id as string;
      const own = events.filter((e) => e.auth === id);
      const decided = own.filter((e) => e.event_type === 'authorization.decided');
      expect(decided, id).toHaveLength(1);
      const payload = decided[0]?.payload as { event_type: string; event_id: string; data: Record<string, unknown> };
      expect(payload.event_type).toBe('authorization.decided');
      expect(payload.event_id).toMatch(/^evt_/);
      expect(Object.keys(payload.data).sort()).toEqual(ENTRY_FIELDS);
      expect(payload.data).toMatchObject({ id, decision: r.body.decision, amount: r.body.amount, currency: 'USD' });
      // now() of the writing transaction, equal for the audit row and its outbox rows: one commit.
      for (const e of own) expect(e.tx, `${e.event_type} of ${id}`).toBe(byId.get(id)?.tx);
      if (r.body.decision === 'DECLINE') {
        expect(own.map((e) => e.event_type)).toContain('authorization.decline');
      }
    }
  });

  it('keeps the audit log and the running totals in step (exact daily total)', async () => {
    const f = fixtures[0] as EngineFixture;
    const [sum] = await query(
      server,
      'live',
      (sql) =>
        sql<{ total: string }[]>`
        select coalesce(sum(amount), 0)::text as total from authorizations
        where agent_id = ${f.agentId} and decision = 'APPROVE'`,
    );
    const res = await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '0.10' }));
    expect(res.body.decision).toBe('APPROVE');
    expect(res.body.daily_amount_used).toBe(Number(sum?.total) + 0.1);
  });
});
