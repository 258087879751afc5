// Evidence across a Principal: a merchant where its agents were twice refused for reasons that
// point to compromise is flagged for every agent of the Principal, including agents decided on
// another shard thread (or instance, or after a restart): a thread reads the Principal's recent
// declines from the audit log when it loads one of its agents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAgentWithMandate, authorize, authorizeBody, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import { startTestServer, type TestServer } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { shardOf } = (await import(
  `${DIST}decision/model/shard-of.js`
)) as typeof import('../../src/decision/model/shard-of.js');

let server: TestServer;
let apiKey: string;

beforeAll(async () => {
  server = await startTestServer({ WORKERS: '2' });
  apiKey = (await setup(server)).apiKey;
  await relaxRateGates(server, apiKey);
});
afterAll(async () => {
  await server?.close();
});

const SHADY = { merchant_name: 'Shady Outlet', merchant_id: 'mer_shady_outlet' };

describe('merchant evidence across a Principal', () => {
  it('flags a merchant for an agent on another shard thread after two compromise declines there', async () => {
    const limits = { perTransaction: '20.00', daily: '1000.00' };
    const first = await addAgentWithMandate(server, apiKey, 'refused', limits);
    let other = await addAgentWithMandate(server, apiKey, 'other', limits);
    for (let i = 0; i < 20 && shardOf(other, 2) === shardOf(first, 2); i++) {
      other = await addAgentWithMandate(server, apiKey, `other ${i}`, limits);
    }
    expect(shardOf(other, 2)).not.toBe(shardOf(first, 2));
    for (let i = 0; i < 2; i++) {
      // Far over the per-transaction limit: a DECLINE that points to compromise.
      const res = await authorize(server, apiKey, authorizeBody(first, { amount: '500.00', ...SHADY }));
      expect(res.body.decision, res.text).toBe('DECLINE');
    }
    const res = await authorize(server, apiKey, authorizeBody(other, { amount: '5.00', ...SHADY }));
    expect(res.status, res.text).toBe(200);
    const risk = res.body.risk_assessment as { reason_codes: string[] };
    expect(risk.reason_codes, res.text).toContain('merchant_flagged');
    // The same amount elsewhere is not flagged.
    const elsewhere = await authorize(server, apiKey, authorizeBody(other, { amount: '5.00' }));
    const calm = elsewhere.body.risk_assessment as { reason_codes: string[] };
    expect(calm.reason_codes, elsewhere.text).not.toContain('merchant_flagged');
  });
});
