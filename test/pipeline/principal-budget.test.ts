// The Principal budget slice in the decision core (src/decision/principal-budget.ts): what
// a request needs from the pool, the gate at the cent, spending on approval only, a new window
// starting with an empty slice, other currencies and spend before the budget not counted, and
// slack taken out of the state at once.
import { describe, expect, it } from 'vitest';
import type { BudgetState } from '../../src/decision/agent-state.js';
import { decisionCore } from '../../src/decision/core.js';
import { windowsOf } from '../../src/decision/model/calendar.js';
import { agent, DAY, decide, mandate, request, T0 } from '../fixtures/decision-core.js';

const escrow = decisionCore.escrow;
if (escrow === undefined) throw new Error('the decision core has no escrow');
const U = 1_000_000n; // one cent in units of 10^-8

function withSlice(remainingCents: bigint, over: Partial<BudgetState> = {}) {
  const s = agent({ mandates: [mandate({ perTransaction: '100', daily: null })] });
  s.budget = {
    version: '1',
    limit: 10_000n * U,
    currency: 'USD',
    window: 'month',
    effectiveFromMs: T0 - 10 * DAY,
    unit: U,
    extra: 156n * U,
    windowStart: windowsOf('UTC', T0).month,
    remaining: remainingCents * U,
    topUpAfterMs: Number.NEGATIVE_INFINITY,
    ...over,
  };
  return s;
}

describe('Principal budget slice', () => {
  it('needs nothing while the slice covers the request, else exactly what it lacks', () => {
    const s = withSlice(1_000n);
    expect(escrow.need(s, request({ amount: '10.00' }), T0)).toBe(0n);
    expect(escrow.need(s, request({ amount: '10.01' }), T0)).toBe(1n * U);
    // A deficit (spend the slice never covered) is part of what is asked.
    const d = withSlice(-250n);
    expect(escrow.need(d, request({ amount: '1.00' }), T0)).toBe(350n * U);
    // Nothing is asked for what the mandate or the agent's status declines anyway.
    expect(escrow.need(s, request({ amount: '100.01' }), T0)).toBe(0n);
    s.status = 'SUSPENDED';
    expect(escrow.need(s, request({ amount: '10.01' }), T0)).toBe(0n);
  });

  it('approves exactly the slice, declines one cent more, and spends only on APPROVE', () => {
    const s = withSlice(1_000n);
    expect(decide(s, request({ amount: '9.99' }), T0).res.decision).toBe('APPROVE');
    const over = decide(s, request({ amount: '0.02' }), T0 + 1_000).res;
    expect(over.decision).toBe('DECLINE');
    expect(over.reason_codes).toEqual(['principal_budget_exhausted']);
    expect(over.gates_fired).toEqual(['principal_budget']);
    expect(s.budget?.remaining).toBe(1n * U);
    expect(decide(s, request({ amount: '0.01' }), T0 + 2_000).res.decision).toBe('APPROVE');
    expect(s.budget?.remaining).toBe(0n);
    // A request the mandate refuses first spends nothing.
    const m = withSlice(1_000n);
    expect(decide(m, request({ amount: '100.01' }), T0).res.reason_codes).toEqual(['per_transaction_limit_exceeded']);
    expect(m.budget?.remaining).toBe(1_000n * U);
  });

  it('a new window starts with an empty slice', () => {
    const s = withSlice(1_000n);
    const nextMonth = Date.UTC(2025, 5, 1, 0, 0, 1);
    expect(escrow.need(s, request({ amount: '1.00' }), nextMonth)).toBe(100n * U);
    expect(s.budget?.windowStart).toBe(Date.UTC(2025, 5, 1));
    expect(s.budget?.remaining).toBe(0n);
  });

  it('other currencies and spend before the budget took effect do not count', () => {
    const s = agent({
      mandates: [
        mandate({ perTransaction: '100', daily: null }),
        mandate({ id: 'mnd_eur', currency: 'EUR', daily: null }),
      ],
    });
    s.budget = { ...(withSlice(0n).budget as BudgetState) };
    expect(escrow.need(s, request({ amount: '5.00', currency: 'EUR' }), T0)).toBe(0n);
    expect(decide(s, request({ amount: '5.00', currency: 'EUR' }), T0).res.decision).toBe('APPROVE');
    expect(s.budget.remaining).toBe(0n);
    const later = withSlice(0n, { effectiveFromMs: T0 + DAY });
    expect(escrow.need(later, request({ amount: '5.00' }), T0)).toBe(0n);
    expect(decide(later, request({ amount: '5.00' }), T0).res.decision).toBe('APPROVE');
  });

  it('slack leaves the state at once; a deficit is no slack; a low slice asks for a top-up', () => {
    const s = withSlice(1_234n);
    expect(escrow.takeSlack(s)).toEqual({ windowStart: s.budget?.windowStart, amount: 1_234n * U });
    expect(s.budget?.remaining).toBe(0n);
    expect(escrow.takeSlack(s)).toBeNull();
    expect(escrow.takeSlack(withSlice(-5n))).toBeNull();
    expect(escrow.low(withSlice(38n), T0)).toBe(true);
    expect(escrow.low(withSlice(40n), T0)).toBe(false);
    expect(escrow.low(withSlice(38n, { topUpAfterMs: T0 + 1 }), T0)).toBe(false);
  });
});
