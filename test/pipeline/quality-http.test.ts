// The in-process replay of the quality harness and the HTTP path agree: a sample of corpus
// histories is sent in real time to a started server, then the same requests are decided
// in-process by the harness (stateFor/requestOf, the engine clock injected as each response's
// timestamp). Every decision and reason code must be the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CorpusHistory, generateCorpus, TUNING_SEED } from '../../bench/quality/corpus.js';
import { requestOf, stateFor } from '../../bench/quality/harness.js';
import { evaluate } from '../../src/decision/core.js';
import { authorize, type EngineFixture, setup } from '../fixtures/engine-setup.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

// The runtime plane's capability vocabulary (the corpus uses the onboarding plane's free words).
const CAPABILITIES = ['PURCHASE', 'SUBSCRIPTION'];

let server: TestServer;
let f: EngineFixture;

beforeAll(async () => {
  server = await startTestServer();
  f = await setup(server);
});
afterAll(async () => {
  await server?.close();
});

/** The first history of each wanted shape with one USD mandate. */
function sample(): CorpusHistory[] {
  const corpus = generateCorpus(TUNING_SEED, { honestPerArchetype: 2, perKind: 2 });
  const usd = corpus.histories.filter((h) => h.mandates.length === 1 && h.mandates[0]?.currency === 'USD');
  const pick = (p: (h: CorpusHistory) => boolean) => usd.find(p) as CorpusHistory;
  return [
    pick((h) => h.archetype === 'shopping_list' && h.kind === null),
    pick((h) => h.archetype === 'benign_keywords'),
    pick((h) => h.kind === 'prompt_injection'),
    pick((h) => h.kind === 'goal_misalignment'),
  ];
}

describe('quality harness vs HTTP', () => {
  it('decides a real-time HTTP sample exactly as the in-process replay does', async () => {
    let compared = 0;
    let nonApproved = 0;
    for (const h of sample()) {
      const m = h.mandates[0] as CorpusHistory['mandates'][number];
      const agent = await request(server, 'POST', '/api/v1/agents', {
        apiKey: f.apiKey,
        body: { display_name: `quality ${h.id}`, capabilities: CAPABILITIES },
      });
      expect(agent.status, agent.text).toBe(201);
      const agentId = agent.body.id as string;
      const mandate = await request(server, 'POST', '/api/v1/mandates', {
        apiKey: f.apiKey,
        body: {
          agent_id: agentId,
          valid_until: new Date(Date.now() + 86_400_000).toISOString(),
          max_amount_per_transaction: m.perTransaction,
          max_daily_amount: m.daily,
          currency: 'USD',
        },
      });
      expect(mandate.status, mandate.text).toBe(201);

      const createdAtMs = Date.parse(agent.body.created_at as string);
      const local = { ...h, createdAtMs, capabilities: CAPABILITIES };
      const state = stateFor(local, f.principalId, Date.now());
      for (const r of h.requests.slice(0, 14)) {
        const res = await authorize(server, f.apiKey, {
          agent_id: agentId,
          amount: r.amount,
          currency: r.currency,
          merchant_name: r.merchantName,
          merchant_id: r.merchantId,
          mcc: r.mcc,
          country: r.country,
          session_id: r.sessionId,
          intent_context: {
            intent_type: r.intentType,
            task_reference: r.taskReference,
            ...(r.reasoningSummary === null ? {} : { reasoning_summary: r.reasoningSummary }),
          },
        });
        expect(res.status, res.text).toBe(200);
        const at = Date.parse(res.body.timestamp as string);
        const ev = evaluate(state, { ...requestOf(local, r, f.principalId), agentId: state.agentId }, at);
        const mine = ev.response as { decision: string; reason_codes: string[] };
        expect(res.body.decision, `${h.id} ${r.taskReference}`).toBe(mine.decision);
        expect(res.body.reason_codes).toEqual(mine.reason_codes);
        compared++;
        if (mine.decision !== 'APPROVE') nonApproved++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(40);
    expect(nonApproved).toBeGreaterThan(0);
  });
});
