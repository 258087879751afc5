// A budget credit (a hold released or partly captured, a refund) is counted by the agent's warm
// actor in memory, exactly as a reload would read it (src/decision/windows.ts applyCredit), so
// settling a hold costs no reload: the dry run's caps before and after a forced reload agree,
// a credit told twice counts once, and a credit the state cannot apply in memory (a count that
// recurrence terms keep) makes the actor reload instead. The asas_budget_credits_total figures
// (the shard stats behind them) tell which way each credit went.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBody, query } from '../fixtures/engine-setup.js';
import { agentWith, approve, decide, op, principal } from '../fixtures/holds.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let p: TestPrincipal;

beforeAll(async () => {
  server = await startTestServer({ HOLD_EXPIRY_SWEEP_MS: '3600000' });
  p = await principal(server);
});
afterAll(async () => {
  await server?.close();
});

/** asas_budget_credits_total of each outcome, summed over the shards (GET /metrics). */
async function creditCounts(): Promise<{ counted: number; reloaded: number }> {
  const res = await request(server, 'GET', '/metrics', { adminKey: server.adminKey });
  expect(res.status).toBe(200);
  const sum = (outcome: string): number => {
    let n = 0;
    for (const line of res.text.split('\n')) {
      if (line.startsWith('asas_budget_credits_total{') && line.includes(`outcome="${outcome}"`)) {
        n += Number(line.slice(line.lastIndexOf(' ') + 1));
      }
    }
    return n;
  };
  return { counted: sum('counted'), reloaded: sum('reload') };
}

/** The caps of the agent's mandate as its actor holds them (the dry run, full credential). */
async function caps(agentId: string, amount = '1.00'): Promise<Record<string, unknown>> {
  const res = await request(server, 'POST', '/api/v1/authorize/explain', {
    apiKey: p.apiKey,
    body: authorizeBody(agentId, { amount }),
  });
  expect(res.status, res.text).toBe(200);
  return res.body.caps as Record<string, unknown>;
}

async function reload(agentId: string): Promise<void> {
  await server.app.services.engine.invalidateAgent('live', agentId);
}

describe('budget credits in a warm actor', () => {
  it('a release, a partial capture and a refund count at once in every window, as a reload reads them', async () => {
    // Week, year-less whole-life and count caps: the log path of the window sums (windows.ts).
    const { agentId } = await agentWith(server, p, {
      max_daily_amount: '40.00',
      max_weekly_amount: '45.00',
      max_total_amount: '50.00',
      max_daily_count: 3,
    });
    const before = await creditCounts();
    const held = await approve(server, p, agentId, '20.00', true);
    const partly = await approve(server, p, agentId, '15.00', true);
    const auto = await approve(server, p, agentId, '5.00');
    // 40 of 40 today and 3 of 3 approvals: the next one is refused.
    expect((await decide(server, p, agentId, '1.00')).decision).toBe('DECLINE');

    expect((await op(server, p, held, 'release')).status).toBe(200);
    expect((await op(server, p, partly, 'capture', { amount: '10.00' })).status).toBe(200);
    expect((await op(server, p, auto, 'refund', { amount: '2.00' })).status).toBe(200);
    const after = await creditCounts();
    expect(after.counted - before.counted).toBe(3);
    expect(after.reloaded - before.reloaded).toBe(0);

    // 40 - 20 - 5 - 2 = 13 used today, 2 approvals left of 3: the warm actor knows it.
    const warm = await caps(agentId);
    expect(warm).toMatchObject({
      max_daily_amount: { used: 13, remaining: 27 },
      max_weekly_amount: { used: 13, remaining: 32 },
      max_total_amount: { used: 13, remaining: 37 },
      max_daily_count: { used: 2, remaining: 1 },
    });
    await reload(agentId);
    expect(await caps(agentId)).toEqual(warm);
    expect((await creditCounts()).reloaded - before.reloaded).toBe(0);
  });

  it('a credit told twice (a forwarded message repeated) counts once; one the state was loaded with counts not at all', async () => {
    const { agentId, mandateId } = await agentWith(server, p, { max_daily_amount: '30.00' });
    const held = await approve(server, p, agentId, '20.00', true);
    expect((await op(server, p, held, 'release')).status).toBe(200);
    const once = await caps(agentId);
    expect(once).toMatchObject({ max_daily_amount: { used: 0, remaining: 30 } });

    const [row] = await query(
      server,
      'live',
      (sql) =>
        sql<{ seq: string; amount_units: string; authorized_at: Date }[]>`
        select a.credit_seq::text as seq, (c.amount * 100000000)::bigint::text as amount_units, c.authorized_at
        from budget_credits c join agents a on a.id = c.agent_id where c.authorization_id = ${held}`,
    );
    if (row === undefined) throw new Error('no budget credit recorded');
    const credit = {
      seq: Number(row.seq),
      mandateId,
      authorizedAtMs: row.authorized_at.getTime(),
      amount: row.amount_units,
      countBack: 1,
    };
    expect(credit.amount).toBe('2000000000');
    const before = await creditCounts();
    await server.app.services.engine.creditAgent('live', agentId, credit);
    expect(await caps(agentId)).toEqual(once);
    // After a reload the credit is in the sums the state was built from: at or below its sequence.
    await reload(agentId);
    expect(await caps(agentId)).toEqual(once);
    await server.app.services.engine.creditAgent('live', agentId, credit);
    expect(await caps(agentId)).toEqual(once);
    const after = await creditCounts();
    expect(after.counted - before.counted).toBe(2);
    expect(after.reloaded - before.reloaded).toBe(0);
  });

  it('a released hold under recurrence terms makes the actor reload: its occurrences are read at load', async () => {
    const { agentId } = await agentWith(server, p, {
      max_daily_amount: '100.00',
      recurrence: { frequency: 'ON_DEMAND', max_occurrences: 1 },
    });
    const held = await approve(server, p, agentId, '10.00', true);
    const again = await decide(server, p, agentId, '10.00');
    expect(again.reason_codes).toEqual(['recurrence_max_occurrences_reached']);
    const before = await creditCounts();
    expect((await op(server, p, held, 'release')).status).toBe(200);
    expect((await creditCounts()).reloaded - before.reloaded).toBe(1);
    // The occurrence came back with the release: the next purchase is the one allowed.
    expect((await decide(server, p, agentId, '10.00')).decision).toBe('APPROVE');
  });

  it('an actor already due to reload takes the credit from its reload', async () => {
    const { agentId } = await agentWith(server, p, { max_daily_amount: '20.00' });
    const held = await approve(server, p, agentId, '20.00', true);
    await reload(agentId);
    const before = await creditCounts();
    expect((await op(server, p, held, 'release')).status).toBe(200);
    expect((await creditCounts()).reloaded - before.reloaded).toBe(1);
    expect(await caps(agentId)).toMatchObject({ max_daily_amount: { used: 0, remaining: 20 } });
  });
});
