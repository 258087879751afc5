// Drill: the in-doubt window of the group commit, made on purpose. A private PostgreSQL behind a
// latency proxy (test/fixtures/latency-proxy.ts); the service as its own process with the default
// answer deadline (1 s). With the way to the database and back at 0, the committer learns a short
// return; then each way is made 700 ms long: a batch's COMMIT reaches PostgreSQL 700 ms after it
// was sent, before its commit_by (the deadline less that short return), and commits, but its
// answer comes back 1.4 s after the request, after the edge answered the safe DECLINE. The
// decisions are then in the audit log as APPROVE while the agent was told system_unavailable.
// Required (docs/engine-durability.md "Voids"): once the database answers in time again, each
// such decision is voided: a row in authorization_voids, its hold VOIDED (GET /authorize/log
// shows it), a budget credit of kind void, an authorization.voided event in the outbox; and the
// mandate's daily window no longer counts it (a purchase that only fits without it is approved).
// A keyed request's decision is not voided: its retry with the same key gets it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBody, authorizeSetup } from '../fixtures/authorize-setup.js';
import { sleep } from '../fixtures/drills/instances.js';
import { OwnPostgres } from '../fixtures/drills/own-postgres.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';
import { addAgentWithMandate } from '../fixtures/engine-setup.js';
import { type LatencyProxy, startLatencyProxy } from '../fixtures/latency-proxy.js';
import { request } from '../fixtures/server.js';

let pg: OwnPostgres;
let proxy: LatencyProxy;
let service: ServiceProcess;
let key = '';
let agentId = '';

function authorize(amount: string, over: Record<string, unknown> = {}) {
  return request(service, 'POST', '/api/v1/authorize', {
    apiKey: key,
    body: authorizeBody(agentId, amount, over),
  });
}

beforeAll(async () => {
  pg = await OwnPostgres.create();
  proxy = await startLatencyProxy({ host: '127.0.0.1', port: pg.port }, 0);
  service = await startServiceProcess({
    DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/asas`,
    WORKERS: '1',
  });
  const p = await authorizeSetup(service);
  key = p.principalKey;
  agentId = await addAgentWithMandate(service, key, 'in-doubt', { perTransaction: '100.00', daily: '150.00' });
}, 120_000);

afterAll(async () => {
  await service?.cleanup();
  await proxy?.close();
  await pg?.destroy();
}, 60_000);

describe('drill: a decision recorded after its answer was the safe DECLINE', () => {
  it('is voided once the database answers again: status VOIDED, amount and count back, an event', async () => {
    // The actor warm and the committer's return short: a few approvals with no delay.
    for (let i = 0; i < 3; i++) expect((await authorize('1.00')).body.decision).toBe('APPROVE');

    // The window depends on the batch's statement needing one round trip: postgres.js describes a
    // statement the first time it is used on a connection (one round trip more, which brings the
    // COMMIT past its commit_by: refused, nothing recorded, nothing to void), and a batch with a
    // keyed decision has a statement of its own. So the window is tried a few times, each time
    // with every in-flight exchange settled before the next, until a decision is recorded.
    let recorded: { id: string; amount: string }[] = [];
    let keyed = '';
    for (let attempt = 1; attempt <= 4 && recorded.length === 0; attempt++) {
      keyed = `in-doubt-keyed-${attempt}`;
      proxy.setDelay(700);
      const [automatic, held, keyedAnswer] = await Promise.all([
        authorize('60.00'),
        authorize('40.00', { capture_method: 'manual' }),
        authorize('5.00', { idempotency_key: keyed }),
      ]);
      for (const r of [automatic, held, keyedAnswer]) {
        expect(r.status, r.text).toBe(200);
        expect(r.body.decision).toBe('DECLINE');
        expect(r.body.reason_codes).toEqual(['system_unavailable']);
      }
      proxy.setDelay(0);
      // Whatever is still on its way arrives (and commits, or is refused) before the look.
      await sleep(1500);
      recorded = await pg.query(
        (sql) => sql<{ id: string; amount: string }[]>`
          select id, amount::text as amount from authorizations
          where agent_id = ${agentId} and idempotency_key is null and amount in (60, 40) order by amount`,
      );
      console.log(
        `[in-doubt] attempt ${attempt}: recorded after the safe DECLINE: ${recorded.map((r) => r.amount).join(', ') || 'none'}`,
      );
    }
    // Recorded as APPROVE (the in-doubt window), then voided, every one of them.
    expect(recorded.length, 'no decision recorded after its safe DECLINE: the window was not made').toBeGreaterThan(0);
    let voided: { authorization_id: string; decision: string; amount: string; status: string | null }[] = [];
    for (let i = 0; i < 100 && voided.length < recorded.length; i++) {
      await sleep(200);
      voided = await pg.query(
        (sql) => sql`
          select v.authorization_id, v.decision, a.amount::text as amount, h.status
          from authorization_voids v join authorizations a on a.id = v.authorization_id
            left join holds h on h.authorization_id = v.authorization_id
          where v.agent_id = ${agentId} order by a.amount`,
      );
    }
    expect(voided.map((v) => [v.authorization_id, v.decision, Number(v.amount), v.status])).toEqual(
      recorded.map((r) => [r.id, 'APPROVE', Number(r.amount), 'VOIDED']),
    );
    const ids = voided.map((v) => v.authorization_id);
    const credits = await pg.query(
      (sql) =>
        sql`select kind, amount::text as amount, count_back from budget_credits where authorization_id in ${sql(ids)} order by amount`,
    );
    expect(credits.map((c) => [c.kind, Number(c.amount), c.count_back])).toEqual(
      recorded.map((r) => ['void', Number(r.amount), 1]),
    );
    const events = await pg.query(
      (sql) => sql<{ events: string }[]>`select events from outbox_batches where events like '%authorization.voided%'`,
    );
    const voidedEvents = events.flatMap((b) =>
      (JSON.parse(b.events) as string[][])
        .map((t) => JSON.parse(t[5] as string) as { event_type: string; data: Record<string, unknown> })
        .filter((e) => e.event_type === 'authorization.voided'),
    );
    expect(voidedEvents.map((e) => [e.data.authorization_id, e.data.status, e.data.reason]).sort()).toEqual(
      ids.map((id) => [id, 'VOIDED', 'answered_safe_decline']).sort(),
    );
    for (const id of ids) {
      const log = await request(service, 'GET', `/api/v1/authorize/log/${id}`, { apiKey: key });
      expect(log.status, log.text).toBe(200);
      expect(log.body.decision).toBe('APPROVE');
      expect(log.body.status).toBe('VOIDED');
    }

    // A keyed request is not voided: its retry with the same key gets the decision recorded.
    const retried = await authorize('5.00', { idempotency_key: keyed });
    expect(retried.body.decision, JSON.stringify(retried.body)).toBe('APPROVE');
    const [keyedRow] = await pg.query(
      (sql) => sql`select a.id, v.authorization_id as voided from authorizations a
        left join authorization_voids v on v.authorization_id = a.id where a.idempotency_key = ${keyed}`,
    );
    expect(keyedRow?.id).toBe(retried.body.authorization_id);
    expect(keyedRow?.voided).toBeNull();

    // The daily window holds the 3.00 approved before and the keyed 5.00 approvals recorded (the
    // last attempt's retry, and any recorded in an earlier attempt), not the 100.00 voided or
    // never recorded: 100.00 more fits the 150.00 cap (with them counted, it would not).
    const [keyedCount] = await pg.query(
      (sql) => sql<{ n: number }[]>`
        select count(*)::int as n from authorizations where agent_id = ${agentId} and idempotency_key like 'in-doubt-keyed-%'`,
    );
    const after = await authorize('100.00');
    expect(after.body.decision, JSON.stringify(after.body)).toBe('APPROVE');
    expect(after.body.daily_amount_used).toBe(103 + 5 * (keyedCount?.n ?? 0));
  }, 120_000);
});
