// A closed AP2 Payment Mandate is consumed exactly once across instances and restarts
// (docs/ap2.md "Consumed once"), on real PostgreSQL: two instances on one database receive the
// same closed mandate at the same moment and one of them approves it; the other instance then
// refuses it, and so does an instance started afterwards (a restart: nothing of the consumption
// lives in a process). The claim is the primary key of ap2_presentations.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentWithKey,
  chainOf,
  closedMandate,
  hashOf,
  newAgentKey,
  newIssuer,
  openContent,
  openMandate,
} from '../fixtures/ap2.js';
import { joinInstance, startPair } from '../fixtures/drills/instances.js';
import { deleteStream, ownStream } from '../fixtures/drills/nats-stream.js';
import { principal } from '../fixtures/holds.js';
import { request, type TestServer } from '../fixtures/server.js';

let a: TestServer;
let b: TestServer;
const env = { ...ownStream('ap2'), SECRETS_KEY: randomBytes(32).toString('base64'), WORKERS: '1' };

beforeAll(async () => {
  ({ a, b } = await startPair(env));
}, 120_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await deleteStream(env.NATS_STREAM);
});

function present(url: string, apiKey: string, agentId: string, chain: string) {
  return request({ url }, 'POST', '/api/v1/authorize/ap2', {
    apiKey,
    body: {
      agent_id: agentId,
      payment_mandate: chain,
      intent_context: { intent_type: 'purchase', task_reference: 'one order' },
    },
  });
}

describe('a closed mandate presented to two instances, then after a restart', () => {
  it('is approved once; the other instance and a restarted one refuse it', async () => {
    const p = await principal(a);
    const issuer = await newIssuer();
    const keys = await request(a, 'PUT', `/api/v1/principals/${p.principalId}/ap2-issuer-keys`, {
      apiKey: p.clientKey,
      body: { keys: [issuer.publicJwk] },
    });
    expect(keys.status, keys.text).toBe(200);
    const agent = newAgentKey();
    const agentId = await agentWithKey(a, p, agent);
    const open = await openMandate(
      issuer,
      openContent(agent, [
        { type: 'payment.amount_range', currency: 'USD', max: 5000 },
        { type: 'payment.reference', conditional_transaction_id: 'ref-1' },
      ]),
    );
    const imported = await request(a, 'POST', `/api/v1/agents/${agentId}/ap2-mandates`, {
      apiKey: p.apiKey,
      body: { credential: open },
    });
    expect(imported.status, imported.text).toBe(201);
    const closed = await closedMandate(agent, open, { amount: 1200, transactionId: 'tx-once' });
    const chain = chainOf(open, closed);

    const [x, y] = await Promise.all([
      present(a.url, p.apiKey, agentId, chain),
      present(b.url, p.apiKey, agentId, chain),
    ]);
    const answers = [x, y].map((r) => (r.status === 200 ? (r.body.decision as string) : (r.body.error as string)));
    expect(answers.sort()).toEqual(['APPROVE', 'ap2_mandate_already_consumed']);
    const approved = (x.status === 200 ? x : y).body.authorization_id as string;

    // The instance that refused, asked again.
    const again = await present(b.url, p.apiKey, agentId, chain);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('ap2_mandate_already_consumed');
    expect(again.body.message).toContain(approved);

    // An instance started afterwards on the same database.
    const c = await joinInstance(a, env);
    try {
      const late = await present(c.url, p.apiKey, agentId, chain);
      expect(late.status).toBe(409);
      expect(late.body.error).toBe('ap2_mandate_already_consumed');
      const status = await request({ url: c.url }, 'GET', `/api/v1/ap2-mandates/${hashOf(closed)}`, {
        apiKey: p.apiKey,
      });
      expect(status.body).toMatchObject({ kind: 'closed', consumed: true, authorization_id: approved });
    } finally {
      await c.close();
    }
  }, 120_000);
});
