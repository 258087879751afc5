import { describe, expect, it } from 'vitest';
import { RESPONSE_FIELDS } from '../fixtures/authorize-fields.js';
import { agent, decide, request } from '../fixtures/decision-core.js';

const SPEC_FIELDS = [...RESPONSE_FIELDS].sort();

describe('response and audit row', () => {
  it('carry every SPEC field, for an approval and for an early decline', () => {
    for (const s of [agent(), agent({ status: 'SUSPENDED' })]) {
      const { res, ev } = decide(s, request({ sessionId: 'ses_r', idempotencyKey: 'idem-12345' }));
      expect(Object.keys(res).sort()).toEqual(SPEC_FIELDS);
      expect(Object.keys(res.risk_assessment as object).sort()).toEqual([
        'condition_code',
        'highest_severity',
        'reason_codes',
        'score',
        'velocity_indicator',
      ]);
      expect(String(res.authorization_id)).toMatch(/^auth_/);
      expect(ev.audit).toMatchObject({
        id: res.authorization_id,
        principal_id: 'prn_test',
        agent_id: 'agt_test',
        decision: res.decision,
        reason_codes: res.reason_codes,
        gates_fired: res.gates_fired,
        session_id: 'ses_r',
        idempotency_key: 'idem-12345',
        created_at: res.timestamp,
      });
      expect(ev.audit.response).toBe(res);
      expect((res.recommendations as string[]).length).toBeGreaterThan(0);
    }
  });
});
