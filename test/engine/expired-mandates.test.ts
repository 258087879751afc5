// An agent's expired mandates pile up over the years (they stay ACTIVE in storage: expiry is
// derived). Building its actor keeps every unexpired mandate but, of the expired ones, only the
// newest per rail coverage and currency, which is all the mandate stage can report; decisions
// are the same as with all of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentState } from '../../src/decision/load.js';
import { authorize, authorizeBody, type EngineFixture, query, setup } from '../fixtures/engine-setup.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { withDb } from '../fixtures/test-db.js';

let server: TestServer;
let f: EngineFixture;

beforeAll(async () => {
  server = await startTestServer();
  f = await setup(server);
});
afterAll(async () => {
  await server?.close();
});

/** `n` expired card mandates in `currency`, the i-th created i days ago (ids `<prefix>_<i>`). */
function expired(n: number, currency: string, prefix: string) {
  return query(
    server,
    'live',
    (sql) => sql`
      insert into mandates (id, agent_id, principal_id, status, rails, currency, max_amount_per_transaction,
        max_daily_amount, valid_from, valid_until, mandate_hash, created_at)
      select ${prefix} || '_' || g, ${f.agentId}, ${f.principalId}, 'ACTIVE', '{card}', ${currency}, 500, 5000,
        now() - (g + 30) * interval '1 day', now() - g * interval '1 hour', 'sha256:test', now() - g * interval '1 day'
      from generate_series(1, ${n}::int) g`,
  );
}

describe('expired mandates', () => {
  it('are kept only as the newest per rail coverage and currency, with the same decisions', async () => {
    await expired(150, 'USD', 'mnd_old_usd');
    await expired(60, 'EUR', 'mnd_old_eur');

    // USD: the onboarding mandate (unexpired) decides.
    const usd = await authorize(server, f.apiKey, authorizeBody(f.agentId));
    expect(usd.body.decision, JSON.stringify(usd.body)).toBe('APPROVE');
    expect(usd.body.mandate_id).toBe(f.mandateId);
    // EUR: only expired mandates; the newest of them is named.
    const eur = await authorize(server, f.apiKey, authorizeBody(f.agentId, { currency: 'EUR' }));
    expect(eur.body.decision).toBe('DECLINE');
    expect(eur.body.reason_codes).toContain('mandate_expired');
    expect(eur.body.mandate_id).toBe('mnd_old_eur_1');
    // GBP: no mandate in that currency at all.
    const gbp = await authorize(server, f.apiKey, authorizeBody(f.agentId, { currency: 'GBP' }));
    expect(gbp.body.decision).toBe('DECLINE');
    expect(gbp.body.reason_codes).toContain('currency_mismatch');

    // The list still shows all of them.
    const list = await request(server, 'GET', `/api/v1/mandates/agent/${f.agentId}?status=EXPIRED`, {
      apiKey: f.apiKey,
    });
    expect(list.body.total).toBe(210);

    // What a load keeps: the unexpired mandate and the newest expired USD and EUR ones.
    // Through withDb: on the embedded defaults PGlite's one session can interleave the load's
    // statements with the service's own ("portal does not exist"), and the load runs again.
    const state = await withDb(server, 'live', (sql) => loadAgentState(sql as never, f.agentId, Date.now()));
    expect(state?.mandates.map((m) => m.id)).toEqual([f.mandateId, 'mnd_old_eur_1', 'mnd_old_usd_1']);
  });
});
