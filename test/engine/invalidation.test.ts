// Changes made through the runtime API reach the owning actor before its next decision:
// a suspension declines the very next authorization, reactivation approves again, and a
// threshold override changes the next decision of every agent of the Principal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, setup } from '../fixtures/engine-setup.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let f: EngineFixture;

beforeAll(async () => {
  server = await startTestServer();
  f = await setup(server);
});
afterAll(async () => {
  await server?.close();
});

async function setStatus(status: string): Promise<void> {
  const res = await request(server, 'PATCH', `/api/v1/agents/${f.agentId}/status`, {
    apiKey: f.apiKey,
    body: { status, reason: 'engine invalidation test' },
  });
  expect(res.status, res.text).toBe(200);
}

describe('invalidation of warm actors', () => {
  it('declines the next decision after a suspension and approves again after reactivation', async () => {
    expect((await authorize(server, f.apiKey, authorizeBody(f.agentId))).body.decision).toBe('APPROVE');
    await setStatus('SUSPENDED');
    const suspended = await authorize(server, f.apiKey, authorizeBody(f.agentId));
    expect(suspended.body.decision).toBe('DECLINE');
    expect(suspended.body.reason_codes).toContain('agent_inactive');
    await setStatus('ACTIVE');
    expect((await authorize(server, f.apiKey, authorizeBody(f.agentId))).body.decision).toBe('APPROVE');
  });

  it('applies a new threshold override to the next decision and counts earlier decisions', async () => {
    // The actor is warm and has decided three times in the last seconds.
    const put = await request(server, 'PUT', '/api/v1/thresholds', {
      apiKey: f.apiKey,
      body: { rapid_fire_max_count: 3, rapid_fire_window_seconds: 3600 },
    });
    expect(put.status, put.text).toBe(200);
    const next = await authorize(server, f.apiKey, authorizeBody(f.agentId));
    expect(next.body.decision).toBe('DECLINE');
    expect(next.body.gates_fired).toContain('risk_rapid_fire');
    const reset = await request(server, 'DELETE', '/api/v1/thresholds', { apiKey: f.apiKey });
    expect(reset.status).toBe(200);
    expect((await authorize(server, f.apiKey, authorizeBody(f.agentId))).body.decision).toBe('APPROVE');
  });
});
