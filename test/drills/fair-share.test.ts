// Fair share under overload (docs/security.md "One tenant cannot harm another"): Client B sends
// its usual 10 decisions a second (5 agents, 2/s each, one at a time) first alone, then while
// Client A floods the same instance with far more requests in flight than the machine can decide
// (a closed loop of FLOOD_CONNECTIONS, each sending again the moment it is answered). B must get
// the verdicts it gets without the flood, a p99 within 2x its unloaded p99 (+10 ms on a 2-core
// machine, where the flood's load generator competes for the same cores), and no 429; A gets
// 429 with Retry-After for what it sends beyond its share. B's p99 is printed, not asserted: a
// latency target belongs in a benchmark (on the quiet 2-core machine, 2026-12-03, it held in five
// runs of five: B's p99 under the flood 13.5-20.2 ms against 5.2-11.3 ms alone;
// docs/benchmarks.md "Fair share under a flood").
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../fixtures/drills/instances.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';
import { addAgentWithMandate, authorizeBody, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import { request, type TestServer } from '../fixtures/server.js';

const B_AGENTS = 5;
const B_INTERVAL_MS = 500;
const PHASE_MS = 10_000;
const FLOOD_CONNECTIONS = 96;
const A_AGENTS = 8;

interface Sample {
  readonly status: number;
  readonly decision: string | null;
  readonly reasons: readonly string[];
  readonly ms: number;
  /** The service's own processing_time_ms. */
  readonly serverMs: number;
  /** The stages of its Server-Timing header (ms by stage name). */
  readonly stages: Readonly<Record<string, number>>;
}

/** `name;dur=1.2, other;dur=0.3` -> { name: 1.2, other: 0.3 }. */
function stagesOf(header: string | string[] | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of String(header ?? '').split(',')) {
    const m = /^\s*([\w-]+)(?:;.*?dur=([\d.]+))?/.exec(part);
    if (m?.[1] !== undefined && m[2] !== undefined) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** The p99 of each Server-Timing stage over the samples. */
function stageP99s(samples: readonly Sample[]): Record<string, number> {
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.stages)))];
  return Object.fromEntries(
    names.map((n) => [
      n,
      quantile(
        samples.map((s) => ({ ...s, ms: s.stages[n] ?? 0 })),
        0.99,
      ),
    ]),
  );
}

function quantile(samples: readonly Sample[], q: number): number {
  const sorted = samples.map((s) => s.ms).sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)] as number;
}

const p99 = (samples: readonly Sample[]) => quantile(samples, 0.99);
const serverP99 = (samples: readonly Sample[]) =>
  quantile(
    samples.map((s) => ({ ...s, ms: s.serverMs })),
    0.99,
  );

/** B's steady traffic: each agent one request every B_INTERVAL_MS, latency from its scheduled time. */
async function steady(pool: Pool, apiKey: string, agents: readonly string[], ms: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  const start = performance.now();
  await Promise.all(
    agents.map(async (agentId, i) => {
      // Staggered so that the 10/s are spread over each interval.
      let due = start + (i * B_INTERVAL_MS) / agents.length;
      while (due < start + ms) {
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const res = await pool.request({
          method: 'POST',
          path: '/api/v1/authorize',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify(authorizeBody(agentId, { amount: '1.00' })),
        });
        const body = (await res.body.json()) as {
          decision?: string;
          reason_codes?: string[];
          processing_time_ms?: number;
        };
        samples.push({
          status: res.statusCode,
          decision: body.decision ?? null,
          reasons: body.reason_codes ?? [],
          ms: performance.now() - due,
          serverMs: body.processing_time_ms ?? 0,
          stages: stagesOf(res.headers['server-timing']),
        });
        due += B_INTERVAL_MS;
      }
    }),
  );
  return samples;
}

interface FloodResult {
  readonly statuses: Record<string, number>;
  readonly retryAfter: string[];
}

/**
 * A's flood (test/fixtures/drills/flood-worker.mjs): FLOOD_CONNECTIONS loops in a worker thread, each sending
 * again as soon as it is answered, until stopped.
 */
function flood(url: string, apiKey: string, agents: readonly string[]): { stop(): Promise<FloodResult> } {
  const bodies = agents.map((a) => JSON.stringify(authorizeBody(a, { amount: '0.01' })));
  const worker = new Worker(new URL('../fixtures/drills/flood-worker.mjs', import.meta.url), {
    workerData: { url, apiKey, bodies, connections: FLOOD_CONNECTIONS },
  });
  return {
    async stop() {
      const result = new Promise<FloodResult>((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      const r = await result;
      await worker.terminate();
      return r;
    },
  };
}

describe('fair share: one Client floods, another keeps its verdicts and latency', () => {
  let svc: ServiceProcess;
  let poolA: Pool;
  let poolB: Pool;

  beforeAll(async () => {
    svc = await startServiceProcess(process.env.FS_CAP ? { FAIR_SHARE_IN_FLIGHT: process.env.FS_CAP } : {});
    poolA = new Pool(svc.url, { connections: A_AGENTS });
    poolB = new Pool(svc.url, { connections: B_AGENTS });
  }, 120_000);

  afterAll(async () => {
    await poolA?.close();
    await poolB?.close();
    await svc?.cleanup();
  });

  it('B gets the same verdicts, every one decided, and no 429; A gets 429 for its excess', async () => {
    const server = svc as unknown as TestServer;
    const roomy = { limits: { max_amount_per_transaction: '250.00', max_daily_amount: '100000.00', currency: 'USD' } };
    const b = await setup(server, roomy);
    // B's pace (2 approvals a second per agent) is above the default count of approvals an hour:
    // both tenants' count limits are lifted, so that every verdict is the risk engine's judgement
    // of the pace and bursts (which a flood must not change).
    await relaxRateGates(server, b.apiKey);
    const bAgents = [b.agentId];
    for (let i = 1; i < B_AGENTS; i++) {
      bAgents.push(
        await addAgentWithMandate(server, b.apiKey, `B agent ${i}`, { perTransaction: '250.00', daily: '100000.00' }),
      );
    }
    const a = await setup(server, roomy);
    await relaxRateGates(server, a.apiKey);
    const aAgents = [a.agentId];
    for (let i = 1; i < A_AGENTS; i++) {
      aAgents.push(
        await addAgentWithMandate(server, a.apiKey, `A agent ${i}`, { perTransaction: '250.00', daily: '100000.00' }),
      );
    }
    // Warm both tenants' agents into memory (a first decision loads the agent).
    await steady(poolB, b.apiKey, bAgents, 1_000);
    await steady(poolA, a.apiKey, aAgents, 500);

    const alone = await steady(poolB, b.apiKey, bAgents, PHASE_MS);

    const f = flood(svc.url, a.apiKey, aAgents);
    // The flood at full strength, and fair share's pacing engaged (it waits 2 s for a flood),
    // before B is measured.
    await sleep(3_000);
    const flooded = await steady(poolB, b.apiKey, bAgents, PHASE_MS);
    // The pacing limits at the end of the flood (asas_fair_share_pace_limit: the capacity when
    // nobody is paced).
    const metrics = await request(server, 'GET', '/metrics', { adminKey: server.adminKey });
    const paceLimits = metrics.text.split('\n').filter((l) => l.startsWith('asas_fair_share_pace_limit{'));
    const floodResult = await f.stop();

    const statuses = (s: readonly Sample[]) => [...new Set(s.map((x) => x.status))];
    const verdicts = (s: readonly Sample[]) => [...new Set(s.map((x) => x.decision))];
    const reasons = (s: readonly Sample[]) => [...new Set(s.flatMap((x) => x.reasons))];
    const report = {
      alone: {
        n: alone.length,
        p50: quantile(alone, 0.5),
        p99: p99(alone),
        serverP99: serverP99(alone),
        stageP99: stageP99s(alone),
        statuses: statuses(alone),
        verdicts: verdicts(alone),
        reasons: reasons(alone),
      },
      flooded: {
        n: flooded.length,
        p50: quantile(flooded, 0.5),
        p99: p99(flooded),
        serverP99: serverP99(flooded),
        stageP99: stageP99s(flooded),
        statuses: statuses(flooded),
        verdicts: verdicts(flooded),
        reasons: reasons(flooded),
      },
      flood: floodResult.statuses,
      paceLimits,
    };
    console.log(JSON.stringify(report));

    expect(alone.length).toBeGreaterThanOrEqual(90);
    expect(flooded.length).toBeGreaterThanOrEqual(90);
    // B's verdicts: the same with and without the flood (all approved: roomy mandates, small amounts).
    expect(verdicts(alone)).toEqual(['APPROVE']);
    expect(verdicts(flooded)).toEqual(['APPROVE']);
    // No 429 (nor anything but 200) for B.
    expect(statuses(flooded)).toEqual([200]);
    // Every one of B's requests decided in time: none waited past the answer deadline.
    expect(Math.max(...flooded.map((x) => x.serverMs))).toBeLessThan(1_000);
    // The flood went past what the instance decides, and its excess was refused with Retry-After.
    expect(floodResult.statuses['429'] ?? 0).toBeGreaterThan(0);
    expect(floodResult.retryAfter).toEqual(['1']);
    expect(floodResult.statuses['200'] ?? 0).toBeGreaterThan(1_000);
    expect(Object.keys(floodResult.statuses).filter((s) => s !== '200' && s !== '429')).toEqual([]);
  }, 180_000);
});
