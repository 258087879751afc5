// Memory of one agent's state: every per-agent structure stays bounded however many requests,
// sessions, merchants and step-ups the agent sees, and the estimate the actor cache is bounded
// by (src/decision/memory.ts) matches the V8 heap actually used by such states.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  type AgentState,
  MAX_FLAGGED_MERCHANTS,
  MAX_PENDING_STEP_UPS,
  MAX_SESSIONS,
  type MandateState,
} from '../../src/decision/agent-state.js';
import { evaluate } from '../../src/decision/core.js';
import { estimateStateBytes } from '../../src/decision/memory.js';
import type { AuthorizeRequest } from '../../src/decision/model/contract.js';
import type { ThresholdOverrides } from '../../src/decision/model/thresholds.js';
import { AMOUNT_HISTORY_SIZE } from '../../src/decision/rings.js';
import { newAgentState } from '../../src/decision/state.js';
import { mandate, request, T0 } from '../fixtures/decision-core.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let seq = 0;
/** A fresh, flat string, as one read from the database or a structured clone is. */
function flat(prefix: string): string {
  seq++;
  return Buffer.from(`${prefix}_${String(seq).padStart(24, '0')}`).toString('latin1');
}

// The bench's Principal lifts the frequency gates; its mandates block one MCC and two countries.
const RELAXED: ThresholdOverrides = {
  rapid_fire_max_count: 65_535,
  risk_velocity_max_count: 65_535,
  amount_outlier_multiplier: 65_535,
  merchant_decline_flag_count: 65_535,
};

function state(overrides: ThresholdOverrides = RELAXED, mandates?: MandateState[]): AgentState {
  // Every string of a loaded state is its own copy, read from its database row.
  return newAgentState({
    agentId: flat('agt'),
    principalId: flat('prn'),
    clientId: flat('cli'),
    status: Buffer.from('ACTIVE').toString('latin1'),
    trustLevel: Buffer.from('REGISTERED').toString('latin1') as 'REGISTERED',
    createdAtMs: T0 - 86_400_000,
    mandates: mandates ?? [
      mandate({
        id: flat('mnd'),
        currency: Buffer.from('USD').toString('latin1'),
        blockedMccs: ['7995'],
        blockedCountries: ['PRK', 'IRN'],
      }),
    ],
    overrides,
  });
}

function req(s: AgentState, i: number, over: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return request({ agentId: s.agentId, amount: `${10 + (i % 50)}`, merchantName: 'Corner Grocery', ...over });
}

/** Heap bytes (V8 heap and typed-array stores) held per state built by `build`. */
function measure(n: number, build: () => AgentState): { measured: number; estimate: number } {
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  gc();
  gc();
  const before = used();
  const held: AgentState[] = new Array(n);
  for (let i = 0; i < n; i++) held[i] = build();
  gc();
  gc();
  const measured = (used() - before) / n - 8; // minus the slot of `held`
  return { measured, estimate: estimateStateBytes(held[0] as AgentState) };
}

describe('memory estimate of an agent state', () => {
  const shapes: [string, number, () => AgentState][] = [
    [
      'fresh, one mandate, one decision',
      10_000,
      () => {
        const s = state();
        evaluate(s, req(s, 0), T0);
        return s;
      },
    ],
    [
      '50 decisions in 4 sessions over 8 merchants',
      3000,
      () => {
        const s = state();
        for (let i = 0; i < 50; i++) {
          evaluate(
            s,
            req(s, i, { sessionId: `ses_${s.agentId}_${i % 4}`, merchantName: `Shop number ${i % 8}` }),
            T0 + i,
          );
        }
        return s;
      },
    ],
    [
      '2000 decisions inside the rapid-fire window (grown time windows)',
      200,
      () => {
        const s = state();
        for (let i = 0; i < 2000; i++) evaluate(s, req(s, i), T0 + i);
        return s;
      },
    ],
    [
      '5 mandates with 300 MCCs each',
      300,
      () =>
        state(
          RELAXED,
          Array.from({ length: 5 }, () =>
            mandate({ id: flat('mnd'), allowedMccs: Array.from({ length: 300 }, (_, i) => String(5000 + i)) }),
          ),
        ),
    ],
    [
      '60 declines at 60 merchants',
      3000,
      () => {
        const s = state();
        for (let i = 0; i < 60; i++) evaluate(s, req(s, i, { mcc: '7995', merchantName: `Casino ${i}` }), T0 + i);
        return s;
      },
    ],
  ];
  for (const [name, n, build] of shapes) {
    it(`is within 20% of the measured heap: ${name}`, () => {
      const { measured, estimate } = measure(n, build);
      expect(estimate / measured, `estimate ${estimate} B, measured ${Math.round(measured)} B`).toBeGreaterThan(0.8);
      expect(estimate / measured, `estimate ${estimate} B, measured ${Math.round(measured)} B`).toBeLessThan(1.2);
    });
  }
});

describe('per-agent structures are bounded', () => {
  it('keep their caps after thousands of requests with new sessions, merchants and step-ups', () => {
    const overrides: ThresholdOverrides = {
      ...RELAXED,
      rapid_fire_max_count: 100,
      risk_velocity_max_count: 200,
      session_max_merchants: 5,
      session_max_consecutive_denials: 1000,
      intent_anomaly_threshold: 1,
      authorize_step_up_threshold: 0.3,
      // bursts (and robust outliers) are judged only after this many approvals: never here
      amount_outlier_min_history: 10_000,
    };
    const s = state(overrides);
    for (let i = 0; i < 5000; i++) {
      const kind = i % 3;
      evaluate(
        s,
        req(s, i, {
          sessionId: `session ${i}`,
          merchantName: `Merchant ${i}`,
          // a blocked MCC declines (flagging merchants), a high-risk one steps up
          mcc: kind === 0 ? '7995' : kind === 1 ? '5933' : '5411',
        }),
        T0 + i * 10,
      );
      for (let j = 0; j < 3; j++) {
        evaluate(s, req(s, i, { sessionId: `session ${i}`, merchantName: `Other ${i} ${j}` }), T0 + i * 10 + j);
      }
    }
    expect(s.stats.approved + s.stats.declined + s.stats.stepUps).toBe(20_000);
    expect(s.stats.stepUps).toBeGreaterThan(0);
    expect(s.sessions.size).toBe(MAX_SESSIONS);
    for (const session of s.sessions.values()) expect(session.merchants.length).toBeLessThanOrEqual(5);
    expect(s.merchantDeclines.size).toBe(MAX_FLAGGED_MERCHANTS);
    expect(s.pendingStepUps.length).toBeLessThanOrEqual(MAX_PENDING_STEP_UPS);
    expect(s.amounts.count).toBe(AMOUNT_HISTORY_SIZE);
    expect(s.requests.capacity).toBeLessThanOrEqual(101);
    expect(s.approvals.capacity).toBeLessThanOrEqual(201);
    // 20 000 requests later the state is still a few tens of kilobytes.
    expect(estimateStateBytes(s)).toBeLessThan(40_000);
  });
});
