// Server-Timing on POST /authorize: per stage (edge, queue,
// each gate the pipeline reached, record, receipt signature, commit) and the total, which is
// the answer's processing_time_ms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, inDays, newPrincipal, type TestPrincipal } from '../fixtures/runtime-principal.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let p: TestPrincipal;
let agent: string;

beforeAll(async () => {
  server = await startTestServer();
  p = await newPrincipal(server);
  agent = (await createAgent(server, p)).id as string;
  const res = await request(server, 'POST', '/api/v1/mandates', {
    apiKey: p.apiKey,
    body: { agent_id: agent, valid_until: inDays(30), max_amount_per_transaction: '100.00' },
  });
  expect(res.status, res.text).toBe(201);
});
afterAll(async () => {
  await server?.close();
});

function body(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    agent_id: agent,
    amount: '10.00',
    currency: 'USD',
    merchant_name: 'Corner Grocer',
    mcc: '5411',
    country: 'US',
    intent_context: { intent_type: 'purchase', task_reference: 'weekly groceries' },
    ...over,
  };
}

/** The header as [name, ms] pairs, in order; every entry must be `name;dur=<ms>`. */
function parse(header: string | null): [string, number][] {
  expect(header).not.toBeNull();
  return (header as string).split(', ').map((entry) => {
    const m = /^([a-z-]+);dur=(\d+(?:\.\d+)?)$/.exec(entry);
    expect(m, entry).not.toBeNull();
    return [m?.[1] as string, Number(m?.[2])];
  });
}

/** A decision (a safe DECLINE from a cold actor on this busy machine is retried: it has no stages). */
async function decide(b: Record<string, unknown>) {
  for (let attempt = 0; ; attempt++) {
    const res = await request(server, 'POST', '/api/v1/authorize', { apiKey: p.apiKey, body: b });
    expect(res.status, res.text).toBe(200);
    if (res.text.includes('"system_unavailable"') && attempt < 20) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    return res;
  }
}

describe('Server-Timing on POST /authorize', () => {
  it('gives every stage of an approval, and the total is processing_time_ms', async () => {
    const res = await decide(body());
    expect(res.body.decision).toBe('APPROVE');
    const t = parse(res.headers.get('server-timing'));
    expect(t.map(([n]) => n)).toEqual([
      'edge',
      'queue',
      'gate-mandate',
      'gate-risk',
      'gate-intent',
      'gate-trust',
      'record',
      'sign',
      'commit',
      'total',
    ]);
    const ms = Object.fromEntries(t);
    expect(ms.total).toBe(res.body.processing_time_ms);
    const parts = t.filter(([n]) => n !== 'total').reduce((s, [, v]) => s + v, 0);
    // Each part is rounded to a microsecond; the parts cover the request up to the answer.
    expect(parts).toBeLessThanOrEqual((ms.total as number) + 0.01);
    expect(parts).toBeGreaterThan((ms.total as number) * 0.5);
    expect(ms.commit).toBeGreaterThan(0);
  });

  it('lists only the gates the pipeline reached', async () => {
    const res = await decide(body({ amount: '150.00' }));
    expect(res.body.reason_codes).toContain('per_transaction_limit_exceeded');
    const names = parse(res.headers.get('server-timing')).map(([n]) => n);
    expect(names).toEqual(['edge', 'queue', 'gate-mandate', 'record', 'sign', 'commit', 'total']);
  });

  it('an idempotent replay has no stages of its own; the dry run has no header', async () => {
    const b = body({ idempotency_key: `st-${Date.now()}` });
    await decide(b);
    const again = await decide(b);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(parse(again.headers.get('server-timing')).map(([n]) => n)).toEqual(['edge', 'queue', 'total']);
    const explain = await request(server, 'POST', '/api/v1/authorize/explain', { apiKey: p.apiKey, body: body() });
    expect(explain.status).toBe(200);
    expect(explain.headers.get('server-timing')).toBeNull();
  });
});
