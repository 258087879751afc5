// The bench's conventional peer (bench/servers/peer-server.ts, Fastify + postgres.js, one
// transaction per decision) decides the mandate gates as the service does: the same agents,
// keys and mandates in both, the same requests, the same decision and reason, and every
// decision leaves one audit row and one outbox row, with approved spend counted against the
// daily cap. PostgreSQL only (the peer has no embedded mode).
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerDatabase, type PeerDatabase } from '../../dist/bench/peer/database.js';
import {
  createAgentWithMandate,
  onboardPrincipal,
  type PrincipalSetup,
  provisionClient,
  putThresholds,
} from '../../dist/bench/provision.js';
import { type Started, startPeer } from '../../dist/bench/servers/processes.js';
import { PG_BASE_URL, request, startTestServer, type TestServer } from '../fixtures/server.js';

const HIGH = 65_535;
const MANDATE = {
  maxPerTransaction: '500.00',
  maxDaily: '25.00',
  maxMonthly: '1000.00',
  blockedMccs: ['7995'],
  blockedCountries: ['PRK', 'IRN'],
};

let server: TestServer;
let peer: Started;
let db: PeerDatabase;
let principal: PrincipalSetup;
let agent: string;
let expiring: string;

beforeAll(async () => {
  server = await startTestServer();
  const t = { url: server.url, adminKey: server.adminKey };
  const client = await provisionClient(t, 'peer test');
  principal = await onboardPrincipal(t, client, 'peer');
  // Only the mandate gates are compared: the risk gates are lifted, as for the bench's main Principal.
  await putThresholds(t, principal, {
    rapid_fire_max_count: HIGH,
    risk_velocity_max_count: HIGH,
    amount_outlier_multiplier: HIGH,
    merchant_decline_flag_count: HIGH,
  });
  agent = await createAgentWithMandate(t, principal, 'peer agent', MANDATE);
  const until = new Date(Date.now() + 1500).toISOString();
  expiring = await createAgentWithMandate(t, principal, 'peer expiring', { ...MANDATE, validUntil: until });
  const mandate = (validUntil: string | null) => ({ ...MANDATE, currency: 'USD', validUntil });
  db = await createPeerDatabase(`${PG_BASE_URL}/postgres`, {
    principals: [
      {
        principalId: principal.principalId,
        apiKey: principal.principalKey,
        agents: [
          { agentId: agent, mandate: mandate(null) },
          { agentId: expiring, mandate: mandate(until) },
        ],
      },
    ],
  });
  peer = await startPeer(db.url);
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(until) + 100 - Date.now())));
});

afterAll(async () => {
  await peer?.stop();
  await db?.drop();
  await server?.close();
});

function body(agentId: string, amount: string, extra: Record<string, unknown> = {}) {
  return {
    agent_id: agentId,
    amount,
    currency: 'USD',
    merchant_name: 'Corner Grocery',
    merchant_id: 'mer_corner_grocery',
    mcc: '5411',
    country: 'US',
    intent_context: { intent_type: 'purchase', task_reference: 'groceries' },
    ...extra,
  };
}

describe('the conventional peer of the bench', () => {
  it('answers the same decision and reason as the service, request by request', async () => {
    const cases: [string, ReturnType<typeof body>, string, string | null][] = [
      ['approval', body(agent, '10.00'), 'APPROVE', null],
      ['over the per-transaction limit', body(agent, '750.00'), 'DECLINE', 'per_transaction_limit_exceeded'],
      ['blocked MCC', body(agent, '5.00', { mcc: '7995' }), 'DECLINE', 'mcc_blocked'],
      ['blocked country, alpha-2', body(agent, '5.00', { country: 'KP' }), 'DECLINE', 'country_blocked'],
      ['currency mismatch', body(agent, '5.00', { currency: 'EUR' }), 'DECLINE', 'currency_mismatch'],
      ['expired mandate', body(expiring, '5.00'), 'DECLINE', 'mandate_expired'],
      ['second approval: 20.00 of 25.00 used', body(agent, '10.00'), 'APPROVE', null],
      ['over the daily cap', body(agent, '10.00'), 'DECLINE', 'daily_limit_exceeded'],
      ['still under it', body(agent, '5.00'), 'APPROVE', null],
    ];
    for (const [what, b, decision, reason] of cases) {
      const s = await request<{ decision: string; reason_codes: string[] }>(server, 'POST', '/api/v1/authorize', {
        apiKey: principal.principalKey,
        body: b,
      });
      const p = await request<{ decision: string; reason_codes: string[] }>(peer, 'POST', '/api/v1/authorize', {
        apiKey: principal.principalKey,
        body: b,
      });
      expect(s.status, `${what}: service ${s.text}`).toBe(200);
      expect(p.status, `${what}: peer ${p.text}`).toBe(200);
      expect(s.body.decision, `${what}: service`).toBe(decision);
      expect(p.body.decision, `${what}: peer`).toBe(decision);
      if (reason === null) expect(p.body.reason_codes, what).toEqual([]);
      else {
        expect(s.body.reason_codes, `${what}: service`).toContain(reason);
        expect(p.body.reason_codes, `${what}: peer`).toEqual([reason]);
      }
    }
    // One transaction per decision: an audit row and an outbox row each, the spend of the approvals.
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const [audit] = await sql`select count(*)::int as n from peer_audit`;
      const [outbox] = await sql`select count(*)::int as n from peer_outbox`;
      const [spend] = await sql`select amount::text as amount, count from peer_spend where window_key like 'd%'`;
      expect(audit?.n).toBe(cases.length);
      expect(outbox?.n).toBe(cases.length);
      expect(spend).toEqual({ amount: '25.00000000', count: 3 });
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it('refuses a request without a key, with an unknown key, or with a bad amount', async () => {
    const b = body(agent, '1.00');
    expect((await request(peer, 'POST', '/api/v1/authorize', { body: b })).status).toBe(401);
    expect((await request(peer, 'POST', '/api/v1/authorize', { apiKey: 'mdt_live_nope', body: b })).status).toBe(404);
    const bad = await request(peer, 'POST', '/api/v1/authorize', {
      apiKey: principal.principalKey,
      body: body(agent, '-1'),
    });
    expect(bad.status).toBe(400);
  });
});
