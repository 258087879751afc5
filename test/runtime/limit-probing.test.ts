// Probing for a limit is a risk signal (src/decision/probing.ts), and every dry run is
// audited. A compromised agent that searches for the largest amount that passes, by dry runs at
// varied amounts (a binary search found the limit to the cent in 16) or by real requests refused
// by a limit, gets STEP_UP limit_probing on its next purchase, which the Principal confirms. A
// cart checked again and again at one amount is not probing. Each dry run is in the security log
// with the verdict it got.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePrincipalKey } from '../fixtures/provision.js';
import { createAgent, inDays, newPrincipal, type TestPrincipal } from '../fixtures/runtime-principal.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

type Body = Record<string, unknown>;
type Answer = Record<string, unknown> & { decision: string; reason_codes: string[] };

/** One call; a cold load that missed its deadline (safe DECLINE system_unavailable) is retried. */
async function call(path: 'authorize' | 'authorize/explain', apiKey: string, body: Body): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const res = await request(server, 'POST', `/api/v1/${path}`, { apiKey, body });
    expect(res.status, res.text).toBe(200);
    const b = res.body as Answer;
    if (b.reason_codes.join() !== 'system_unavailable' || attempt >= 20) return b;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function agentWithMandate(p: TestPrincipal): Promise<string> {
  const agent = (await createAgent(server, p)).id as string;
  const res = await request(server, 'POST', '/api/v1/mandates', {
    apiKey: p.apiKey,
    body: {
      agent_id: agent,
      valid_until: inDays(30),
      max_amount_per_transaction: '100.00',
      max_daily_amount: '5000.00',
      currency: 'USD',
    },
  });
  expect(res.status, res.text).toBe(201);
  return agent;
}

function body(agentId: string, amount: string): Body {
  return {
    agent_id: agentId,
    amount,
    currency: 'USD',
    merchant_name: 'Corner Grocer',
    mcc: '5411',
    country: 'US',
    intent_context: { intent_type: 'purchase', task_reference: 'weekly groceries' },
  };
}

/** A Principal whose count gates are lifted: the only risk a test's request pace shows is probing. */
async function principal(): Promise<TestPrincipal> {
  const p = await newPrincipal(server);
  const t = await request(server, 'PUT', '/api/v1/thresholds', {
    apiKey: p.apiKey,
    body: { rapid_fire_max_count: 65_535, risk_velocity_max_count: 65_535 },
  });
  expect(t.status, t.text).toBe(200);
  return p;
}

describe('probing for a limit', () => {
  it('a binary search by dry runs makes the next purchase STEP_UP limit_probing, which the Principal confirms', async () => {
    const p = await principal();
    const agent = await agentWithMandate(p);
    expect((await call('authorize', p.apiKey, body(agent, '10.00'))).decision).toBe('APPROVE');

    // The search an attacker runs for the per-transaction limit (100.00), from 50 up.
    let low = 50;
    let high = 200;
    const verdicts: string[] = [];
    for (let i = 0; i < 8; i++) {
      const mid = ((low + high) / 2).toFixed(2);
      const e = await call('authorize/explain', p.apiKey, body(agent, mid));
      verdicts.push(e.reason_codes.join());
      if (e.decision === 'DECLINE') high = Number(mid);
      else low = Number(mid);
    }
    // The eighth try is the one that shows probing: the dry run itself says so.
    expect(verdicts.at(-1)).toContain('limit_probing');

    const next = await call('authorize', p.apiKey, body(agent, '10.00'));
    expect(next.decision).toBe('STEP_UP');
    expect(next.reason_codes).toContain('limit_probing');
    expect((next.risk_assessment as { reason_codes: string[] }).reason_codes).toContain('limit_probing');
    const confirmed = await call('authorize', p.apiKey, { ...body(agent, '10.00'), step_up_confirmed: true });
    expect(confirmed.decision).toBe('APPROVE');
    expect(confirmed.reason_codes).toEqual(['step_up_confirmed']);
  });

  it('real requests refused by a limit at varied amounts are probing too', async () => {
    const p = await principal();
    const agent = await agentWithMandate(p);
    for (const amount of ['180.00', '140.00', '120.00', '110.00', '105.00', '102.50', '101.25', '100.50']) {
      const a = await call('authorize', p.apiKey, body(agent, amount));
      expect(a.reason_codes).toEqual(['per_transaction_limit_exceeded']);
    }
    const next = await call('authorize', p.apiKey, body(agent, '10.00'));
    expect(next.decision).toBe('STEP_UP');
    expect(next.reason_codes).toContain('limit_probing');
  });

  it('a cart checked again and again at one amount is not probing', async () => {
    const p = await principal();
    const agent = await agentWithMandate(p);
    for (let i = 0; i < 12; i++) {
      expect((await call('authorize/explain', p.apiKey, body(agent, '42.00'))).decision).toBe('APPROVE');
    }
    const real = await call('authorize', p.apiKey, body(agent, '42.00'));
    expect(real.decision).toBe('APPROVE');
    expect(real.reason_codes).toEqual(['approved']);
  });
});

describe('the audit of dry runs', () => {
  it('records every dry run in the security log: the agent, the amount, the verdict and what was disclosed', async () => {
    const p = await principal();
    const agent = await agentWithMandate(p);
    const narrow = await issuePrincipalKey(server, p.principalId, 'live', { scopes: 'authorize' });
    await call('authorize/explain', p.apiKey, body(agent, '12.00'));
    await call('authorize/explain', narrow.apiKey, body(agent, '150.00'));
    const log = await request(server, 'GET', '/admin/v1/security-log?action=authorization.dry_run&environment=live', {
      adminKey: server.adminKey,
    });
    expect(log.status, log.text).toBe(200);
    const mine = (
      log.body.items as {
        target: { type: string; id: string };
        actor: { credential_id: string | null; principal_id: string | null };
        changes: Record<string, unknown>;
      }[]
    ).filter((e) => e.target.id === agent);
    expect(mine.map((e) => e.changes)).toEqual([
      { amount: '150.00', currency: 'USD', merchant: 'Corner Grocer', decision: 'DECLINE', disclosure: 'verdict' },
      { amount: '12.00', currency: 'USD', merchant: 'Corner Grocer', decision: 'APPROVE', disclosure: 'full' },
    ]);
    expect(mine[0]?.actor.credential_id).toBe(narrow.credentialId);
    expect(mine.every((e) => e.target.type === 'agent' && e.actor.principal_id === p.principalId)).toBe(true);
  });
});
