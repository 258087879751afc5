// Every webhook event type, produced by real decisions through POST /api/v1/authorize (the
// engine writes them to the outbox in the commit of the decision), arrives at a real receiver
// with valid signatures and the data fields of SPEC.md "data by type".
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, query, setup } from '../fixtures/engine-setup.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { type ReceivedRequest, type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

/** The SPEC.md fields of each type's data (step_up.created: "payload not shown"; ours is documented). */
const FIELDS: Record<string, string[]> = {
  'gate.fired': [
    'agent_id',
    'authorization_id',
    'gate',
    'decision',
    'amount',
    'currency',
    'merchant',
    'trust_score',
    'risk_score',
  ],
  'authorization.decline': [
    'agent_id',
    'authorization_id',
    'amount',
    'currency',
    'merchant',
    'gates_fired',
    'trust_score',
    'risk_score',
    'recommendations',
  ],
  'cts.red': ['agent_id', 'previous_zone', 'current_zone', 'trust_score', 'cognitive_limit_multiplier', 'dimensions'],
  'cts.critical': [
    'agent_id',
    'previous_zone',
    'current_zone',
    'trust_score',
    'cognitive_limit_multiplier',
    'dimensions',
  ],
  'session.terminate': ['agent_id', 'session_id', 'reason', 'consecutive_denials', 'final_trust_score'],
  'trust.promotion': ['agent_id', 'previous_tier', 'new_tier', 'trust_score', 'successful_txns', 'age_hours'],
  'step_up.created': ['agent_id', 'authorization_id', 'amount', 'currency', 'merchant', 'gates_fired'],
};

interface Hooked extends EngineFixture {
  secret: string;
  path: string;
}

async function hooked(path: string): Promise<Hooked> {
  const fx = await setup(server);
  const res = await request(server, 'POST', '/api/v1/webhooks', {
    apiKey: fx.apiKey,
    body: { url: `${receiver.url}${path}`, event_types: ['*'] },
  });
  expect(res.status).toBe(201);
  return { ...fx, secret: res.body.signing_secret as string, path };
}

async function thresholds(fx: EngineFixture, body: Record<string, unknown>): Promise<void> {
  const res = await request(server, 'PUT', '/api/v1/thresholds', { apiKey: fx.apiKey, body });
  expect(res.status, res.text).toBe(200);
}

async function eventsOf(fx: Hooked, type: string, n = 1): Promise<Record<string, unknown>[]> {
  const got = await receiver.waitFor(n, 10_000, (r) => r.path === fx.path && JSON.parse(r.body).event_type === type);
  for (const r of got) expectSigned(r, fx.secret);
  return got.map((r) => JSON.parse(r.body) as Record<string, unknown>);
}

function expectSigned(r: ReceivedRequest, secret: string): void {
  expect(r.headers['x-mandate-signature']).toBe(createHmac('sha256', secret).update(r.body).digest('hex'));
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key)
    .update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`)
    .digest('base64');
  expect(r.headers['webhook-signature']).toBe(`v1,${mac}`);
}

function expectShape(event: Record<string, unknown>, type: string, agentId: string): Record<string, unknown> {
  expect(event.event_type).toBe(type);
  expect(event.event_id).toMatch(/^evt_/);
  expect(event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  const data = event.data as Record<string, unknown>;
  for (const f of FIELDS[type] as string[]) expect(data, `${type}.${f}`).toHaveProperty(f);
  expect(data.agent_id).toBe(agentId);
  return data;
}

describe('events from POST /authorize', () => {
  it('a mandate decline fires gate.fired and authorization.decline; repeated declines terminate the session', async () => {
    const fx = await hooked('/decline');
    for (let i = 0; i < 3; i++) {
      const res = await authorize(
        server,
        fx.apiKey,
        authorizeBody(fx.agentId, { amount: '300.00', session_id: 'sess_1' }),
      );
      expect(res.body.decision).toBe('DECLINE');
    }
    const [gate] = await eventsOf(fx, 'gate.fired');
    const g = expectShape(gate as Record<string, unknown>, 'gate.fired', fx.agentId);
    expect(g).toMatchObject({ gate: 'mandate_exceeded', decision: 'DECLINE', currency: 'USD' });
    expect(Number(g.amount)).toBe(300);
    expect(typeof g.amount).toBe('string');
    const [decline] = await eventsOf(fx, 'authorization.decline');
    const d = expectShape(decline as Record<string, unknown>, 'authorization.decline', fx.agentId);
    expect(d.gates_fired).toContain('mandate_exceeded');
    expect(Array.isArray(d.recommendations)).toBe(true);
    const [term] = await eventsOf(fx, 'session.terminate');
    const t = expectShape(term as Record<string, unknown>, 'session.terminate', fx.agentId);
    expect(t).toMatchObject({ session_id: 'sess_1' });
    expect(Number.isInteger(t.consecutive_denials)).toBe(true);
  });

  it('an approval that meets the promotion criteria fires trust.promotion', async () => {
    const fx = await hooked('/promote');
    await thresholds(fx, { verified_min_successful_txns: 1, verified_min_age_hours: 0 });
    const res = await authorize(server, fx.apiKey, authorizeBody(fx.agentId));
    expect(res.body.decision).toBe('APPROVE');
    const [promo] = await eventsOf(fx, 'trust.promotion');
    const p = expectShape(promo as Record<string, unknown>, 'trust.promotion', fx.agentId);
    expect(p).toMatchObject({ previous_tier: 'new', new_tier: 'verified' });
    expect(Number.isInteger(p.successful_txns)).toBe(true);
    expect(typeof p.age_hours).toBe('number');
    // The agent's row was updated in the decision's own commit (the batch's agent updates).
    const [row] = await query(
      server,
      'live',
      (sql) => sql<{ trust_level: string; kya_score: string | null }[]>`
        select trust_level, kya_score::text from agents where id = ${fx.agentId}`,
    );
    expect(row?.trust_level).toBe('VERIFIED');
    expect(row?.kya_score).not.toBeNull();
  });

  it('a STEP_UP decision fires step_up.created', async () => {
    const fx = await hooked('/stepup');
    await thresholds(fx, { authorize_step_up_threshold: 0 });
    const res = await authorize(server, fx.apiKey, authorizeBody(fx.agentId));
    expect(res.body.decision, res.text).toBe('STEP_UP');
    const [step] = await eventsOf(fx, 'step_up.created');
    const s = expectShape(step as Record<string, unknown>, 'step_up.created', fx.agentId);
    expect(s.authorization_id).toBe(res.body.authorization_id);
  });

  it('a zone change into RED fires cts.red, into CRITICAL cts.critical', async () => {
    const fx = await hooked('/cts-red');
    await thresholds(fx, { cts_green_threshold: 0.999, cts_amber_threshold: 0.998, cts_red_threshold: 0.001 });
    expect((await authorize(server, fx.apiKey, authorizeBody(fx.agentId))).status).toBe(200);
    const [r] = await eventsOf(fx, 'cts.red');
    const rd = expectShape(r as Record<string, unknown>, 'cts.red', fx.agentId);
    expect(rd).toMatchObject({ previous_zone: 'GREEN', current_zone: 'RED' });
    expect(Object.keys(rd.dimensions as object).sort()).toEqual([
      'behavioral_consistency',
      'context_coherence',
      'mandate_compliance',
      'reasoning_quality',
      'temporal_stability',
    ]);
    const fc = await hooked('/cts-critical');
    await thresholds(fc, { cts_green_threshold: 0.999, cts_amber_threshold: 0.998, cts_red_threshold: 0.997 });
    expect((await authorize(server, fc.apiKey, authorizeBody(fc.agentId))).status).toBe(200);
    const [c] = await eventsOf(fc, 'cts.critical');
    expect(expectShape(c as Record<string, unknown>, 'cts.critical', fc.agentId)).toMatchObject({
      current_zone: 'CRITICAL',
    });
  });
});
