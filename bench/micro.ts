// tinybench micro-benchmarks of the functions on the /authorize hot path: money parsing and
// formatting, country normalisation, the precompiled validators, the router, the threshold
// merge, the metrics helpers and, once it exists, the decision pipeline's evaluate().
// A micro win is only kept after a load run confirms it (STYLE.md).
import { table } from './report/results.js';

export interface MicroResult {
  readonly name: string;
  readonly opsPerSecond: number;
  readonly meanNs: number;
  readonly medianNs: number;
  readonly p99Ns: number | null;
  readonly samples: number;
}

const AUTHORIZE_BODY = {
  agent_id: 'agt_0123456789abcdefghijklmn',
  amount: '42.10',
  currency: 'USD',
  merchant_name: 'Corner Grocery',
  mcc: '5411',
  country: 'US',
  intent_context: {
    intent_type: 'purchase',
    task_reference: 'weekly-groceries',
    reasoning_summary: 'Weekly grocery order for the household, as the user asked',
    confidence: 0.9,
  },
  session_id: 'sess_1',
};

type Fn = () => unknown;

export async function runMicro(log: (s: string) => void): Promise<{ results: MicroResult[]; table: string }> {
  let tinybench: typeof import('tinybench');
  try {
    tinybench = await import('tinybench');
  } catch {
    throw new Error('tinybench is a dev dependency: install dev dependencies to run the micro-benchmarks');
  }
  const money = await import('../src/domain/money.js');
  const country = await import('../src/domain/country.js');
  const { getValidator } = await import('../src/validation/validate.js');
  const { Router } = await import('../src/http/router.js');
  const { mergeThresholds } = await import('../src/engine/pipeline/thresholds.js');
  const { ServiceMetrics } = await import('../src/observability/metrics.js');

  const bench = new tinybench.Bench({ time: 300, warmupTime: 100 });
  const add = (name: string, fn: Fn) => bench.add(name, fn);

  let sink: unknown;
  add('money: parseAmount("1234.56")', () => {
    sink = money.parseAmount('1234.56');
  });
  const units = money.parseAmount('1234.56') as bigint;
  add('money: formatAmount', () => {
    sink = money.formatAmount(units);
  });
  add('country: toAlpha3("DE")', () => {
    sink = country.toAlpha3('DE');
  });
  try {
    const v = getValidator('AuthorizeRequest');
    add('validator: AuthorizeRequest', () => {
      sink = v(structuredClone(AUTHORIZE_BODY));
    });
    add('structuredClone of the body (baseline of the line above)', () => {
      sink = structuredClone(AUTHORIZE_BODY);
    });
  } catch {
    log('  (no AuthorizeRequest validator in this build: skipped)');
  }
  const router = new Router();
  const paths = [
    '/health',
    '/api/v1/authorize',
    '/api/v1/agents',
    '/api/v1/agents/:agent_id',
    '/api/v1/agents/:agent_id/metrics',
    '/api/v1/mandates/:mandate_id',
    '/api/v1/mandates/agent/:agent_id',
    '/api/v1/authorize/log/:authorization_id',
    '/api/v1/authorize/log/agent/:agent_id',
    '/api/v1/principals/:principal_id/agents',
  ];
  for (const p of paths) {
    router.add({ method: 'POST', path: p, auth: 'none', summary: p, handler: () => ({ status: 204 }) });
  }
  add('router: match POST /api/v1/authorize', () => {
    sink = router.match('POST', '/api/v1/authorize');
  });
  add('router: match /api/v1/authorize/log/agent/:id', () => {
    sink = router.match('POST', '/api/v1/authorize/log/agent/agt_123');
  });
  const overrides = { rapid_fire_max_count: 100, cts_green_threshold: 0.8 };
  add('thresholds: merge overrides over defaults', () => {
    sink = mergeThresholds(overrides);
  });
  const metrics = new ServiceMetrics();
  const gates = ['mandate_exceeded'];
  add('metrics: record one decision', () => {
    metrics.decision('DECLINE', gates, 0.0012);
  });
  add('metrics: count one HTTP request', () => {
    metrics.httpRequests.labels('/api/v1/authorize', 'POST', '200').inc();
  });
  await addPipeline(add, log);

  log('micro-benchmarks ...');
  await bench.run();
  void sink;
  const results: MicroResult[] = bench.tasks.map((t) => {
    const r = t.result as { latency?: { mean: number; p50?: number; p99?: number; samplesCount?: number } } | undefined;
    const meanMs = r?.latency?.mean ?? Number.NaN;
    const medianMs = r?.latency?.p50 ?? meanMs;
    return {
      name: t.name,
      // One call per median latency: the mean is pulled up by GC pauses and timer noise.
      opsPerSecond: Math.round(1000 / medianMs),
      meanNs: Math.round(meanMs * 1e6),
      medianNs: Math.round(medianMs * 1e6),
      p99Ns: r?.latency?.p99 === undefined ? null : Math.round(r.latency.p99 * 1e6),
      samples: r?.latency?.samplesCount ?? 0,
    };
  });
  return {
    results,
    table: table(
      ['micro-benchmark', 'ops/s (1/median)', 'median ns', 'mean ns', 'p99 ns'],
      results.map((r) => [r.name, r.opsPerSecond, r.medianNs, r.meanNs, r.p99Ns ?? '']),
    ),
  };
}

/** The pipeline's evaluate(), when src/engine/pipeline/core.ts exists in this build. */
async function addPipeline(add: (name: string, fn: Fn) => void, log: (s: string) => void): Promise<void> {
  let core: Record<string, unknown>;
  try {
    core = (await import(new URL('../src/engine/pipeline/core.js', import.meta.url).href)) as Record<string, unknown>;
  } catch {
    log('  (no decision pipeline in this build yet: evaluate() skipped)');
    return;
  }
  const bench = core.benchFixture as
    | undefined
    | (() => { evaluate: () => unknown; name?: string } | Promise<{ evaluate: () => unknown; name?: string }>);
  if (typeof bench !== 'function') {
    log('  (src/engine/pipeline/core.js exports no benchFixture(): evaluate() skipped)');
    return;
  }
  const fixture = await bench();
  add(fixture.name ?? 'pipeline: evaluate() approve', fixture.evaluate);
}
