// A STEP_UP voided (src/audit/voids.ts, docs/engine-durability.md "Voids"): the agent was
// answered the safe DECLINE system_unavailable and never saw the step-up, so under the
// 'principal' policy its confirmation ends with the void: the Principal's credential can no
// longer confirm it, the notifier sends no e-mail for it, and the agent's reload does not hold
// it open; unless a later decision that stands was answered with the same step-up. The void is
// made here directly on STEP_UPs the service recorded (the drill that makes the late commit on
// purpose, test/drills/in-doubt-void.test.ts, voids APPROVEs).
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voidAnswered } from '../../src/audit/voids.js';
import { loadAgentState } from '../../src/decision/load.js';
import { agentWith, decide, principal } from '../fixtures/holds.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { onceMore, withDb } from '../fixtures/test-db.js';

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
  status: string;
}

async function stepUpRow(id: string): Promise<StepUpState | undefined> {
  const [row] = await onceMore(
    () => sql<StepUpState[]>`select expires_at <= now() as expired, status from step_ups where id = ${id}`,
  );
  return row;
}

function voidStepUp(agentId: string, res: Record<string, unknown>): Promise<number> {
  return onceMore(() =>
    voidAnswered(sql, [
      {
        id: res.authorization_id as string,
        clientId: p.clientId,
        principalId: p.principalId,
        agentId,
        decision: 'STEP_UP',
      },
    ]),
  );
}

/** The step-ups a reload of the agent holds open (the load reads the step_ups rows). */
async function openOnReload(agentId: string): Promise<(string | null)[]> {
  const state = await withDb(server, 'live', (db) => loadAgentState(db as never, agentId, Date.now()));
  return (state?.pendingStepUps ?? []).map((x) => x.stepUpId);
}

function confirm(id: string) {
  return request(server, 'POST', `/api/v1/step-ups/${id}/confirm`, { apiKey: p.apiKey, body: {} });
}

describe('a voided STEP_UP', () => {
  it('ends its confirmation: expired, not confirmable, not open on reload; another STEP_UP is untouched', async () => {
    const { agentId } = await agentWith(server, p, {});
    const voided = await decide(server, p, agentId, '12.00');
    const kept = await decide(server, p, agentId, '13.00');
    for (const res of [voided, kept]) expect(res.decision, JSON.stringify(res)).toBe('STEP_UP');
    const id = voided.step_up_id as string;
    const other = kept.step_up_id as string;
    expect(id).toMatch(/^stp_/);
    expect(await stepUpRow(id)).toMatchObject({ expired: false, status: 'PENDING' });
    expect((await openOnReload(agentId)).sort()).toEqual([id, other].sort());

    expect(await voidStepUp(agentId, voided)).toBe(1);

    expect(await stepUpRow(id)).toMatchObject({ expired: true, status: 'PENDING' });
    const refused = await confirm(id);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({ error: 'step_up_expired' });
    expect(await openOnReload(agentId)).toEqual([other]);

    // The other STEP_UP of the agent is still open, and the Principal confirms it.
    expect(await stepUpRow(other)).toMatchObject({ expired: false, status: 'PENDING' });
    const confirmed = await confirm(other);
    expect(confirmed.status, confirmed.text).toBe(200);
  });

  it('stays open while a later decision that stands was answered with it (the same request again)', async () => {
    const { agentId } = await agentWith(server, p, {});
    const first = await decide(server, p, agentId, '14.00');
    const again = await decide(server, p, agentId, '14.00');
    expect(again.decision, JSON.stringify(again)).toBe('STEP_UP');
    const id = first.step_up_id as string;
    expect(again.step_up_id).toBe(id);

    // The first voided: the agent holds the step-up from the second answer, so it stays open.
    expect(await voidStepUp(agentId, first)).toBe(1);
    expect(await stepUpRow(id)).toMatchObject({ expired: false, status: 'PENDING' });

    // Both voided: nobody was answered with it.
    expect(await voidStepUp(agentId, again)).toBe(1);
    expect(await stepUpRow(id)).toMatchObject({ expired: true, status: 'PENDING' });
  });

  it('stays open while the decision that opened it stands, when the same request again is voided', async () => {
    const { agentId } = await agentWith(server, p, {});
    const first = await decide(server, p, agentId, '15.00');
    const again = await decide(server, p, agentId, '15.00');
    const id = first.step_up_id as string;
    expect(again.step_up_id).toBe(id);
    expect(await voidStepUp(agentId, again)).toBe(1);
    expect(await stepUpRow(id)).toMatchObject({ expired: false, status: 'PENDING' });
    expect(await openOnReload(agentId)).toEqual([id]);
  });
});
