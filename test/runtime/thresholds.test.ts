import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerFor, newPrincipal, type TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let alice: TestPrincipal;
let bob: TestPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  alice = await newPrincipal(server);
  bob = await newPrincipal(server);
});
afterAll(async () => {
  await server?.close();
});

type View = {
  thresholds: Record<string, number>;
  overrides: Record<string, number>;
  platform_defaults: Record<string, number>;
};

async function view(p: TestPrincipal): Promise<View> {
  const res = await request<View>(server, 'GET', '/api/v1/thresholds', { apiKey: p.apiKey });
  expect(res.status).toBe(200);
  return res.body;
}

async function put(p: TestPrincipal, body: unknown) {
  return request(server, 'PUT', '/api/v1/thresholds', { apiKey: p.apiKey, body });
}

describe('/api/v1/thresholds', () => {
  it('starts at the platform defaults with no overrides', async () => {
    const v = await view(alice);
    expect(v.overrides).toEqual({});
    expect(v.thresholds).toEqual(v.platform_defaults);
    for (const name of [
      'authorize_step_up_threshold',
      'cts_green_threshold',
      'risk_score_hard_decline',
      'verified_min_successful_txns',
    ]) {
      expect(typeof v.platform_defaults[name]).toBe('number');
    }
  });

  it('applies a subset, reports the changed fields and merges later PUTs', async () => {
    const defaults = (await view(alice)).platform_defaults;
    const first = await put(alice, { authorize_step_up_threshold: 0.4, verified_min_successful_txns: 3 });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('updated');
    expect(first.body.fields_changed).toEqual(['authorize_step_up_threshold', 'verified_min_successful_txns']);
    expect(first.body.effective_thresholds).toEqual({
      ...defaults,
      authorize_step_up_threshold: 0.4,
      verified_min_successful_txns: 3,
    });
    const second = await put(alice, { cts_green_threshold: 0.8 });
    expect(second.body.fields_changed).toEqual(['cts_green_threshold']);
    const v = await view(alice);
    expect(v.overrides).toEqual({
      authorize_step_up_threshold: 0.4,
      verified_min_successful_txns: 3,
      cts_green_threshold: 0.8,
    });
    expect(v.thresholds.cts_green_threshold).toBe(0.8);
    expect(v.platform_defaults).toEqual(defaults);
    const same = await put(alice, { cts_green_threshold: 0.8 });
    expect(same.body.fields_changed).toEqual([]);
  });

  it('reverts a field set to null to its default', async () => {
    const res = await put(alice, { authorize_step_up_threshold: null });
    expect(res.status).toBe(200);
    expect(res.body.fields_changed).toEqual(['authorize_step_up_threshold']);
    const v = await view(alice);
    expect(v.overrides.authorize_step_up_threshold).toBeUndefined();
    expect(v.thresholds.authorize_step_up_threshold).toBe(v.platform_defaults.authorize_step_up_threshold);
    expect(v.overrides.verified_min_successful_txns).toBe(3);
  });

  it('rejects unknown fields and bad values with validation_error details, changing nothing', async () => {
    const before = await view(alice);
    const cases: [unknown, string][] = [
      [{ not_a_threshold: 1 }, 'not_a_threshold'],
      [{ cts_green_threshold: 'high' }, 'cts_green_threshold'],
      [{ cts_green_threshold: 1.5 }, 'cts_green_threshold'],
      [{ authorize_step_up_threshold: -0.1 }, 'authorize_step_up_threshold'],
      [{ verified_min_successful_txns: 2.5 }, 'verified_min_successful_txns'],
      [{ risk_score_hard_decline: 0.9, rapid_fire_window_seconds: 0 }, 'rapid_fire_window_seconds'],
    ];
    for (const [body, field] of cases) {
      const env = expectEnvelope(await put(alice, body), 422, 'validation_error');
      expect(
        env.details?.map((d) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expectEnvelope(await put(alice, [1, 2]), 422, 'validation_error');
    expectEnvelope(await put(alice, {}), 400, 'no_fields_to_update');
    expect(await view(alice)).toEqual(before);
  });

  it('rejects cross-field inconsistency with 422 invalid_thresholds, against the stored overrides too', async () => {
    const before = await view(alice);
    // green 0.8 is stored; amber must stay below it.
    const amber = expectEnvelope(await put(alice, { cts_amber_threshold: 0.85 }), 422, 'invalid_thresholds');
    expect(amber.details?.length).toBeGreaterThan(0);
    expect(amber.details?.[0]?.field).toBe('cts_amber_threshold');
    const order = expectEnvelope(
      await put(alice, { cts_green_threshold: 0.3, cts_amber_threshold: 0.4, cts_red_threshold: 0.2 }),
      422,
      'invalid_thresholds',
    );
    expect(JSON.stringify(order.details)).toMatch(/cts_green_threshold/);
    expectEnvelope(await put(alice, { risk_score_hard_decline: 0.3 }), 422, 'invalid_thresholds');
    expect(await view(alice)).toEqual(before);
    // A consistent move of all three at once is accepted.
    const ok = await put(alice, { cts_green_threshold: 0.9, cts_amber_threshold: 0.85, cts_red_threshold: 0.2 });
    expect(ok.status).toBe(200);
  });

  it("keeps each Principal's overrides to itself", async () => {
    const v = await view(bob);
    expect(v.overrides).toEqual({});
    expect(v.thresholds).toEqual(v.platform_defaults);
  });

  it('DELETE removes every override', async () => {
    const res = await request(server, 'DELETE', '/api/v1/thresholds', { apiKey: alice.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('reset');
    expect(typeof res.body.message).toBe('string');
    const v = await view(alice);
    expect(v.overrides).toEqual({});
    expect(v.thresholds).toEqual(v.platform_defaults);
    const again = await request(server, 'DELETE', '/api/v1/thresholds', { apiKey: alice.apiKey });
    expect(again.body.status).toBe('reset');
  });

  it('works with a Bearer token and refuses no credential', async () => {
    const token = await bearerFor(server, bob);
    const res = await request(server, 'PUT', '/api/v1/thresholds', {
      bearer: token,
      body: { step_up_window_seconds: 600 },
    });
    expect(res.status).toBe(200);
    const v = await request<View>(server, 'GET', '/api/v1/thresholds', { bearer: token });
    expect(v.body.overrides).toEqual({ step_up_window_seconds: 600 });
    expectEnvelope(await request(server, 'GET', '/api/v1/thresholds'), 401, 'unauthorized');
  });
});
