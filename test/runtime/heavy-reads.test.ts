// Backtests and shadow reports are bounded (docs/security.md "One tenant cannot harm another"):
// one scan in flight per Principal and two per instance for live Principals (one for sandbox
// ones), 429 rate_limited with Retry-After past either, and a turn of the event loop between
// chunks, in the range worker: a thread of their own, off the one that answers /authorize (on
// embedded PGlite, whose database runs on the main thread anyway, there). Principal A seeds 20,000 audit rows and asks for three backtests at once: one runs,
// the others are refused at once; Principal B's backtest meanwhile runs; a third Principal's
// /authorize is answered meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeavyReads } from '../../dist/src/runtime/audit-range.js';
import { authorizeBody, query } from '../fixtures/engine-setup.js';
import { agentWith } from '../fixtures/holds.js';
import { createAgent, newPrincipal, type TestPrincipal } from '../fixtures/runtime-principal.js';
import {
  EMBEDDED,
  expectEnvelope,
  type HttpResult,
  request,
  startTestServer,
  type TestServer,
} from '../fixtures/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_REQUESTS_PER_SECOND: '0', RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '0' });
});
afterAll(async () => {
  await server?.close();
});

const FROM = '2026-01-01T00:00:00Z';
const TO = '2026-01-02T00:00:00Z';

/** 20,000 recorded decisions of `p` in [FROM, TO), with the stored replay scores of a real one. */
async function seed(p: TestPrincipal): Promise<void> {
  const agent = (await createAgent(server, p)).id as string;
  await query(
    server,
    'live',
    (sql) => sql`
      insert into authorizations (id, principal_id, agent_id, amount, currency, decision, reason_codes, gates_fired,
        processing_time_ms, created_at, explanation)
      select 'auth_seed' || ${p.principalId} || g, ${p.principalId}, ${agent}, 10, 'USD', 'APPROVE', '{}', '{}', 1,
        ${FROM}::timestamptz + make_interval(secs => g * 4),
        '{"replay": {"outlier": false, "velocity": false, "confirmed": false, "risk_score": 0.1, "trust_score": 0.9,
          "country_jump": false, "intent_anomaly_score": 0, "per_transaction_limit": "100.00"}}'::jsonb
      from generate_series(1, 20000) as g`,
  );
}

const backtest = (p: TestPrincipal): Promise<HttpResult> =>
  request(server, 'POST', '/api/v1/thresholds/backtest', {
    apiKey: p.apiKey,
    body: { overrides: { authorize_step_up_threshold: 0.05 }, from: FROM, to: TO, limit: 20000 },
  });

/**
 * A scan that ran: its row limit (20,000) read, or, on a machine too slow to read them within
 * the call's 2-s time budget (embedded PGlite under CI's load read 15,500), stopped there with a
 * cursor to go on.
 */
function expectScanned(r: HttpResult): void {
  if (r.body.stopped === 'time_budget') {
    expect(r.body.rows_read).toBeGreaterThan(0);
    expect(r.body.rows_read).toBeLessThan(20000);
    expect(typeof r.body.next_cursor).toBe('string');
  } else {
    expect(['row_limit', 'complete']).toContain(r.body.stopped);
    expect(r.body.rows_read).toBe(20000);
  }
}

describe('backtests and shadow reports are bounded', () => {
  it('one scan per Principal at a time: the others are refused at once, another Principal and /authorize go on', async () => {
    const a = await newPrincipal(server);
    const b = await newPrincipal(server);
    const c = await newPrincipal(server);
    await seed(a);
    await seed(b);
    const buyer = (await agentWith(server, c, {})).agentId;

    const started = Date.now();
    const [a1, a2, a3, b1, decided] = await Promise.all([
      backtest(a),
      backtest(a),
      backtest(a),
      // B's starts once A's are in: its own bound is separate from A's.
      new Promise<HttpResult>((r) => setTimeout(() => r(backtest(b)), 20)),
      new Promise<HttpResult>((r) =>
        setTimeout(
          () =>
            r(
              request(server, 'POST', '/api/v1/authorize', {
                apiKey: c.apiKey,
                body: authorizeBody(buyer, { amount: '5.00' }),
              }),
            ),
          20,
        ),
      ),
    ]);
    const aStatuses = [a1, a2, a3].map((r) => r.status).sort();
    expect(aStatuses, [a1, a2, a3].map((r) => r.text).join('\n')).toEqual([200, 429, 429]);
    for (const r of [a1, a2, a3].filter((x) => x.status === 429)) {
      expectEnvelope(r, 429, 'rate_limited');
      expect(r.headers.get('retry-after')).toBe('1');
    }
    const ran = [a1, a2, a3].find((r) => r.status === 200) as HttpResult;
    expectScanned(ran);
    expect(b1.status, b1.text).toBe(200);
    expectScanned(b1);
    expect(decided.status, decided.text).toBe(200);
    expect(decided.body.decision).toBe('APPROVE');
    // Once A's scan ended, A may scan again.
    expect((await backtest(a)).status).toBe(200);
    // Every scan ran in the range worker (on embedded PGlite: on the main thread, with the database).
    const metrics = (await request(server, 'GET', '/metrics', { adminKey: server.adminKey })).text;
    const thread = EMBEDDED ? 'main' : 'worker';
    const ran3 = new RegExp(`^asas_range_reports_total\\{thread="${thread}"\\} (\\d+)$`, 'm').exec(metrics);
    expect(Number(ran3?.[1])).toBe(3);
    expect(metrics).not.toMatch(new RegExp(`asas_range_reports_total\\{thread="${EMBEDDED ? 'worker' : 'main'}"\\}`));
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('counts live and sandbox scans apart: sandbox work cannot take the live slots', async () => {
    const gate = new HeavyReads({ live: 2, sandbox: 1 });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const running = [
      gate.run('sandbox', 'p1', () => held),
      gate.run('live', 'p2', () => held),
      gate.run('live', 'p3', () => held),
    ];
    await expect(gate.run('sandbox', 'p4', async () => 1)).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(gate.run('live', 'p5', async () => 1)).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(gate.run('live', 'p2', async () => 1)).rejects.toMatchObject({ code: 'rate_limited' });
    release();
    await Promise.all(running);
    expect(await gate.run('live', 'p2', async () => 7)).toBe(7);
    expect(await gate.run('sandbox', 'p4', async () => 8)).toBe(8);
  });
});
