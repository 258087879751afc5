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
  await addPipeline(add);

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

/** The decision pipeline's evaluate() on an in-memory agent (an approval and a decline). */
async function addPipeline(add: (name: string, fn: Fn) => void): Promise<void> {
  const { evaluate } = await import('../src/engine/pipeline/core.js');
  const { mandateFromRow, newAgentState } = await import('../src/engine/pipeline/state.js');
  const now = Date.now();
  const day = 86_400_000;
  const fresh = () =>
    newAgentState({
      agentId: 'agt_bench',
      principalId: 'prn_bench',
      clientId: 'cli_bench',
      status: 'ACTIVE',
      createdAtMs: now - 30 * day,
      mandates: [
        mandateFromRow(
          {
            id: 'mnd_bench',
            rails: ['card'],
            currency: 'USD',
            max_amount_per_transaction: '500',
            max_daily_amount: '100000000',
            max_monthly_amount: null,
            allowed_mccs: null,
            blocked_mccs: ['7995'],
            allowed_countries: null,
            blocked_countries: ['PRK'],
            allowed_chains: null,
            allowed_assets: null,
            allowed_counterparties: null,
            crypto: null,
            valid_from: new Date(now - 30 * day),
            valid_until: new Date(now + 365 * day),
            created_at: new Date(now - 30 * day),
          },
          now,
        ),
      ],
      overrides: {
        rapid_fire_max_count: 65_535,
        risk_velocity_max_count: 65_535,
        amount_outlier_multiplier: 1_000_000,
      },
    });
  const request = (mcc: string) => ({
    requestId: 'req_bench',
    environment: 'live' as const,
    clientId: 'cli_bench',
    principalId: 'prn_bench',
    agentId: 'agt_bench',
    amount: '42.1',
    currency: 'USD',
    merchantName: 'Corner Grocery',
    merchantId: null,
    mcc,
    country: 'USA',
    rail: 'CARD' as const,
    crypto: null,
    intent: {
      intentType: 'purchase',
      taskReference: 'weekly-groceries',
      reasoningSummary: 'Weekly grocery order for the household, as the user asked',
      confidence: 0.9,
      alternativesConsidered: null,
    },
    sessionId: null,
    idempotencyKey: null,
    stepUpConfirmed: false,
    receivedAtMs: now,
  });
  for (const [name, mcc] of [
    ['pipeline: evaluate() approve', '5411'],
    ['pipeline: evaluate() decline (blocked MCC)', '7995'],
  ] as const) {
    const req = request(mcc);
    let state = fresh();
    let n = 0;
    add(name, () => {
      // The state keeps running totals and windows: start afresh now and then so the figure
      // is not one of an agent with an ever longer history.
      if (++n % 1000 === 0) state = fresh();
      return evaluate(state, req, Date.now());
    });
  }
}
