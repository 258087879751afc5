import { describe, expect, it } from 'vitest';
import { agent, decide, eventTypes, mandate, request, T0 } from '../fixtures/decision-core.js';

describe('sessions', () => {
  it('terminates a session after session_max_consecutive_denials and declines every later request', () => {
    const s = agent({ mandates: [mandate({ perTransaction: '100' })] });
    expect(decide(s, request({ sessionId: 'ses_a', amount: '500' }), T0).res.gates_fired).toEqual(['mandate_exceeded']);
    decide(s, request({ sessionId: 'ses_a', amount: '500' }), T0 + 1000);
    const third = decide(s, request({ sessionId: 'ses_a', amount: '500' }), T0 + 2000);
    expect(third.res.decision).toBe('DECLINE');
    expect(third.res.gates_fired).toEqual(['mandate_exceeded', 'session_terminated']);
    expect(third.res.reason_codes).toEqual(['per_transaction_limit_exceeded', 'session_terminated']);
    const term = third.ev.events.filter((e) => e.eventType === 'session.terminate');
    expect(term).toHaveLength(1);
    expect(term[0]?.data).toMatchObject({
      agent_id: 'agt_test',
      session_id: 'ses_a',
      reason: 'consecutive_denials',
      consecutive_denials: 3,
    });

    const later = decide(s, request({ sessionId: 'ses_a', amount: '1' }), T0 + 3000);
    expect(later.res).toMatchObject({
      decision: 'DECLINE',
      gates_fired: ['session_terminated'],
      reason_codes: ['session_terminated'],
    });
    expect(eventTypes(later.ev)).toEqual(['gate.fired', 'authorization.decline']);

    expect(decide(s, request({ sessionId: 'ses_b', amount: '1' }), T0 + 4000).res.decision).toBe('APPROVE');
    expect(decide(s, request({ amount: '1' }), T0 + 5000).res.decision).toBe('APPROVE');
  });

  it('an approval resets the consecutive-denial count', () => {
    const s = agent({ mandates: [mandate({ perTransaction: '100' })] });
    decide(s, request({ sessionId: 'ses_c', amount: '500' }), T0);
    decide(s, request({ sessionId: 'ses_c', amount: '500' }), T0 + 1000);
    expect(decide(s, request({ sessionId: 'ses_c', amount: '5' }), T0 + 2000).res.decision).toBe('APPROVE');
    const res = decide(s, request({ sessionId: 'ses_c', amount: '500' }), T0 + 3000).res;
    expect(res.gates_fired).toEqual(['mandate_exceeded']);
  });

  it('the threshold session_max_consecutive_denials changes when a session ends', () => {
    const s = agent({
      mandates: [mandate({ perTransaction: '100' })],
      overrides: { session_max_consecutive_denials: 1 },
    });
    const { res, ev } = decide(s, request({ sessionId: 'ses_d', amount: '500' }));
    expect(res.gates_fired).toEqual(['mandate_exceeded', 'session_terminated']);
    expect(eventTypes(ev)).toContain('session.terminate');
  });

  it('a CRITICAL trust score terminates the session', () => {
    const s = agent({ overrides: { cts_green_threshold: 0.99, cts_amber_threshold: 0.95, cts_red_threshold: 0.9 } });
    const { res, ev } = decide(s, request({ sessionId: 'ses_e', confidence: 0 }));
    expect(res.gates_fired).toEqual(['cognitive_decline', 'session_terminated']);
    const term = ev.events.find((e) => e.eventType === 'session.terminate');
    expect(term?.data).toMatchObject({
      reason: 'critical_trust',
      consecutive_denials: 1,
      final_trust_score: res.trust_score,
    });
    expect(decide(s, request({ sessionId: 'ses_e' }), T0 + 1000).res.reason_codes).toEqual(['session_terminated']);
  });
});
