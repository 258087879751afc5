// A fleet of agents under one Principal budget (docs/principal-budget.md), for the concurrency
// tests on real PostgreSQL: the Principal with its budget, agents with a plain USD mandate,
// concurrent streams of equal approvals, a drain that spends what is left, and the audit sums.
import postgres from 'postgres';
import { expect } from 'vitest';
import { addAgentWithMandate, authorizeBody, relaxRateGates, type ServerTarget, setup } from '../../engine/support.js';
import { request, type TestServer } from '../../fixtures/server.js';

export interface Fleet {
  readonly principalId: string;
  readonly apiKey: string;
  readonly agents: string[];
}

/** A Principal with a monthly USD budget of `budget` and `n` agents (per-transaction limit 20, no caps). */
export async function fleetOn(server: ServerTarget, budget: string, n: number): Promise<Fleet> {
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

/** One more agent of the fleet's Principal with a USD mandate (per-transaction 20, no cap to speak of). */
export function addAgent(server: ServerTarget, apiKey: string, i: number): Promise<string> {
  // addAgentWithMandate only sends requests to the server.
  return addAgentWithMandate(server as TestServer, apiKey, `fleet agent ${i}`, {
    perTransaction: '20.00',
    daily: '1000000.00',
  });
}

export interface Tally {
  approved: number;
  /** The authorization ids answered APPROVE. */
  readonly approvedIds: string[];
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
  const tally: Tally = { approved: 0, approvedIds: [], budgetDeclines: 0, unavailable: 0, other: [] };
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
      if (res.body.decision === 'APPROVE') {
        tally.approved++;
        tally.approvedIds.push(res.body.authorization_id as string);
      } else if ((res.body.reason_codes as string[]).includes('principal_budget_exhausted')) tally.budgetDeclines++;
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

/**
 * Answered means recorded: every authorization answered APPROVE is an APPROVE row. (The log may
 * hold more: a decision the edge had to answer with the safe decision once its deadline passed
 * can still commit, docs/engine-durability.md.)
 */
export async function expectRecorded(url: string, ids: readonly string[]): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [r] = await sql<{ n: number }[]>`
      select count(*)::int as n from authorizations where id in ${sql(ids.length > 0 ? ids : [''])}
        and decision = 'APPROVE'`;
    expect(r?.n).toBe(ids.length);
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

/**
 * Never over the budget, exactly: the fleet's approvals in the audit log are whole multiples of
 * `amount`, within the budget and within what the pool handed out, which equals the slices.
 */
export async function checkNeverOver(url: string, fleet: Fleet, budget: string, amount: string): Promise<void> {
  const db = await approvedInDb(url, fleet.principalId);
  expect(cents(db.sum)).toBeLessThanOrEqual(cents(budget));
  expect(cents(db.sum)).toBe(BigInt(db.n) * cents(amount));
  const escrow = await escrowInDb(url, fleet.principalId);
  expect(cents(escrow.pool)).toBe(cents(escrow.slices));
  expect(cents(escrow.pool)).toBeLessThanOrEqual(cents(budget));
  expect(cents(db.sum)).toBeLessThanOrEqual(cents(escrow.pool));
}
