// A closed AP2 Payment Mandate is consumed exactly once across instances and restarts
// (docs/ap2.md "Consumed once"), on real PostgreSQL: two instances on one database receive the
// same closed mandate at the same moment and one of them approves it; the other instance then
// refuses it, and so does an instance started afterwards (a restart: nothing of the consumption
// lives in a process). The claim is the primary key of ap2_presentations. Stale PENDING claims
// are settled by the background sweep that both instances run at once: each once.
import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
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
import { deleteStream, ownStream, storedMessages } from '../fixtures/drills/nats-stream.js';
import { query } from '../fixtures/engine-setup.js';
import { principal } from '../fixtures/holds.js';
import { request, type TestServer } from '../fixtures/server.js';

let a: TestServer;
let b: TestServer;
const env = {
  ...ownStream('ap2'),
  SECRETS_KEY: randomBytes(32).toString('base64'),
  WORKERS: '1',
  // Both instances sweep stale claims every 100 ms, so their sweeps meet.
  AP2_CLAIM_SWEEP_MS: '100',
};

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
    expect(answers.sort(), `${x.text}\n${y.text}`).toEqual(['APPROVE', 'ap2_mandate_already_consumed']);
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

    // On NATS: the import, the one consumption and the refusals of the replays, each published
    // once on the stream (both instances relay through one lease), on the subject of its type.
    const nc = await connect({ servers: env.NATS_URL });
    try {
      type Published = { subject: string; event_type: string; data: Record<string, unknown> };
      let mine: Published[] = [];
      for (let i = 0; i < 50; i++) {
        mine = (await storedMessages(nc, env.NATS_STREAM))
          .map((m) => ({
            subject: m.subject,
            ...(JSON.parse(new TextDecoder().decode(m.data)) as Omit<Published, 'subject'>),
          }))
          .filter((e) => e.data?.agent_id === agentId);
        if (mine.filter((e) => e.event_type === 'ap2_mandate.refused').length >= 3) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const of = (t: string) => mine.filter((e) => e.event_type === t);
      expect(of('ap2_mandate.imported').map((e) => e.data.credential_hash)).toEqual([hashOf(open)]);
      expect(of('ap2_mandate.consumed').map((e) => [e.data.closed_mandate_hash, e.data.authorization_id])).toEqual([
        [hashOf(closed), approved],
      ]);
      expect(of('ap2_mandate.refused').map((e) => e.data.error)).toEqual([
        'ap2_mandate_already_consumed',
        'ap2_mandate_already_consumed',
        'ap2_mandate_already_consumed',
      ]);
      for (const e of mine) expect(e.subject.endsWith(`.${e.event_type}`), e.subject).toBe(true);
    } finally {
      await nc.close();
    }
  }, 120_000);
});

describe('stale claims swept by two instances at once', () => {
  it('each is settled once: CONSUMED with its recorded APPROVE (one event), else released', async () => {
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
        { type: 'payment.reference', conditional_transaction_id: 'ref-2' },
      ]),
    );
    const imported = await request(a, 'POST', `/api/v1/agents/${agentId}/ap2-mandates`, {
      apiKey: p.apiKey,
      body: { credential: open },
    });
    expect(imported.status, imported.text).toBe(201);
    const mandateId = imported.body.id as string;
    // Six approvals through either instance (a safe DECLINE of a cold actor is presented again;
    // more in a row would meet the agent's velocity step-up).
    const approvals = new Map<string, string>();
    for (let i = 0; i < 6; i++) {
      const closed = await closedMandate(agent, open, { amount: 100 + i, transactionId: `tx-approved-${i}` });
      const url = i % 2 === 0 ? a.url : b.url;
      let res = await present(url, p.apiKey, agentId, chainOf(open, closed));
      for (let k = 0; k < 20 && (res.body.reason_codes as string[] | undefined)?.join() === 'system_unavailable'; k++) {
        await new Promise((r) => setTimeout(r, 1100));
        res = await present(url, p.apiKey, agentId, chainOf(open, closed));
      }
      expect(res.body.decision, res.text).toBe('APPROVE');
      approvals.set(hashOf(closed), res.body.authorization_id as string);
    }
    // As processes killed between decision and settlement left them, and six claims whose
    // requests recorded nothing; the sweeps of both instances meet them at once.
    await query(a, 'live', async (sql) => {
      await sql.begin(async (tx) => {
        await tx`update ap2_presentations set status = 'PENDING', authorization_id = null, consumed_at = null,
          claimed_at = now() - interval '1 hour' where agent_id = ${agentId}`;
        for (let i = 0; i < 6; i++) {
          await tx`insert into ap2_presentations (closed_hash, mandate_id, open_hash, transaction_id, principal_id,
              agent_id, status, amount, currency, payee_id, request_id, claimed_at)
            values (${`undecided-${i}-${agentId}`}, ${mandateId}, ${hashOf(open)}, ${`tx-undecided-${i}`},
              ${p.principalId}, ${agentId}, 'PENDING', 1, 'USD', 'merchant_1', ${`req_gone_${i}`},
              now() - interval '1 hour')`;
        }
      });
      return [];
    });
    let rows: { closed_hash: string; status: string; authorization_id: string | null }[] = [];
    for (let i = 0; i < 150; i++) {
      rows = await query(
        a,
        'live',
        (sql) => sql<(typeof rows)[number][]>`
          select closed_hash, status, authorization_id from ap2_presentations where agent_id = ${agentId}`,
      );
      if (rows.every((r) => r.status === 'CONSUMED')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(new Map(rows.map((r) => [r.closed_hash, r.authorization_id]))).toEqual(approvals);
    expect(rows.every((r) => r.status === 'CONSUMED')).toBe(true);
    const events = await query(
      a,
      'live',
      (sql) => sql<{ hash: string; n: number }[]>`
        select payload->'data'->>'closed_mandate_hash' as hash, count(*)::int as n from outbox_events
        where event_type = 'ap2_mandate.consumed' and payload->'data'->>'agent_id' = ${agentId}
          and (payload->'data'->>'reconciled')::boolean is true
        group by 1`,
    );
    expect(new Map(events.map((e) => [e.hash, e.n]))).toEqual(new Map([...approvals.keys()].map((h) => [h, 1])));
  }, 120_000);
});
