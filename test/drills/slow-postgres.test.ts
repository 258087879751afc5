// Drill: PostgreSQL slow, stopped and refusing writes, under a steady stream of decisions. A
// private PostgreSQL (never the shared one) sits behind a latency proxy the test owns
// (test/fixtures/latency-proxy.ts, its delay changed while connections are open); the service
// runs as its own process. Traffic: warm agents, each sending one approvable purchase after
// another at its own pace (every 100 ms at most), and, in each phase, agents never loaded before
// (cold: their first decision builds the actor). The agents' thresholds keep the burst and
// velocity gates live (bursts are learned as the agents' pace at the start), so a pace
// forgotten during the trouble would show as STEP_UP velocity_spike afterwards.
//
// Phases: baseline, +50 ms, +200 ms, +400 ms and +2 s added to every round trip (half each
// way), then 0 again; PostgreSQL's postmaster and every backend of that cluster stopped
// (SIGSTOP) for 10 s; writes refused for 10 s (default_transaction_read_only on, reloaded:
// every commit fails with 25006, as a full disk makes them fail, while reads go on). Requires:
// - every POST /authorize answered 200 with a decision within AUTHORIZE_DEADLINE_MS (1 s, the
//   default) plus slack; never a 5xx, a 429 or a transport failure;
// - up to +400 ms: decisions go on for the warm agents (more than 80 % of them not
//   system_unavailable) and for agents never loaded before (the first request of at least 7 of
//   the 8 decided: docs/engine-durability.md "Slow PostgreSQL"); at +2 s, stopped, or refusing
//   writes: only the safe DECLINE system_unavailable;
// - afterwards: the first APPROVE within 2 s (plus slack) and the full rate back within 5 s;
//   every answered decision in the audit log as answered (read from the private PostgreSQL
//   directly); no no_active_mandate; no velocity_spike, neither for an agent whose pace was
//   learned before the trouble nor for one first used during it. Approvals recorded but
//   answered as the safe DECLINE (the in-doubt window) are counted and printed.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizeSetup, authorizeBody, authorizeSetup } from '../fixtures/authorize-setup.js';
import { sleep } from '../fixtures/drills/instances.js';
import { OwnPostgres } from '../fixtures/drills/own-postgres.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';
import { addAgentWithMandate } from '../fixtures/engine-setup.js';
import { type LatencyProxy, startLatencyProxy } from '../fixtures/latency-proxy.js';
import { request } from '../fixtures/server.js';

const DEADLINE_MS = 1000; // AUTHORIZE_DEADLINE_MS, the default: not set below
// The load generator and the service share two cores with PostgreSQL and other jobs.
const SLACK_MS = 750;
const FIRST_APPROVAL_MS = 2000;
const FULL_RATE_MS = 5000;
const PACE_MS = 100;
const PHASE_MS = 8000;
const OUTAGE_MS = 10_000;

interface Answer {
  readonly agent: string;
  readonly cold: boolean;
  readonly status: number;
  readonly decision: string | null;
  readonly reasons: readonly string[];
  readonly id: string | null;
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly failure: string | null;
  /** The body of an answer that is not a decision. */
  readonly body: string | null;
}

interface Agent {
  readonly id: string;
  readonly key: string;
}

let pg: OwnPostgres;
let proxy: LatencyProxy;
let service: ServiceProcess;
let pool: Pool;
const warm: Agent[] = [];
/** Agents never used before, handed out per phase. */
const cold: Agent[] = [];
const answers: Answer[] = [];
/** The Principal whose agents are created during the slow phases (kept apart from the others'). */
let lateKey = '';

/**
 * An agent created through the API during a slow phase, sending purchases from the moment it
 * exists, before and while its mandate is created: the answers sent after the mandate's 201 must
 * never be no_active_mandate (a state loaded before the mandate committed and kept after it).
 */
interface Late {
  readonly id: string;
  /** When the mandate's 201 came back (null: not yet). */
  mandateAt: number | null;
  readonly answers: Answer[];
  stop(): Promise<void>;
}
const lates: Late[] = [];

/** POST, tried again while the service answers 503 (its request deadline, on a slow database). */
async function create(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  for (let i = 0; ; i++) {
    const res = await request(service, 'POST', path, { apiKey: lateKey, body });
    if (res.status === 201) return res.body;
    if (res.status !== 503 || i >= 10) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  }
}

async function lateAgent(): Promise<void> {
  const created = await create('/api/v1/agents', { display_name: 'late agent', capabilities: ['PURCHASE'] });
  const agent = { id: created.id as string, key: lateKey };
  let stopped = false;
  const late: Late = {
    id: agent.id,
    mandateAt: null,
    answers: [],
    async stop() {
      stopped = true;
      await running;
    },
  };
  const running = (async () => {
    while (!stopped) {
      const a = await send(agent, true);
      late.answers.push(a);
      await sleep(Math.max(0, a.sentAt + PACE_MS - Date.now()));
    }
  })();
  lates.push(late);
  await create('/api/v1/mandates', {
    agent_id: agent.id,
    valid_until: new Date(Date.now() + 86_400_000).toISOString(),
    max_amount_per_transaction: '250.00',
    max_daily_amount: '100000.00',
    currency: 'USD',
  });
  late.mandateAt = Date.now();
}

async function send(agent: Agent, isCold: boolean): Promise<Answer> {
  const sentAt = Date.now();
  try {
    const res = await pool.request({
      method: 'POST',
      path: '/api/v1/authorize',
      headers: { 'x-api-key': agent.key, 'content-type': 'application/json' },
      body: JSON.stringify(authorizeBody(agent.id, '0.01')),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.body.text();
    let b: Record<string, unknown> = {};
    try {
      b = JSON.parse(text) as Record<string, unknown>;
    } catch {
      b = {};
    }
    return {
      agent: agent.id,
      cold: isCold,
      status: res.statusCode,
      decision: typeof b.decision === 'string' ? b.decision : null,
      reasons: Array.isArray(b.reason_codes) ? (b.reason_codes as string[]) : [],
      id: typeof b.authorization_id === 'string' ? b.authorization_id : null,
      sentAt,
      answeredAt: Date.now(),
      failure: null,
      body: res.statusCode === 200 ? null : text.slice(0, 300),
    };
  } catch (err) {
    return {
      agent: agent.id,
      cold: isCold,
      status: 0,
      decision: null,
      reasons: [],
      id: null,
      sentAt,
      answeredAt: Date.now(),
      failure: String((err as Error).cause ?? (err as Error).message),
      body: null,
    };
  }
}

/** One loop per agent: a request, then the next one PACE_MS after the last was sent (or answered). */
function traffic(agents: readonly Agent[], isCold: boolean) {
  let stopped = false;
  const running = agents.map(async (agent) => {
    while (!stopped) {
      const a = await send(agent, isCold);
      answers.push(a);
      await sleep(Math.max(0, a.sentAt + PACE_MS - Date.now()));
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/** The pids of the private cluster: its postmaster (postmaster.pid) and every child of it. */
function clusterPids(): number[] {
  const postmaster = Number(readFileSync(join(pg.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  return [postmaster, ...children];
}

const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
};

const safe = (a: Answer) => a.decision === 'DECLINE' && a.reasons.includes('system_unavailable') && a.id === null;

function summary(label: string, xs: readonly Answer[]): string {
  const times = xs.map((a) => a.answeredAt - a.sentAt);
  const count = (f: (a: Answer) => boolean) => xs.filter(f).length;
  const coldFirst = xs.filter((a) => a.cold);
  return (
    `${label}: n=${xs.length} APPROVE=${count((a) => a.decision === 'APPROVE')} ` +
    `STEP_UP=${count((a) => a.decision === 'STEP_UP')} DECLINE=${count((a) => a.decision === 'DECLINE')} ` +
    `(system_unavailable=${count(safe)}) other=${count((a) => a.decision === null)}${otherStatuses(xs)} decided=${share(xs)} p50=${percentile(times, 50)} ms ` +
    `p99=${percentile(times, 99)} ms max=${Math.max(0, ...times)} ms; cold n=${coldFirst.length} ` +
    `decided=${share(coldFirst)}`
  );
}

/** The statuses and bodies of answers that are not decisions, counted. */
function otherStatuses(xs: readonly Answer[]): string {
  const seen = new Map<string, number>();
  for (const a of xs) {
    if (a.decision !== null) continue;
    const k = `${a.status} ${a.failure ?? a.body?.slice(0, 120) ?? ''}`;
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  return seen.size === 0 ? '' : ` [${[...seen].map(([k, n]) => `${n}× ${k}`).join('; ')}]`;
}

/** The service's warnings and errors, counted by message (of its log from `from` to `to`). */
function serviceTroubles(from = 0, to?: number): string {
  const seen = new Map<string, number>();
  for (const line of service.stdout().slice(from, to).split('\n')) {
    const m = /"level":(\d+).*"msg":"([^"]*)"/.exec(line);
    if (m === null || Number(m[1]) < 40) continue;
    seen.set(m[2] as string, (seen.get(m[2] as string) ?? 0) + 1);
  }
  return [...seen].map(([k, n]) => `${n}× ${k}`).join('; ');
}

/** Share of answers that are decisions (not the safe DECLINE), as a percentage. */
function share(xs: readonly Answer[]): string {
  if (xs.length === 0) return '-';
  return `${((100 * xs.filter((a) => !safe(a)).length) / xs.length).toFixed(1)}%`;
}

/** Approvals per second in 1 s buckets from `from` on. */
function approvalRate(from: number, to: number): number[] {
  const buckets: number[] = [];
  for (let t = from; t + 1000 <= to; t += 1000) {
    buckets.push(
      answers.filter((a) => a.decision === 'APPROVE' && a.answeredAt >= t && a.answeredAt < t + 1000).length,
    );
  }
  return buckets;
}

beforeAll(async () => {
  pg = await OwnPostgres.create();
  proxy = await startLatencyProxy({ host: '127.0.0.1', port: pg.port }, 0);
  // The default pools (the private server has room for them), not the shared server's small ones.
  service = await startServiceProcess({
    DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/asas`,
    DATABASE_POOL_SIZE: '10',
    ENGINE_POOL_SIZE: '4',
    // Fair share on, as by default: decisions in flight on a slow database leave the edge's
    // thread idle, so no tenant is held to a share (src/http/fair-share.ts ThreadLoad) and none
    // of the drill's ~40 concurrent requests gets 429.
  });
  pool = new Pool(service.url, { connections: 64, pipelining: 1, keepAliveTimeout: 60_000 });
  const principals: AuthorizeSetup[] = [];
  for (let i = 0; i < 3; i++) principals.push(await authorizeSetup(service));
  lateKey = (await authorizeSetup(service)).principalKey;
  for (const p of principals) {
    // Bursts (3 approvals at one merchant within 1 s) are judged, and learned as the agent's
    // pace while its first approvals are made; no count of approvals is too many.
    const t = await request(service, 'PUT', '/api/v1/thresholds', {
      apiKey: p.principalKey,
      body: {
        rapid_fire_max_count: 20,
        rapid_fire_window_seconds: 1,
        risk_velocity_max_count: 65_535,
        amount_outlier_multiplier: 1_000_000,
      },
    });
    expect(t.status, t.text).toBe(200);
    warm.push({ id: p.agentId, key: p.principalKey });
    for (let i = 0; i < 6; i++) {
      const id = await addAgentWithMandate(service, p.principalKey, `agent ${i}`, {
        perTransaction: '250.00',
        daily: '100000.00',
      });
      (i < 2 ? warm : cold).push({ id, key: p.principalKey });
    }
  }
}, 120_000);

afterAll(async () => {
  await pool?.close();
  await service?.cleanup();
  await proxy?.close();
  await pg?.destroy();
}, 60_000);

/** Checks every answer in [from, to) and the audit log; returns the answers of the window. */
async function checkAnswers(from: number, to: number): Promise<Answer[]> {
  const xs = answers.filter((a) => a.sentAt >= from && a.sentAt < to);
  expect(xs.length).toBeGreaterThan(0);
  expect(xs.filter((a) => a.failure !== null).map((a) => a.failure)).toEqual([]);
  expect(xs.filter((a) => a.status !== 200 || a.decision === null).map((a) => `${a.status} ${a.body}`)).toEqual([]);
  const late = xs.filter((a) => a.answeredAt - a.sentAt > DEADLINE_MS + SLACK_MS);
  expect(late.map((a) => `${a.cold ? 'cold' : 'warm'} ${a.answeredAt - a.sentAt} ms`)).toEqual([]);
  return xs;
}

/** Which of these authorization ids are in the audit log. */
async function recordedIds(ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await pg.query((sql) => sql<{ id: string }[]>`select id from authorizations where id in ${sql(ids)}`);
  return new Set(rows.map((r) => r.id));
}

/** Every answered decision is recorded and nothing is recorded that was answered otherwise. */
async function checkAudit(): Promise<{ recorded: number; unanswered: number; unvoided: string[]; lost: string[] }> {
  const rows = await pg.query(
    (sql) => sql<{ id: string; decision: string; voided: boolean }[]>`
      select a.id, a.decision, v.authorization_id is not null as voided
      from authorizations a left join authorization_voids v on v.authorization_id = a.id`,
  );
  const recorded = new Map(rows.map((r) => [r.id, r.decision]));
  const answered = new Set<string>();
  const lost: string[] = [];
  for (const a of [...answers, ...lates.flatMap((l) => l.answers)]) {
    if (a.id === null) continue;
    answered.add(a.id);
    if (recorded.get(a.id) !== a.decision) lost.push(`${a.decision} ${a.id} recorded as ${recorded.get(a.id)}`);
  }
  // A recorded decision nobody was told of (answered as the safe DECLINE while its commit
  // went through, the in-doubt window): voided by the committer once the database answers
  // (docs/engine-durability.md "Voids"), so its spend does not count against the agent's caps.
  const unanswered = rows.filter((r) => !answered.has(r.id) && r.decision === 'APPROVE');
  const unvoided = unanswered.filter((r) => !r.voided).map((r) => r.id);
  return { recorded: rows.length, unanswered: unanswered.length, unvoided, lost };
}

/** checkAudit once the in-doubt approvals are voided (in the background, once the database answers), or 10 s on. */
async function settledAudit(): Promise<Awaited<ReturnType<typeof checkAudit>>> {
  let audit = await checkAudit();
  for (let i = 0; i < 50 && audit.unvoided.length > 0; i++) {
    await sleep(200);
    audit = await checkAudit();
  }
  return audit;
}

/** After the trouble: the first approval and the approvals per second, as a line to print. */
function recoveryLine(restoredAt: number): string {
  const firstApproval = Math.min(
    ...answers.filter((a) => a.sentAt >= restoredAt && a.decision === 'APPROVE').map((a) => a.answeredAt),
  );
  const rates = approvalRate(restoredAt, Date.now());
  const fullAt = rates.findIndex((r) => r >= 0.8 * baselineRate);
  const wrong = answers.filter((a) => a.reasons.includes('no_active_mandate') || a.reasons.includes('velocity_spike'));
  const agents = new Set(wrong.map((a) => `${a.cold ? 'cold' : 'warm'} ${a.agent}`));
  return (
    `first APPROVE +${firstApproval - restoredAt} ms; approvals/s by second: ${rates.join(' ')} ` +
    `(baseline ${baselineRate.toFixed(0)}/s, 80% of it in second ${fullAt + 1}); ` +
    `no_active_mandate/velocity_spike so far: ${wrong.length} (agents: ${[...agents].join(', ') || 'none'})`
  );
}

/** After the trouble: first approval, full rate, no wrong verdicts. */
function checkRecovery(restoredAt: number): void {
  const after = answers.filter((a) => a.sentAt >= restoredAt);
  const firstApproval = Math.min(...after.filter((a) => a.decision === 'APPROVE').map((a) => a.answeredAt));
  const rates = approvalRate(restoredAt, Date.now());
  const fullAt = rates.findIndex((r) => r >= 0.8 * baselineRate);
  expect(firstApproval - restoredAt).toBeLessThanOrEqual(FIRST_APPROVAL_MS + SLACK_MS);
  expect(fullAt, `approvals/s after: ${rates.join(' ')} (baseline ${baselineRate})`).toBeGreaterThanOrEqual(0);
  expect((fullAt + 1) * 1000).toBeLessThanOrEqual(FULL_RATE_MS);
  // Verdicts left wrong by the trouble: every agent has an active, roomy mandate; the pace of an
  // agent that learned it before the trouble is the one it had before, and an agent first used
  // while the database was slow learned no pace from the answers it waited for (its approvals
  // then are marked answers_slow), so its bursts afterwards are not a spike either.
  const wrong = answers.filter((a) => a.reasons.includes('no_active_mandate') || a.reasons.includes('velocity_spike'));
  expect(wrong.map((a) => `${a.decision} ${a.reasons.join(',')} at +${a.sentAt - restoredAt} ms`)).toEqual([]);
}

let baselineRate = 0;

describe('drill: slow, stopped and write-refusing PostgreSQL', () => {
  it('slow round trips: decisions go on up to +400 ms for warm and cold agents, the safe decision at +2 s, nothing lost or left wrong', async () => {
    const load = traffic(warm, false);
    const coldLoads: { stop(): Promise<void> }[] = [];
    const lateCreations: Promise<void>[] = [];
    const lines: string[] = [];
    // Added to every round trip (the proxy delays each way by half of it).
    const phases = [0, 50, 200, 400, 2000];
    const windows: { delay: number; from: number; to: number; logFrom: number; logTo: number }[] = [];
    for (const [i, delay] of phases.entries()) {
      proxy.setDelay(delay / 2);
      const from = Date.now();
      const logFrom = service.stdout().length;
      // Two agents never loaded before start in each phase, a second into it.
      await sleep(1000);
      coldLoads.push(traffic(cold.slice(2 * i, 2 * i + 2), true));
      // An agent created now, its purchases sent while its mandate is being created.
      if (delay > 0 && delay <= 400) lateCreations.push(lateAgent());
      await sleep(PHASE_MS - 1000);
      windows.push({ delay, from, to: Date.now(), logFrom, logTo: service.stdout().length });
    }
    proxy.setDelay(0);
    const restoredAt = Date.now();
    coldLoads.push(traffic(cold.slice(10, 12), true));
    await sleep(10_000);
    // The late agents' traffic goes on for 3 s at least after the last mandate is in. Every loop
    // is stopped whatever happened (a failed creation must not leave one running into the next test).
    try {
      await Promise.all(lateCreations);
      await sleep(Math.max(0, Math.max(...lates.map((l) => l.mandateAt ?? 0)) + 3000 - Date.now()));
    } finally {
      await Promise.allSettled(lateCreations);
      await Promise.all([load.stop(), ...coldLoads.map((c) => c.stop()), ...lates.map((l) => l.stop())]);
    }
    const end = Date.now();

    // Requests sent in a phase after its delay had settled (chunks in flight keep the old delay).
    const phaseAnswers = windows.map((w) => ({
      ...w,
      // ...and answered before the next phase began.
      xs: answers.filter((a) => a.sentAt >= w.from + w.delay + 200 && a.answeredAt < w.to),
    }));
    for (const p of phaseAnswers) {
      lines.push(summary(`+${p.delay} ms`, p.xs));
      const troubles = serviceTroubles(p.logFrom, p.logTo);
      if (troubles !== '') lines.push(`  its service warnings: ${troubles}`);
    }
    lines.push(
      summary(
        'back to 0',
        answers.filter((a) => a.sentAt >= restoredAt),
      ),
    );
    const base = windows[0] as { from: number; to: number };
    baselineRate =
      approvalRate(base.from + 1000, base.to).reduce((x, y) => x + y, 0) / ((base.to - base.from - 1000) / 1000);
    lines.push(`recovery: ${recoveryLine(restoredAt)}`);
    const audit = await settledAudit();
    lines.push(
      `audit: ${audit.recorded} rows, ${audit.lost.length} answered decisions missing, ${audit.unanswered} approvals recorded but answered otherwise (${audit.unanswered - audit.unvoided.length} voided)`,
    );
    for (const l of lates) {
      const after = l.answers.filter((a) => l.mandateAt !== null && a.sentAt > l.mandateAt);
      lines.push(
        `agent created at +${(l.answers[0]?.sentAt ?? 0) - base.from} ms: mandate 201 at +${(l.mandateAt ?? 0) - base.from} ms; ` +
          `before it ${l.answers.length - after.length} answers (${l.answers.filter((a) => a.reasons.includes('no_active_mandate')).length} no_active_mandate), ` +
          `after it ${after.length} (APPROVE ${after.filter((a) => a.decision === 'APPROVE').length}, no_active_mandate ${after.filter((a) => a.reasons.includes('no_active_mandate')).length})`,
      );
    }
    lines.push(`service warnings: ${serviceTroubles()}`);
    console.log(`[slow PostgreSQL]\n  ${lines.join('\n  ')}`);
    // SLOW_PG_ANSWERS=<file>: every answer of this test with the phases' windows, as JSON.
    if (process.env.SLOW_PG_ANSWERS) writeFileSync(process.env.SLOW_PG_ANSWERS, JSON.stringify({ windows, answers }));

    for (const p of phaseAnswers) {
      await checkAnswers(p.from + p.delay + 200, p.to);
      if (p.delay === 0) {
        expect(p.xs.filter((a) => a.decision !== 'APPROVE').map((a) => a.reasons.join(','))).toEqual([]);
      } else if (p.delay <= 400) {
        // Decisions go on for the warm agents (measured on the quiet machine, 2026-12-03: 100 %
        // at +200 ms and 95.5 to 100 % at +400 ms, against 87 to 98 % and 70 to 87 % before the
        // committer kept more batches in flight on a slow round trip and the edge refreshed keys
        // ahead; a loaded machine costs some, hence the lower bound here). Cold agents: below.
        const warmXs = p.xs.filter((a) => !a.cold);
        expect(warmXs.filter((a) => !safe(a)).length / warmXs.length, `+${p.delay} ms`).toBeGreaterThan(0.8);
      } else {
        expect(p.xs.filter((a) => !safe(a)).map((a) => `${a.decision} ${a.reasons}`)).toEqual([]);
      }
    }
    // A cold agent's first decision: its load (one round trip for these agents: a UTC Principal,
    // day caps, no budget; src/decision/load.ts) and its commit, 800 ms at +400 ms, within the
    // deadline. Each of the 8 cold agents of the phases up to +400 ms gets one; one of them may
    // miss on a loaded machine (measured on the quiet machine: 8 of 8 in each run, 2026-12-03;
    // before the load went to one round trip, none at +400 ms).
    const firsts = cold.slice(0, 8).map((c) => answers.find((a) => a.agent === c.id));
    console.log(
      `[slow PostgreSQL] cold agents' first answers: ${firsts.map((a) => (a === undefined ? 'none' : `${a.decision} in ${a.answeredAt - a.sentAt} ms`)).join('; ')}`,
    );
    expect(firsts.filter((a) => a !== undefined && !safe(a)).length).toBeGreaterThanOrEqual(7);
    // Agents created during the trouble: once their mandate's 201 is back, never no_active_mandate,
    // and approved once the database is back.
    expect(lates).toHaveLength(3);
    for (const l of lates) {
      // Answered like everyone else's: 200 with a decision, in time, never a transport failure.
      expect(l.answers.filter((a) => a.failure !== null || a.status !== 200 || a.decision === null)).toEqual([]);
      expect(l.answers.filter((a) => a.answeredAt - a.sentAt > DEADLINE_MS + SLACK_MS)).toEqual([]);
      // Its pace learned after the trouble as the others': no velocity_spike.
      expect(l.answers.filter((a) => a.reasons.includes('velocity_spike'))).toEqual([]);
      expect(l.mandateAt).not.toBeNull();
      const after = l.answers.filter((a) => a.sentAt > (l.mandateAt as number));
      expect(
        after.filter((a) => a.reasons.includes('no_active_mandate')).map((a) => a.sentAt - (l.mandateAt as number)),
      ).toEqual([]);
      expect(
        after.filter((a) => a.sentAt >= restoredAt + FULL_RATE_MS && a.decision === 'APPROVE').length,
      ).toBeGreaterThan(0);
    }
    await checkAnswers(restoredAt, end);
    checkRecovery(restoredAt);
    expect(audit.lost).toEqual([]);
    expect(audit.unvoided).toEqual([]);
  }, 180_000);

  it('stopped (SIGSTOP of the postmaster and every backend) for 10 s: safe declines, then back within seconds', async () => {
    const start = answers.length;
    const load = traffic(warm, false);
    await sleep(3000);
    const pids = clusterPids();
    execFileSync('kill', ['-STOP', ...pids.map(String)]);
    const stoppedAt = Date.now();
    let restoredAt = stoppedAt;
    try {
      await sleep(OUTAGE_MS);
    } finally {
      execFileSync('kill', ['-CONT', ...pids.map(String)]);
      restoredAt = Date.now();
    }
    await sleep(10_000);
    await load.stop();
    const mine = answers.slice(start);
    // Sent once the stop had taken hold (a commit sent just before may still be answered).
    const during = mine.filter((a) => a.sentAt >= stoppedAt + 200 && a.answeredAt < restoredAt);
    const audit = await settledAudit();
    console.log(
      `[SIGSTOP ${pids.length} processes] ${summary('stopped', during)}\n  ${summary(
        'after',
        mine.filter((a) => a.sentAt >= restoredAt),
      )}\n  recovery: ${recoveryLine(restoredAt)}\n  audit: ${audit.recorded} rows, ${audit.unanswered} unanswered approvals (${audit.unanswered - audit.unvoided.length} voided)`,
    );
    await checkAnswers(stoppedAt - 3000, Date.now());
    expect(during.length).toBeGreaterThan(0);
    expect(during.filter((a) => !safe(a)).map((a) => `${a.decision} ${a.reasons}`)).toEqual([]);
    checkRecovery(restoredAt);
    expect(audit.lost).toEqual([]);
    expect(audit.unvoided).toEqual([]);
  }, 120_000);

  it('writes refused for 10 s: safe declines, then back within seconds', async () => {
    const start = answers.length;
    const load = traffic(warm, false);
    await sleep(3000);
    await pg.query(async (sql) => {
      await sql`alter system set default_transaction_read_only = on`;
      await sql`select pg_reload_conf()`;
    });
    const refusedAt = Date.now();
    let restoredAt = refusedAt;
    try {
      await sleep(OUTAGE_MS);
    } finally {
      await pg.query(async (sql) => {
        await sql`alter system reset default_transaction_read_only`;
        await sql`select pg_reload_conf()`;
      });
      restoredAt = Date.now();
    }
    await sleep(10_000);
    await load.stop();
    const mine = answers.slice(start);
    // The postmaster passes the reload on to each backend by a signal, which a backend takes
    // when it next reads a command: on a loaded machine a commit can still go through more than
    // half a second after pg_reload_conf (CI saw one APPROVE). An answer that is not the safe DECLINE is right only if its write
    // went through: it must be in the audit log as answered (audit.lost below), and they must
    // be few.
    const during = mine.filter((a) => a.sentAt >= refusedAt + 500 && a.answeredAt < restoredAt);
    const audit = await settledAudit();
    const recorded = await recordedIds(during.filter((a) => !safe(a) && a.id !== null).map((a) => a.id as string));
    console.log(
      `[writes refused] ${summary('refused', during)}\n  ${summary(
        'after',
        mine.filter((a) => a.sentAt >= restoredAt),
      )}\n  recovery: ${recoveryLine(restoredAt)}\n  audit: ${audit.recorded} rows, ${audit.unanswered} unanswered approvals (${audit.unanswered - audit.unvoided.length} voided)`,
    );
    await checkAnswers(refusedAt - 3000, Date.now());
    expect(during.length).toBeGreaterThan(0);
    const notRefused = during.filter((a) => !safe(a));
    console.log(`  answered with a write the database still took: ${notRefused.length}`);
    expect(
      notRefused.filter((a) => a.id === null || !recorded.has(a.id)).map((a) => `${a.decision} ${a.reasons}`),
    ).toEqual([]);
    expect(notRefused.length).toBeLessThanOrEqual(Math.max(2, during.length * 0.05));
    checkRecovery(restoredAt);
    expect(audit.lost).toEqual([]);
    expect(audit.unvoided).toEqual([]);
  }, 120_000);
});
