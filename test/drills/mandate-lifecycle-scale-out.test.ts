// The mandate lifecycle and step-up confirmations on two instances sharing one PostgreSQL
// database and one NATS server, two worker threads each (docs/mandate-lifecycle.md,
// docs/step-up-confirmation.md, docs/scale-out.md): an amendment or a revoke through one
// instance is in force for the agent's next decision on the other, whichever of them owns the
// agent's actor, and a step-up confirmed through one instance clears the STEP_UP decided on
// the other. Each case runs both ways, so one of them always crosses from a non-owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBody } from '../fixtures/authorize-setup.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';
import { principalOn, sharedDatabase } from '../fixtures/drills/shared-database.js';
import { request } from '../fixtures/server.js';

const DB = sharedDatabase('lifecycle');
const ENV = { ...DB.env, WORKERS: '2' };

let a: ServiceProcess;
let b: ServiceProcess;
/** Rate gates relaxed; the mandates of the lifecycle cases. */
let apiKey: string;
/** Another Principal: every decision is a STEP_UP, step-up policy 'principal'. */
let stepKey: string;

async function decide(via: ServiceProcess, key: string, agentId: string, amount: string, over = {}) {
  const res = await request(via, 'POST', '/api/v1/authorize', {
    apiKey: key,
    body: authorizeBody(agentId, amount, over),
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function agentWithMandate(key: string, extra: Record<string, unknown> = {}) {
  const agent = await request(b, 'POST', '/api/v1/agents', {
    apiKey: key,
    body: { display_name: 'Shopping agent', capabilities: ['PURCHASE'] },
  });
  expect(agent.status, agent.text).toBe(201);
  const m = await request(a, 'POST', '/api/v1/mandates', {
    apiKey: key,
    body: {
      agent_id: agent.body.id,
      valid_until: new Date(Date.now() + 86_400_000).toISOString(),
      max_amount_per_transaction: '20.00',
      ...extra,
    },
  });
  expect(m.status, m.text).toBe(201);
  return { agentId: agent.body.id as string, mandateId: m.body.id as string };
}

beforeAll(async () => {
  a = await startServiceProcess(ENV);
  b = await startServiceProcess(ENV);
  apiKey = (await principalOn(DB, a, { rapid_fire_max_count: 65_535, risk_velocity_max_count: 65_535 })).apiKey;
  const step = await principalOn(DB, a, { authorize_step_up_threshold: 0 });
  stepKey = step.apiKey;
  const policy = await request(b, 'PUT', `/api/v1/principals/${step.principalId}/step-up-policy`, {
    apiKey: stepKey,
    body: { confirmation: 'principal' },
  });
  expect(policy.status, policy.text).toBe(200);
}, 180_000);

afterAll(async () => {
  for (const p of [a, b]) await p?.cleanup();
  await DB.drop();
});

describe('across two instances', () => {
  for (const [name, first, second] of [
    ['A then B', () => a, () => b],
    ['B then A', () => b, () => a],
  ] as const) {
    it(`${name}: an amendment through one is in force for the next decision on the other`, async () => {
      const { agentId, mandateId } = await agentWithMandate(apiKey, { max_daily_amount: '50.00' });
      // Both instances decide first: the owner's actor is warm, with the old cap.
      expect((await decide(first(), apiKey, agentId, '10.00')).decision).toBe('APPROVE');
      expect((await decide(second(), apiKey, agentId, '10.00')).decision).toBe('APPROVE');
      const patch = await request(first(), 'PATCH', `/api/v1/mandates/${mandateId}`, {
        apiKey,
        body: { max_daily_amount: '20.00' },
      });
      expect(patch.status, patch.text).toBe(200);
      const next = await decide(second(), apiKey, agentId, '0.01');
      expect(next.decision).toBe('DECLINE');
      expect(next.reason_codes).toContain('daily_limit_exceeded');
    });

    it(`${name}: a revoke through one declines the next decision on the other`, async () => {
      const { agentId, mandateId } = await agentWithMandate(apiKey);
      expect((await decide(first(), apiKey, agentId, '10.00')).decision).toBe('APPROVE');
      expect((await decide(second(), apiKey, agentId, '10.00')).decision).toBe('APPROVE');
      const revoke = await request(first(), 'POST', `/api/v1/mandates/${mandateId}/revoke`, {
        apiKey,
        body: { reason: 'Trip cancelled' },
      });
      expect(revoke.status, revoke.text).toBe(200);
      const next = await decide(second(), apiKey, agentId, '10.00');
      expect(next.decision).toBe('DECLINE');
      expect(next.reason_codes).toContain('no_active_mandate');
    });

    it(`${name}: a step-up decided on one and confirmed through the other clears the re-submission`, async () => {
      const { agentId } = await agentWithMandate(stepKey);
      const stepped = await decide(first(), stepKey, agentId, '12.00');
      expect(stepped.decision).toBe('STEP_UP');
      const id = stepped.step_up_id as string;
      // Not confirmed yet: still STEP_UP on either instance.
      expect((await decide(second(), stepKey, agentId, '12.00', { step_up_confirmed: true })).step_up_id).toBe(id);
      const ok = await request(second(), 'POST', `/api/v1/step-ups/${id}/confirm`, { apiKey: stepKey, body: {} });
      expect(ok.status, ok.text).toBe(200);
      const approved = await decide(first(), stepKey, agentId, '12.00', { step_up_confirmed: true });
      expect(approved).toMatchObject({ decision: 'APPROVE', step_up_id: id });
      // Used once: the other instance does not approve it again.
      expect((await decide(second(), stepKey, agentId, '12.00', { step_up_confirmed: true })).decision).toBe('STEP_UP');
    });
  }
});
