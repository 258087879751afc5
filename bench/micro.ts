// tinybench micro-benchmarks of the functions on the /authorize hot path: money parsing and
// formatting, country normalisation, the precompiled validators, the router, the threshold
// merge, the metrics helpers and, once it exists, the decision pipeline's evaluate().
// A micro win is only kept after a load run confirms it (STYLE.md).
import { performance } from 'node:perf_hooks';
import { table } from './report/results.js';

export interface MicroResult {
  readonly name: string;
  readonly opsPerSecond: number;
  readonly meanNs: number;
  readonly medianNs: number;
  readonly p99Ns: number | null;
  readonly samples: number;
}

/** The claims of an access token, as the token micro-benchmarks mint it (also bench/tokens.ts). */
export const SAMPLE_TOKEN_CLAIMS = {
  sub: 'prn_0123456789abcdefghijklmn',
  client_id: 'cli_0123456789abcdefghijklmn',
  cid: 'acr_0123456789abcdefghijklmn',
  env: 'live' as const,
  scope: '*',
  kh: 'k_0123456789ab',
};

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
  const currency = await import('../src/domain/currency.js');
  const { amountText } = await import('../src/http/json-source.js');
  const { getValidator } = await import('../src/validation/validate.js');
  const { Router } = await import('../src/http/router.js');
  const { mergeThresholds } = await import('../src/decision/model/thresholds.js');
  const { ServiceMetrics } = await import('../src/observability/metrics.js');

  const bench = new tinybench.Bench({ time: 300, warmupTime: 100 });
  const add = (name: string, fn: Fn) => bench.add(name, fn);

  let sink: unknown;
  add('money: parseAmount("1234.56")', () => {
    sink = money.parseAmount('1234.56');
  });
  // /authorize reads a string amount with its currency's minor units (the common case) ...
  add('money: readAmount("1234.56", USD exponent)', () => {
    sink = money.readAmount('1234.56', currency.currencyExponent('USD') ?? money.SCALE, 'USD');
  });
  // ... and only a JSON-number amount pays for a lossless re-read of the raw body (fresh buffer
  // each time, as each request has its own).
  const numberBody = JSON.stringify({ ...AUTHORIZE_BODY, amount: 0 }).replace('"amount":0', '"amount":1234.56');
  add('money: number amount from the raw body (lossless-json)', () => {
    const raw = Buffer.from(numberBody);
    sink = money.readAmount(amountText(raw, 1234.56, ['amount']) as string, 2, 'USD');
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
      sink = v.check(structuredClone(AUTHORIZE_BODY));
    });
    add('structuredClone of the body (baseline of the line above)', () => {
      sink = structuredClone(AUTHORIZE_BODY);
    });
  } catch {
    log('  (no AuthorizeRequest validator in this build: skipped)');
  }
  // The edge's body parse on /authorize: it was once toString('utf8') + JSON.parse;
  // now a fatal UTF-8 decode + JSON.parse + one scan for a \u escape (a walk only when found).
  const { parseBody } = await import('../src/http/server.js');
  const jsonHeaders = { 'content-type': 'application/json' };
  const plainBody = { rawBody: Buffer.from(JSON.stringify(AUTHORIZE_BODY)), headers: jsonHeaders };
  const escapedBody = {
    rawBody: Buffer.from(JSON.stringify(AUTHORIZE_BODY).replace('Corner Grocery', 'Corner Caf\\u00e9')),
    headers: jsonHeaders,
  };
  add('edge body: the former parseBody (toString + JSON.parse)', () => {
    const type = (plainBody.headers['content-type'] ?? 'application/json').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json' && !type?.endsWith('+json')) throw new Error('unsupported');
    sink = JSON.parse(plainBody.rawBody.toString('utf8'));
  });
  add('edge body: parseBody, no \\u escape', () => {
    sink = parseBody(plainBody, {});
  });
  add('edge body: parseBody, a \\u escape (storable-text walk)', () => {
    sink = parseBody(escapedBody, {});
  });
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
  // The edge's answer deadline per request: one coarse sweep (src/http/deadline.ts) against
  // the obvious alternative, a timer armed and cleared per request.
  const { DeadlineSweeper } = await import('../src/http/deadline.js');
  const sweeper = new DeadlineSweeper<{ done: boolean; dueAt: number }>(() => {});
  add('deadline: track one request (coarse sweep), answered', () => {
    const item = { done: false, dueAt: 0 };
    sweeper.track(item, 1000, performance.now());
    item.done = true;
  });
  const noop = () => {};
  add('deadline: setTimeout + clearTimeout per request (baseline)', () => {
    const item = { done: false, dueAt: 0 };
    const t = setTimeout(noop, 1000);
    item.done = true;
    clearTimeout(t);
  });
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
  await addTokens(add);

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

/**
 * Access tokens (src/auth/tokens.ts): every Bearer request verifies one. A fresh token each
 * time is the uncached signature check; the same token again is the verified-token cache.
 */
async function addTokens(add: (name: string, fn: Fn) => void): Promise<void> {
  const { TokenService } = await import('../src/auth/tokens.js');
  const tokens = await TokenService.ephemeral();
  const claims = SAMPLE_TOKEN_CLAIMS;
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + 3600;
  add('token: sign (mint)', async () => tokens.mint(claims, iat, exp));
  add('token: sign + verify, a fresh token (signature checked)', async () => {
    const claimsOut = await tokens.verify(await tokens.mint(claims, iat, exp));
    if (claimsOut === null) throw new Error('a fresh token did not verify');
  });
  const token = await tokens.mint(claims, iat, exp);
  add('token: verify, the same token again (verified-token cache)', async () => {
    if ((await tokens.verify(token)) === null) throw new Error('the token did not verify');
  });
  add('token: cached(), the Bearer path of a token seen before (synchronous)', () => {
    if (tokens.cached(token) === undefined) throw new Error('the token is not cached');
  });
  const tampered = `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
  add('token: verify, a tampered token (refused)', async () => {
    if ((await tokens.verify(tampered)) !== null) throw new Error('a tampered token verified');
  });
}

/** The decision pipeline's evaluate() on an in-memory agent (an approval and a decline). */
async function addPipeline(add: (name: string, fn: Fn) => void): Promise<void> {
  const { evaluate } = await import('../src/decision/core.js');
  const { mandateFromRow } = await import('../src/decision/mandate-row.js');
  const { newAgentState } = await import('../src/decision/state.js');
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

  // The same approval under a Principal budget (docs/principal-budget.md): the actor asks
  // escrow.need() before deciding, the gate compares with the slice, the approval spends it.
  const { decisionCore } = await import('../src/decision/core.js');
  const { windowsOf } = await import('../src/decision/model/calendar.js');
  const escrow = decisionCore.escrow;
  if (escrow === undefined) return;
  const withBudget = () => {
    const s = fresh();
    s.budget = {
      version: '1',
      limit: 10n ** 20n,
      currency: 'USD',
      window: 'month',
      effectiveFromMs: 0,
      unit: 1_000_000n,
      extra: 10n ** 14n,
      windowStart: windowsOf('UTC', Date.now()).month,
      remaining: 10n ** 20n,
      topUpAfterMs: Number.NEGATIVE_INFINITY,
    };
    return s;
  };
  const req = request('5411');
  let budgeted = withBudget();
  let m = 0;
  add('pipeline: escrow.need() + evaluate() approve, under a Principal budget', () => {
    if (++m % 1000 === 0) budgeted = withBudget();
    const t = Date.now();
    if (escrow.need(budgeted, req, t) !== 0n) throw new Error('the slice should cover the request');
    const e = evaluate(budgeted, req, t);
    escrow.low(budgeted, t);
    return e;
  });
}
