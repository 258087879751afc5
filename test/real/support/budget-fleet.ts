// A fleet of agents under one Principal budget (docs/principal-budget.md), for the concurrency
// tests on real PostgreSQL: the Principal with its budget, agents with a plain USD mandate,
// concurrent streams of equal approvals, a drain that spends what is left, and the audit sums.
import postgres from 'postgres';
import { expect } from 'vitest';
import { authorizeBody, relaxRateGates, setup } from '../../engine/support.js';
import { request, type TestServer } from '../../helpers/server.js';

export interface Fleet {
  readonly principalId: string;
  readonly apiKey: string;
  readonly agents: string[];
}

/** A Principal with a monthly USD budget of `budget` and `n` agents (per-transaction limit 20, no caps). */
export async function fleetOn(server: TestServer, budget: string, n: number): Promise<Fleet> {
  const f = await setup(server);
  await relaxRateGates(server, f.apiKey);
  const set = await request(server, 'PUT', `/api/v1/principals/${f.principalId}/budget`, {
    apiKey: f.apiKey,
    body: { amount: budget, currency: 'USD', window: 'month' },
  });
  expect(set.status, set.text).toBe(200);
  const agents: string[] = [];
  for (let i = 0; i < n; i++) agents.push(await addAgent(server, f.apiKey, i));
  return { principalId: f.principalId, apiKey: f.apiKey, agents };
}

export async function addAgent(server: { url: string }, apiKey: string, i: number): Promise<string> {
  const agent = await request(server, 'POST', '/api/v1/agents', {
    apiKey,
    body: { display_name: `fleet agent ${i}`, capabilities: ['PURCHASE'] },
  });
  expect(agent.status, agent.text).toBe(201);
  const agentId = agent.body.id as string;
  const m = await request(server, 'POST', '/api/v1/mandates', {
    apiKey,
    body: {
      agent_id: agentId,
      valid_until: new Date(Date.now() + 86_400_000).toISOString(),
      max_amount_per_transaction: '20.00',
      currency: 'USD',
    },
  });
  expect(m.status, m.text).toBe(201);
  return agentId;
}

export interface Tally {
  approved: number;
  budgetDeclines: number;
  /**
   * Safe decisions (system_unavailable): a request the service could not decide and record in
   * time on a busy machine. Allowed (they approve nothing); any other answer is not.
   */
  unavailable: number;
  other: string[];
}

/**
 * `perAgent` requests of `amount` for every agent, `inFlight` at a time, each sent to the
 * server `via(i)` names. Every answer must be 200 (never a 5xx); returns what was answered.
 */
export async function stream(
  fleet: Fleet,
  amount: string,
  perAgent: number,
  inFlight: number,
  via: (i: number) => { url: string },
): Promise<Tally> {
  const jobs: string[] = [];
  for (let r = 0; r < perAgent; r++) for (const a of fleet.agents) jobs.push(a);
  const tally: Tally = { approved: 0, budgetDeclines: 0, unavailable: 0, other: [] };
  let next = 0;
  async function worker(): Promise<void> {
    for (;;) {
      const i = next++;
      const agentId = jobs[i];
      if (agentId === undefined) return;
      const res = await request(via(i), 'POST', '/api/v1/authorize', {
        apiKey: fleet.apiKey,
        body: authorizeBody(agentId, { amount, merchant_name: 'Fleet Store' }),
      });
      expect(res.status, res.text).toBe(200);
      if (res.body.decision === 'APPROVE') tally.approved++;
      else if ((res.body.reason_codes as string[]).includes('principal_budget_exhausted')) tally.budgetDeclines++;
      else if ((res.body.reason_codes as string[]).includes('system_unavailable')) tally.unavailable++;
      else tally.other.push(`${res.body.decision} ${(res.body.reason_codes as string[]).join(',')}`);
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  return tally;
}

/**
 * Spends what is left: rounds of one request per agent until two rounds in a row, the second
 * after the recall interval (1 s), approve nothing and every answer was decided (no safe
 * decision). Returns the approvals.
 */
export async function drain(fleet: Fleet, amount: string, via: (i: number) => { url: string }): Promise<number> {
  let approved = 0;
  let idle = 0;
  const end = Date.now() + 60_000;
  while (idle < 2 && Date.now() < end) {
    const t = await stream(fleet, amount, 1, fleet.agents.length, via);
    expect(t.other).toEqual([]);
    approved += t.approved;
    if (t.approved > 0 || t.unavailable > 0) idle = 0;
    else {
      idle++;
      await new Promise((r) => setTimeout(r, 1_100));
    }
  }
  return approved;
}

/** Exact integer cents of a decimal text with at most 2 places ("50.0" -> 5000n). */
export function cents(text: string): bigint {
  const [whole, frac = ''] = text.split('.');
  if (frac.replace(/0+$/, '').length > 2) throw new Error(`more than cents: ${text}`);
  return BigInt(whole ?? '0') * 100n + BigInt((frac + '00').slice(0, 2));
}

/** The fleet's APPROVE rows: how many and their exact sum (text). */
export async function approvedInDb(url: string, principalId: string): Promise<{ n: number; sum: string }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [r] = await sql<{ n: number; sum: string }[]>`
      select count(*)::int as n, coalesce(sum(amount), 0)::text as sum from authorizations
      where principal_id = ${principalId} and decision = 'APPROVE' and currency = 'USD'`;
    return { n: r?.n ?? 0, sum: r?.sum ?? '0' };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** What the escrow tables say: the pool handed out and the sum of the slices (always equal). */
export async function escrowInDb(url: string, principalId: string): Promise<{ pool: string; slices: string }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [r] = await sql<{ pool: string; slices: string }[]>`
      select coalesce((select sum(granted) from principal_budget_pools where principal_id = ${principalId}), 0)::text as pool,
             coalesce((select sum(granted) from principal_budget_slices where principal_id = ${principalId}), 0)::text as slices`;
    return { pool: r?.pool ?? '0', slices: r?.slices ?? '0' };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
