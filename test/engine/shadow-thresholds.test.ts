// Shadow thresholds (issue 17): a Principal's second set of thresholds is evaluated on live
// traffic without effect, each log entry shows the shadow decision next to the real one, and
// GET /thresholds/shadow/report summarises where they differ. Principal S decides the traffic
// under T1 with T1 + PATCH as its shadow; Principal B decides the same traffic with T1 + PATCH
// in force: S's shadow decisions must be B's real ones, S's real decisions unaffected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAgentWithMandate } from '../fixtures/engine-setup.js';
import { newPrincipal, type TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectSchema } from '../fixtures/schemas.js';
import { expectEnvelope, type HttpResult, request, startTestServer, type TestServer } from '../fixtures/server.js';
import {
  authorizeRecorded,
  type Decided,
  gateCounts,
  PATCH,
  sendTraffic,
  T1,
  TRAFFIC,
  transitionsOf,
} from '../fixtures/threshold-traffic.js';

let server: TestServer;
let s: TestPrincipal;
let a: TestPrincipal;
let b: TestPrincipal;
let real: Decided[];
let plain: Decided[];
let underT2: Decided[];
let from: string;
let to: string;

function call(p: TestPrincipal, method: string, path: string, body?: unknown): Promise<HttpResult> {
  return request(server, method, path, { apiKey: p.apiKey, ...(body === undefined ? {} : { body }) });
}

async function put(p: TestPrincipal, path: string, body: Record<string, unknown>): Promise<HttpResult> {
  const res = await call(p, 'PUT', path, body);
  expect(res.status, res.text).toBe(200);
  return res;
}

beforeAll(async () => {
  server = await startTestServer();
  [s, a, b] = [await newPrincipal(server), await newPrincipal(server), await newPrincipal(server)];
  from = new Date(Date.now() - 60_000).toISOString();
  for (const p of [s, a]) await put(p, '/api/v1/thresholds', T1);
  await put(b, '/api/v1/thresholds', { ...T1, ...PATCH });
  const set = await put(s, '/api/v1/thresholds/shadow', PATCH);
  expectSchema('ShadowThresholdsUpdateResponse', set.body);
  expect(set.body.fields_changed).toEqual(Object.keys(PATCH).sort());
  real = await sendTraffic(server, s, 'S');
  plain = await sendTraffic(server, a, 'A');
  underT2 = await sendTraffic(server, b, 'B');
  to = new Date(Date.now() + 60_000).toISOString();
}, 180_000);
afterAll(async () => {
  await server?.close();
});

describe('shadow thresholds', () => {
  it('shows the shadow set in force over the live thresholds', async () => {
    const res = await call(s, 'GET', '/api/v1/thresholds/shadow');
    expect(res.status, res.text).toBe(200);
    expectSchema('ShadowThresholdsView', res.body);
    expect(res.body.active).toBe(true);
    expect(res.body.overrides).toEqual(PATCH);
    expect(res.body.thresholds).toEqual(PATCH);
    expect((res.body.live_thresholds as Record<string, number>).risk_score_hard_decline).toBe(
      T1.risk_score_hard_decline,
    );
    const none = await call(a, 'GET', '/api/v1/thresholds/shadow');
    expect(none.body).toMatchObject({ active: false, overrides: {}, thresholds: null, updated_at: null });
  });

  it('has no effect on the real decisions', () => {
    expect(real.map((d) => [d.decision, [...d.gates].sort()])).toEqual(
      plain.map((d) => [d.decision, [...d.gates].sort()]),
    );
  });

  it('logs the shadow decision next to the real one: the decision the shadow thresholds make live', async () => {
    let differing = 0;
    for (const [i, d] of real.entries()) {
      const res = await call(s, 'GET', `/api/v1/authorize/log/${d.id}`);
      expect(res.status, res.text).toBe(200);
      expectSchema('AuthorizationLogEntry', res.body);
      const keys = Object.keys(res.body);
      expect(keys.indexOf('shadow_decision')).toBe(keys.indexOf('decision') + 1);
      expect(res.body.decision).toBe(d.decision);
      const t2 = underT2[i] as Decided;
      expect(res.body.shadow_decision, `request ${i}`).toBe(t2.decision);
      expect([...(res.body.shadow_gates_fired as string[])].sort(), `request ${i}`).toEqual([...t2.gates].sort());
      expect(res.body.shadow_thresholds_version).toMatch(/^thr_[0-9a-f]{8}$/);
      if (res.body.shadow_decision !== res.body.decision) differing++;
    }
    expect(differing).toBeGreaterThan(0);
    const without = await call(a, 'GET', `/api/v1/authorize/log/${plain[0]?.id}`);
    expect(without.body.shadow_decision).toBeNull();
    expect(without.body.shadow_gates_fired).toBeNull();
  });

  it('reports where they differ: transitions, gates and samples as decided live', async () => {
    const res = await call(s, 'GET', `/api/v1/thresholds/shadow/report?from=${from}&to=${to}`);
    expect(res.status, res.text).toBe(200);
    expectSchema('ShadowReport', res.body);
    expect(res.body.evaluated).toBe(TRAFFIC.length);
    expect(res.body.stopped).toBe('complete');
    const expected = transitionsOf(real.map((d, i) => [d, underT2[i] as Decided]));
    const got = new Map(
      (res.body.transitions as { from: string; to: string; count: number; sample_ids: string[] }[]).map((t) => [
        `${t.from}>${t.to}`,
        t,
      ]),
    );
    expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, e] of expected) {
      expect(got.get(key)?.count, key).toBe(e.count);
      expect(got.get(key)?.sample_ids, key).toEqual(e.ids);
    }
    const before = gateCounts(real);
    const after = gateCounts(underT2);
    for (const g of res.body.gates as { gate: string; before: number; after: number }[]) {
      expect({ before: g.before, after: g.after }, g.gate).toEqual({
        before: before[g.gate] ?? 0,
        after: after[g.gate] ?? 0,
      });
    }
    // The same numbers as a backtest of the same thresholds over the same range.
    const bt = await call(s, 'POST', '/api/v1/thresholds/backtest', { overrides: PATCH, from, to });
    for (const k of ['evaluated', 'changed', 'gates_changed', 'transitions', 'gates'])
      expect(bt.body[k], k).toEqual(res.body[k]);
    // Paged.
    const page = await call(s, 'GET', `/api/v1/thresholds/shadow/report?from=${from}&to=${to}&limit=5`);
    expect(page.body.evaluated).toBe(5);
    expect(page.body.stopped).toBe('row_limit');
    const rest = await call(
      s,
      'GET',
      `/api/v1/thresholds/shadow/report?from=${from}&to=${to}&limit=100&cursor=${page.body.next_cursor}`,
    );
    expect(rest.body.evaluated).toBe(TRAFFIC.length - 5);
    expect((page.body.changed as number) + (rest.body.changed as number)).toBe(res.body.changed);
    // Another Principal's report sees none of it.
    const other = await call(a, 'GET', `/api/v1/thresholds/shadow/report?from=${from}&to=${to}`);
    expect(other.body.evaluated).toBe(0);
  });

  it('reaches a warm actor at once, and stops when removed', async () => {
    const p = await newPrincipal(server);
    const agentId = await addAgentWithMandate(server, p.apiKey, 'warm', { perTransaction: '100.00', daily: '1000.00' });
    const body = {
      agent_id: agentId,
      amount: '10.00',
      currency: 'USD',
      merchant_name: 'Warm Grocery',
      mcc: '5411',
      intent_context: { intent_type: 'groceries', task_reference: 'weekly' },
    };
    const first = await authorizeRecorded(server, p.apiKey, body);
    expect(first.body.decision).toBe('APPROVE');
    const shadowOf = async (id: unknown) => (await call(p, 'GET', `/api/v1/authorize/log/${id}`)).body.shadow_decision;
    expect(await shadowOf(first.body.authorization_id)).toBeNull();
    // Every request steps up under the shadow set: a step-up threshold of 0 (hard decline 1).
    const setOne = await put(p, '/api/v1/thresholds/shadow', {
      authorize_step_up_threshold: 0,
      risk_score_hard_decline: 1,
    });
    expect(setOne.body.fields_changed).toEqual(['authorize_step_up_threshold', 'risk_score_hard_decline']);
    const second = await authorizeRecorded(server, p.apiKey, body);
    expect(second.body.decision).toBe('APPROVE');
    expect(await shadowOf(second.body.authorization_id)).toBe('STEP_UP');
    // null removes one field; the set stays active with the other.
    const patched = await put(p, '/api/v1/thresholds/shadow', { risk_score_hard_decline: null });
    expect(patched.body.fields_changed).toEqual(['risk_score_hard_decline']);
    expect(patched.body.overrides).toEqual({ authorize_step_up_threshold: 0 });
    const del = await call(p, 'DELETE', '/api/v1/thresholds/shadow');
    expect(del.status, del.text).toBe(200);
    expect(del.body.status).toBe('reset');
    const third = await authorizeRecorded(server, p.apiKey, body);
    expect(await shadowOf(third.body.authorization_id)).toBeNull();
    // Both changes are in the security log, with what changed.
    const log = async (action: string) =>
      (
        await request<{ items: { target: { id: string }; changes: Record<string, unknown> }[] }>(
          server,
          'GET',
          `/admin/v1/security-log?action=${action}`,
          { adminKey: server.adminKey },
        )
      ).body.items.filter((e) => e.target.id === p.principalId);
    expect((await log('thresholds.shadow_updated')).map((e) => e.changes.fields_changed)).toEqual([
      ['risk_score_hard_decline'],
      ['authorize_step_up_threshold', 'risk_score_hard_decline'],
    ]);
    expect((await log('thresholds.shadow_reset'))[0]?.changes).toEqual({
      removed_shadow_overrides: { authorize_step_up_threshold: 0 },
    });
    // A reset of the live thresholds leaves a shadow set in place.
    await put(p, '/api/v1/thresholds/shadow', { authorize_step_up_threshold: 0 });
    expect((await call(p, 'DELETE', '/api/v1/thresholds')).status).toBe(200);
    expect((await call(p, 'GET', '/api/v1/thresholds/shadow')).body.active).toBe(true);
  });

  it('refuses what it cannot evaluate without effect, and inconsistent sets', async () => {
    const p = await newPrincipal(server);
    const notReplayable = await call(p, 'PUT', '/api/v1/thresholds/shadow', { rapid_fire_max_count: 5 });
    expectEnvelope(notReplayable, 422, 'validation_error');
    expect(notReplayable.text).toContain('rapid_fire_max_count');
    const range = await call(p, 'PUT', '/api/v1/thresholds/shadow', { cts_red_threshold: -1 });
    expectEnvelope(range, 422, 'validation_error');
    const order = await call(p, 'PUT', '/api/v1/thresholds/shadow', { cts_amber_threshold: 0.9 });
    expectEnvelope(order, 422, 'invalid_thresholds');
    const empty = await call(p, 'PUT', '/api/v1/thresholds/shadow', {});
    expectEnvelope(empty, 400, 'no_fields_to_update');
    const backwards = await call(p, 'GET', `/api/v1/thresholds/shadow/report?from=${to}&to=${from}`);
    expectEnvelope(backwards, 422, 'validation_error');
    const badLimit = await call(p, 'GET', '/api/v1/thresholds/shadow/report?limit=0');
    expectEnvelope(badLimit, 422, 'validation_error');
    expect((await call(p, 'GET', '/api/v1/thresholds/shadow')).body.active).toBe(false);
  });
});
