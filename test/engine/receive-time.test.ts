// Verdicts independent of load: an agent's actor judges each request at the time the edge
// received it (src/decision/model/decision-time.ts), not when the shard got to it. The real decision
// core runs in a real ActorSystem; only the database around it is a stand-in (the load hands
// out a prepared state, the committer records the audit rows), and the shard's clock is
// Date.now() frozen at NOW, so a queue delay is a receivedAtMs in the past.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentState } from '../../src/decision/agent-state.js';
import { decisionCore, evaluate } from '../../src/decision/core.js';
import type { AuditRow, AuthorizeRequest, DecisionCore } from '../../src/decision/model/contract.js';
import { decisionTime } from '../../src/decision/model/decision-time.js';
import type { ThresholdOverrides } from '../../src/decision/model/thresholds.js';
import { ActorSystem, type ShardDatabase } from '../../src/shard/actors.js';
import type { AuthorizeResult } from '../../src/shard/protocol.js';
import { agent, DAY, mandate, request } from '../fixtures/decision-core.js';

/** The shard's clock during a test: a midday, and five seconds past a UTC midnight. */
const NOON = Date.UTC(2025, 4, 14, 12, 0, 0);
const MIDNIGHT = Date.UTC(2025, 4, 15, 0, 0, 0);

interface Harness {
  readonly actors: ActorSystem;
  readonly state: AgentState;
  /** The audit rows handed to the committer, in order. */
  readonly rows: AuditRow[];
  /** The `nowMs` of each state load. */
  readonly loads: number[];
}

function harness(state: AgentState, clock?: () => number): Harness {
  const rows: AuditRow[] = [];
  const loads: number[] = [];
  const core: DecisionCore<AgentState> = {
    ...decisionCore,
    load: async (_sql, _agentId, nowMs) => {
      loads.push(nowMs);
      return state;
    },
  };
  const db = {
    sql: {},
    queue: { run: <T>(work: () => Promise<T>) => work() },
    breaker: { allows: () => true, deadline: () => 60_000, failure() {}, slow() {}, success() {} },
    committer: {
      enqueue: async (item: { evaluation: { audit: AuditRow } }) => {
        rows.push(item.evaluation.audit);
        return { kind: 'committed' as const };
      },
    },
  } as unknown as ShardDatabase;
  const actors = new ActorSystem(
    core as DecisionCore<unknown>,
    { live: db, sandbox: db },
    {
      maxActors: 16,
      maxActorBytes: 16 << 20,
      loadDeadlineMs: 60_000,
      relaxedLoadDeadlineMs: 60_000,
      keysPerActor: 16,
      ...(clock === undefined ? {} : { clock }),
    },
    pino({ level: 'silent' }),
  );
  return { actors, state, rows, loads };
}

interface Decided {
  decision: string;
  reason_codes: string[];
  gates_fired: string[];
  timestamp: string;
  daily_amount_used: number;
}

function decided(r: AuthorizeResult): Decided {
  if (r.kind !== 'decided') throw new Error(`not decided: ${r.kind}`);
  return r.response as unknown as Decided;
}

/**
 * Queues every request on the agent's actor at once (as a shard queue holds them behind a
 * flood) and waits for all the answers: the actor decides them back to back.
 */
async function queued(h: Harness, reqs: readonly AuthorizeRequest[]): Promise<Decided[]> {
  const answers = reqs.map((r) => h.actors.authorize(r));
  return (await Promise.all(answers)).map(decided);
}

function agentAt(nowMs: number, overrides: ThresholdOverrides = {}, limits: { daily?: string } = {}): AgentState {
  return agent({
    overrides,
    createdAtMs: nowMs - 30 * DAY,
    mandates: [
      mandate(
        {
          perTransaction: '100',
          daily: limits.daily ?? '5000',
          validFromMs: nowMs - 30 * DAY,
          validUntilMs: nowMs + 30 * DAY,
          createdAtMs: nowMs - 30 * DAY,
        },
        nowMs,
      ),
    ],
  });
}

const at = (receivedAtMs: number, over: Parameters<typeof request>[0] = {}) =>
  request({ environment: 'live', amount: '10', receivedAtMs, ...over });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('decisionTime', () => {
  it('is the receive time in whole ms, never after the clock, never before the state', () => {
    expect(decisionTime(1_000.7, Number.NEGATIVE_INFINITY, 5_000)).toBe(1_000);
    expect(decisionTime(9_000, Number.NEGATIVE_INFINITY, 5_000)).toBe(5_000);
    expect(decisionTime(1_000, 3_000, 5_000)).toBe(3_000);
    expect(decisionTime(4_000, 3_000, 5_000)).toBe(4_000);
    // A state current to a time ahead of the clock (the wall clock stepped back): it wins.
    expect(decisionTime(4_000, 6_000, 5_000)).toBe(6_000);
    expect(decisionTime(Number.NaN, Number.NEGATIVE_INFINITY, 5_000)).toBe(5_000);
  });
});

describe('requests are judged at their receive time', () => {
  // Rapid-fire: more than 3 requests within 1 s.
  const rapid: ThresholdOverrides = { rapid_fire_window_seconds: 1, rapid_fire_max_count: 3 };

  it('requests received 500 ms apart and processed back to back are no rapid fire', async () => {
    vi.setSystemTime(NOON);
    const h = harness(agentAt(NOON, rapid));
    // Received over the last 2 s, queued behind a flood: the actor gets to all of them now.
    const received = [NOON - 2000, NOON - 1500, NOON - 1000, NOON - 500, NOON];
    const res = await queued(
      h,
      received.map((t) => at(t)),
    );
    expect(res.map((r) => r.decision)).toEqual(['APPROVE', 'APPROVE', 'APPROVE', 'APPROVE', 'APPROVE']);
    for (const r of res) expect(r.reason_codes).not.toContain('rapid_fire');
    // The decision time is the receive time: the response, the audit row and the state agree.
    expect(res.map((r) => r.timestamp)).toEqual(received.map((t) => new Date(t).toISOString()));
    expect(h.rows.map((r) => r.created_at)).toEqual(received.map((t) => new Date(t).toISOString()));
    expect(h.state.decidedUpToMs).toBe(NOON);
    // The cold actor was built as of the first request's receive time, not the clock's.
    expect(h.loads).toEqual([NOON - 2000]);
  });

  it('requests truly received back to back are still a rapid fire', async () => {
    vi.setSystemTime(NOON);
    const h = harness(agentAt(NOON, rapid));
    const res = await queued(
      h,
      [0, 1, 2, 3, 4].map((i) => at(NOON - 300 + i * 10)),
    );
    expect(res.map((r) => r.decision)).toEqual(['APPROVE', 'APPROVE', 'APPROVE', 'DECLINE', 'DECLINE']);
    expect(res[3]?.gates_fired).toEqual(['risk_rapid_fire']);
  });

  // Bursts at one merchant (3 approvals within 1 s) once the agent's pace is known and calm.
  function calmAgent(): AgentState {
    const state = agentAt(NOON, { rapid_fire_window_seconds: 1 });
    for (let i = 0; i < 6; i++) {
      const t = NOON - 3_600_000 + i * 600_000;
      expect(evaluate(state, at(t), t).decision).toBe('APPROVE');
    }
    expect(state.burstsNormal).toBe(false);
    return state;
  }

  it('a steady pace queued behind a flood gets no velocity_spike', async () => {
    vi.setSystemTime(NOON);
    const h = harness(calmAgent());
    const res = await queued(h, [at(NOON - 1800), at(NOON - 1200), at(NOON - 600), at(NOON)]);
    expect(res.map((r) => r.decision)).toEqual(['APPROVE', 'APPROVE', 'APPROVE', 'APPROVE']);
    for (const r of res) expect(r.reason_codes).not.toContain('velocity_spike');
  });

  it('a burst the agent really sent is still a velocity_spike', async () => {
    vi.setSystemTime(NOON);
    const h = harness(calmAgent());
    const res = await queued(h, [at(NOON - 40), at(NOON - 20), at(NOON)]);
    expect(res.map((r) => r.decision)).toEqual(['APPROVE', 'APPROVE', 'STEP_UP']);
    expect(res[2]?.reason_codes).toContain('velocity_spike');
  });
});

describe('the clamp keeps the agent time monotonic', () => {
  it('a receive time ahead of the shard clock is decided at the clock', async () => {
    vi.setSystemTime(NOON);
    const h = harness(agentAt(NOON));
    const [r] = await queued(h, [at(NOON + 60_000)]);
    expect(r?.timestamp).toBe(new Date(NOON).toISOString());
    expect(h.state.decidedUpToMs).toBe(NOON);
  });

  it('a request received before the last decision is decided at its time, in its calendar day', async () => {
    // Five seconds past midnight; the agent's daily cap is 100.
    vi.setSystemTime(MIDNIGHT + 5000);
    const h = harness(agentAt(MIDNIGHT + 5000, {}, { daily: '100' }));
    const res = await queued(h, [
      // Received just after midnight: 90 of the new day's 100.
      at(MIDNIGHT + 1000, { amount: '90' }),
      // Received before midnight, but reaches the actor after the one above (another connection):
      // decided at that one's time, in the new day, so it cannot open the old day's cap again.
      at(MIDNIGHT - 1000, { amount: '50', merchantName: 'Other Shop' }),
      at(MIDNIGHT + 2000, { amount: '10', merchantName: 'Third Shop' }),
    ]);
    expect(res.map((r) => r.decision)).toEqual(['APPROVE', 'DECLINE', 'APPROVE']);
    expect(res[1]?.reason_codes).toEqual(['daily_limit_exceeded']);
    expect(res[1]?.timestamp).toBe(new Date(MIDNIGHT + 1000).toISOString());
    // The new day's total was never reset by a step back into the old day.
    expect(res[2]?.daily_amount_used).toBe(100);
    const times = h.rows.map((r) => Date.parse(r.created_at));
    expect(times).toEqual([MIDNIGHT + 1000, MIDNIGHT + 1000, MIDNIGHT + 2000]);
    expect(h.state.decidedUpToMs).toBe(MIDNIGHT + 2000);
  });

  it('an injected clock decides alone: the receive time is not read', async () => {
    vi.setSystemTime(NOON);
    const clockAt = NOON + 3_600_000;
    const h = harness(agentAt(NOON), () => clockAt);
    const res = await queued(h, [at(NOON - 2000), at(NOON + 99_000_000)]);
    expect(res.map((r) => r.timestamp)).toEqual([new Date(clockAt).toISOString(), new Date(clockAt).toISOString()]);
    expect(h.loads).toEqual([clockAt]);
  });
});
