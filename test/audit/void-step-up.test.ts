// A STEP_UP voided (src/audit/voids.ts, docs/engine-durability.md "Voids"): the agent was
// answered the safe DECLINE system_unavailable and never saw the step-up, so under the
// 'principal' policy its confirmation ends with the void: the Principal's credential can no
// longer confirm it, its e-mail is not sent, and the agent's reload does not hold it open. The
// void is made here directly on a STEP_UP the service recorded (the drill that makes the late
// commit on purpose, test/drills/in-doubt-void.test.ts, voids APPROVEs).
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voidAnswered } from '../../src/audit/voids.js';
import { agentWith, decide, principal } from '../fixtures/holds.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { onceMore } from '../fixtures/test-db.js';

let server: TestServer;
let sql: postgres.Sql;
let p: TestPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  sql = postgres(server.dbUrls.live, { max: 1, onnotice: () => {} });
  p = await principal(server);
  // Every decision a STEP_UP, under the 'principal' policy (its address registered).
  const t = await request(server, 'PUT', '/api/v1/thresholds', {
    apiKey: p.apiKey,
    body: { authorize_step_up_threshold: 0 },
  });
  expect(t.status, t.text).toBe(200);
  const channel = await request(server, 'PUT', `/api/v1/principals/${p.principalId}/confirmation-channel`, {
    apiKey: p.apiKey,
    body: { email: `${p.principalId.toLowerCase()}@example.test` },
  });
  expect(channel.status, channel.text).toBe(200);
  const policy = await request(server, 'PUT', `/api/v1/principals/${p.principalId}/step-up-policy`, {
    apiKey: p.apiKey,
    body: { confirmation: 'principal' },
  });
  expect(policy.status, policy.text).toBe(200);
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await server?.close();
});

interface StepUpState {
  expired: boolean;
  notify_status: string;
  status: string;
}

async function stepUpRow(id: string): Promise<StepUpState | undefined> {
  const [row] = await onceMore(
    () =>
      sql<StepUpState[]>`select expires_at <= now() as expired, notify_status, status from step_ups where id = ${id}`,
  );
  return row;
}

describe('a voided STEP_UP', () => {
  it('ends its confirmation: expired, not e-mailed, not confirmable; another STEP_UP is untouched', async () => {
    const { agentId } = await agentWith(server, p, {});
    const voided = await decide(server, p, agentId, '12.00');
    const kept = await decide(server, p, agentId, '13.00');
    for (const res of [voided, kept]) expect(res.decision, JSON.stringify(res)).toBe('STEP_UP');
    const id = voided.step_up_id as string;
    expect(id).toMatch(/^stp_/);
    expect(await stepUpRow(id)).toMatchObject({ expired: false, status: 'PENDING' });

    const n = await onceMore(() =>
      voidAnswered(sql, [
        {
          id: voided.authorization_id as string,
          clientId: p.clientId,
          principalId: p.principalId,
          agentId,
          decision: 'STEP_UP',
        },
      ]),
    );
    expect(n).toBe(1);

    const after = await stepUpRow(id);
    expect(after).toMatchObject({ expired: true, status: 'PENDING' });
    expect(after?.notify_status).not.toBe('pending');
    const confirm = await request(server, 'POST', `/api/v1/step-ups/${id}/confirm`, { apiKey: p.apiKey, body: {} });
    expect(confirm.status, confirm.text).toBe(409);
    expect(confirm.body).toMatchObject({ error: 'step_up_expired' });

    // The other STEP_UP of the agent is still open, and the Principal confirms it.
    expect(await stepUpRow(kept.step_up_id as string)).toMatchObject({ expired: false, status: 'PENDING' });
    const other = await request(server, 'POST', `/api/v1/step-ups/${kept.step_up_id as string}/confirm`, {
      apiKey: p.apiKey,
      body: {},
    });
    expect(other.status, other.text).toBe(200);
  });
});
