// The bench's per-stage breakdown (bench/report/server-timing.ts): a sampler sends requests of
// the mix now and then on a connection of its own, reads their Server-Timing header and prints
// each stage's percentiles; it counts its answers so the bench's comparison with the server's
// own counters stays exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, inDays, newPrincipal } from '../fixtures/runtime-principal.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const DIST = `../../${process.env.DIST_DIR ?? 'dist'}/bench`;
const { sampleServerTiming, parseServerTiming } = (await import(
  `${DIST}/report/server-timing.js`
)) as typeof import('../../bench/report/server-timing.js');
const { buildRequest } = (await import(
  `${DIST}/load/connection.js`
)) as typeof import('../../bench/load/connection.js');
const { classifyDecision } = (await import(
  `${DIST}/scenarios/authorize-mix.js`
)) as typeof import('../../bench/scenarios/authorize-mix.js');

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function authorizeRequests(): Promise<number> {
  const res = await request(server, 'GET', '/metrics', { adminKey: server.adminKey });
  let n = 0;
  for (const line of res.text.split('\n')) {
    if (line.startsWith('asas_http_requests_total{') && line.includes('route="/api/v1/authorize"'))
      n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}

describe('bench Server-Timing sampler', () => {
  it('parses a header', () => {
    expect(parseServerTiming('edge;dur=0.041, queue;dur=1.2, gate-risk;dur=0, total;desc="x";dur=3')).toEqual([
      ['edge', 0.041],
      ['queue', 1.2],
      ['gate-risk', 0],
      ['total', 3],
    ]);
  });

  it('prints the stages of sampled answers and counts them by decision', async () => {
    const p = await newPrincipal(server);
    const agent = (await createAgent(server, p)).id as string;
    const m = await request(server, 'POST', '/api/v1/mandates', {
      apiKey: p.apiKey,
      body: { agent_id: agent, valid_until: inDays(3), max_amount_per_transaction: '100.00' },
    });
    expect(m.status, m.text).toBe(201);
    const { hostname, port, host } = new URL(server.url);
    let i = 0;
    const next = () => {
      i++;
      const body = {
        agent_id: agent,
        amount: i % 3 === 0 ? '500.00' : '5.00',
        currency: 'USD',
        merchant_name: 'Corner Grocer',
        mcc: '5411',
        intent_context: { intent_type: 'purchase', task_reference: 'groceries' },
      };
      const bytes = buildRequest('POST', host, '/api/v1/authorize', { 'x-api-key': p.apiKey }, JSON.stringify(body));
      return { kind: i % 3 === 0 ? 'over_limit' : 'approve', bytes };
    };
    const before = await authorizeRequests();
    const sampler = sampleServerTiming(hostname, Number(port), next, classifyDecision, 50);
    await new Promise((r) => setTimeout(r, 1500));
    const out = await sampler.stop();
    const sent = Object.values(out.counts).reduce((a, b) => a + b, 0);
    expect(sent).toBeGreaterThanOrEqual(3);
    expect(await authorizeRequests()).toBe(before + sent);
    expect(out.counts.DECLINE).toBeGreaterThan(0);
    expect((out.counts.APPROVE ?? 0) + (out.counts.STEP_UP ?? 0)).toBeGreaterThan(0);
    expect(out.stages.total?.n).toBe(sent);
    expect(out.stages.edge?.n).toBe(sent);
    expect(out.stages['gate-mandate']?.n).toBe(sent);
    // The over-limit requests stop at the mandate: the risk stage is reached by the others only.
    expect(out.stages['gate-risk']?.n).toBeLessThan(sent);
    const total = out.stages.total as { p50: number; p99: number };
    expect(total.p50).toBeLessThanOrEqual(total.p99);
    expect(out.text).toMatch(/^Server-Timing of \d+ sampled \/authorize answers/);
    for (const stage of ['edge', 'queue', 'gate-mandate', 'gate-risk', 'record', 'sign', 'commit', 'total'])
      expect(out.text).toContain(stage);
  });
});
