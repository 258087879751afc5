// @ts-check
// The soak's load generator, in a worker thread of its own so that its client work never delays
// the test's sampling loop. Open loop: decision i is due at start + i / rate whatever the
// service does, and its latency is measured from that due time (a stalled service shows up as
// latency, not as a lower rate: no coordinated omission). undici's Pool queues what its
// connections cannot take yet; that wait counts too.
//
// The mix, per 100 decisions (POST /api/v1/authorize), across every agent of every Principal:
//   85 approvals (small amounts, capture_method automatic; every other one with an
//      idempotency_key, as integrators that retry send, so the service stores its answer and
//      the background sweep keeps each Principal's stored answers within their cap),
//   10 holds (capture_method manual), each followed `followUpMs` after its answer by a capture
//      (even ones, half the amount) or a release (odd ones) of the hold,
//    5 declines (a blocked MCC: authorization.decline and gate.fired, webhook traffic),
// and one log read (GET /api/v1/authorize/log/agent/{id}) for every 20 decisions. Follow-ups and
// log reads come on top of the decision rate, each measured from its own due time.
//
// workerData: { url, principals: [{ apiKey, agents: string[] }], rate, rampMs, durationMs,
//   connections, timeoutMs, followUpMs }.
// Messages from the parent: 'sample' (answered with { type: 'sample', window }, the window's
// figures since the last sample; the window histograms restart). When the run is over and every
// request has been answered or has failed, the worker posts { type: 'done', totals, window,
// planned } (planned: the decisions the run was to send).
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import hdr from 'hdr-histogram-js';
import { Pool } from 'undici';

const { url, principals, rate, rampMs, durationMs, connections, timeoutMs, followUpMs } = workerData;
/** Makes this run's idempotency keys its own (a key is per Principal, kept 24 hours). */
const runId = Date.now().toString(36);
const pool = new Pool(url, {
  connections,
  headersTimeout: timeoutMs,
  bodyTimeout: timeoutMs,
  keepAliveTimeout: 60_000,
  keepAliveMaxTimeout: 600_000,
});

/** @type {{ apiKey: string, agent: string }[]} */
const targets = [];
const perPrincipal = Math.max(...principals.map((/** @type {{ agents: string[] }} */ p) => p.agents.length));
// Interleaved: consecutive decisions go to different Principals and agents.
for (let i = 0; i < perPrincipal; i++) {
  for (const p of principals) {
    const agent = p.agents[i];
    if (agent !== undefined) targets.push({ apiKey: p.apiKey, agent });
  }
}

const histogram = () =>
  hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: 3 });

/** The figures of one window (and, kept apart, of the whole run). */
function newWindow() {
  return {
    decisions: histogram(),
    other: histogram(),
    /** @type {Record<string, number>} kind -> requests sent */
    sent: {},
    /** @type {Record<string, number>} `${kind} ${status} ${decision or status field}` -> answers */
    answers: {},
    /**
     * Declines answered (authorization ids): each must reach the webhook as authorization.decline.
     * Kept per window only (the parent collects them), never in the run's totals.
     * @type {string[]}
     */
    declined: [],
    /** @type {string[]} holds captured */
    captured: [],
    /** @type {string[]} holds released */
    released: [],
    errors: { http5xx: 0, transport: 0, unexpected: 0, safeDecision: 0 },
    /** @type {string[]} the first few error descriptions */
    errorSamples: [],
  };
}

let win = newWindow();
const total = newWindow();
let sentCount = 0;
let answeredCount = 0;
let failedCount = 0;
/** Requests due but not yet sent into the pool (always 0: the pool queues), and sent not answered. */
const inFlight = () => sentCount - answeredCount - failedCount;

const SAFE = 'system_unavailable';

/**
 * @param {string} what
 * @param {'http5xx' | 'transport' | 'unexpected' | 'safeDecision'} kind
 */
function error(kind, what) {
  win.errors[kind]++;
  total.errors[kind]++;
  if (win.errorSamples.length < 10) win.errorSamples.push(what);
  if (total.errorSamples.length < 50) total.errorSamples.push(what);
}

/** @param {string} key */
function countAnswer(key) {
  win.answers[key] = (win.answers[key] ?? 0) + 1;
  total.answers[key] = (total.answers[key] ?? 0) + 1;
}

/**
 * @param {string} kind
 * @param {number} dueAt performance.now() time the request was due
 * @param {{ method: 'GET' | 'POST', path: string, apiKey: string, body?: string, idempotencyKey?: string }} r
 * @param {(status: number, body: Record<string, unknown>) => void} onAnswer
 */
function send(kind, dueAt, r, onAnswer) {
  sentCount++;
  win.sent[kind] = (win.sent[kind] ?? 0) + 1;
  total.sent[kind] = (total.sent[kind] ?? 0) + 1;
  /** @type {Record<string, string>} */
  const headers = { 'x-api-key': r.apiKey };
  if (r.body !== undefined) headers['content-type'] = 'application/json';
  if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
  pool
    .request({ method: r.method, path: r.path, headers, body: r.body })
    .then(async (res) => {
      const text = await res.body.text();
      const us = Math.max(1, Math.round((performance.now() - dueAt) * 1000));
      const decision = kind === 'approve' || kind === 'hold' || kind === 'decline';
      (decision ? win.decisions : win.other).recordValue(us);
      (decision ? total.decisions : total.other).recordValue(us);
      answeredCount++;
      /** @type {Record<string, unknown>} */
      let body = {};
      try {
        body = JSON.parse(text);
      } catch {
        body = {};
      }
      const label =
        typeof body.decision === 'string' ? body.decision : typeof body.status === 'string' ? body.status : '';
      countAnswer(`${kind} ${res.statusCode} ${label}`.trim());
      if (res.statusCode >= 500) {
        error('http5xx', `${kind} ${res.statusCode} ${text.slice(0, 200)}`);
        return;
      }
      if (Array.isArray(body.reason_codes) && body.reason_codes.includes(SAFE)) {
        error('safeDecision', `${kind} ${text.slice(0, 200)}`);
        return;
      }
      onAnswer(res.statusCode, body);
    })
    .catch((/** @type {Error & { code?: string }} */ err) => {
      failedCount++;
      error('transport', `${kind} ${err.code ?? ''} ${err.message}`);
    });
}

/**
 * @param {string} agent
 * @param {string} amount
 * @param {Record<string, unknown>} extra
 */
function authorizeBody(agent, amount, extra = {}) {
  return JSON.stringify({
    agent_id: agent,
    amount,
    currency: 'USD',
    merchant_name: 'Corner Grocery',
    merchant_id: 'mer_corner_grocery',
    mcc: '5411',
    country: 'US',
    intent_context: {
      intent_type: 'purchase',
      task_reference: 'weekly-groceries',
      reasoning_summary: 'Weekly grocery order for the household, as the user asked',
      confidence: 0.9,
    },
    ...extra,
  });
}

/** @param {number} i */
const amountOf = (i) => `${1 + (i % 19)}.${String((i * 37) % 100).padStart(2, '0')}`;

/** Captures and releases, due `followUpMs` after their hold was answered (so in time order). */
/** @type {{ at: number, run: (at: number) => void }[]} */
const followUps = [];
let followUpHead = 0;

/** @param {number} i @param {number} dueAt */
function decide(i, dueAt) {
  const t = targets[(i * 7) % targets.length];
  if (t === undefined) return;
  const slot = i % 100;
  if (slot < 10) {
    send(
      'hold',
      dueAt,
      {
        method: 'POST',
        path: '/api/v1/authorize',
        apiKey: t.apiKey,
        body: authorizeBody(t.agent, amountOf(i), {
          capture_method: 'manual',
          merchant_name: 'Hotel Alpha',
          mcc: '7011',
        }),
      },
      (status, body) => {
        const id = body.authorization_id;
        if (status !== 200 || body.decision !== 'APPROVE' || body.status !== 'HELD' || typeof id !== 'string') {
          // A hold the service declined or stepped up is a decision, not an error; anything else is.
          if (status !== 200 || typeof body.decision !== 'string' || body.decision === 'APPROVE') {
            error('unexpected', `hold ${status} ${JSON.stringify(body).slice(0, 200)}`);
          }
          return;
        }
        const capture = i % 2 === 0;
        followUps.push({
          at: performance.now() + followUpMs,
          run: (at) =>
            send(
              capture ? 'capture' : 'release',
              at,
              {
                method: 'POST',
                path: `/api/v1/authorizations/${id}/${capture ? 'capture' : 'release'}`,
                apiKey: t.apiKey,
                body: capture ? JSON.stringify({ amount: '1.00' }) : '{}',
                idempotencyKey: `soak-${id}`,
              },
              (s, b) => {
                const want = capture ? 'CAPTURED' : 'RELEASED';
                if (s !== 200 || b.status !== want) {
                  error('unexpected', `${capture ? 'capture' : 'release'} ${s} ${JSON.stringify(b).slice(0, 200)}`);
                  return;
                }
                (capture ? win.captured : win.released).push(id);
              },
            ),
        });
      },
    );
  } else if (slot < 15) {
    send(
      'decline',
      dueAt,
      {
        method: 'POST',
        path: '/api/v1/authorize',
        apiKey: t.apiKey,
        body: authorizeBody(t.agent, amountOf(i), { merchant_name: 'Lucky Casino', mcc: '7995' }),
      },
      (status, body) => {
        if (status !== 200 || body.decision !== 'DECLINE' || typeof body.authorization_id !== 'string') {
          error('unexpected', `decline ${status} ${JSON.stringify(body).slice(0, 200)}`);
          return;
        }
        win.declined.push(body.authorization_id);
      },
    );
  } else {
    send(
      'approve',
      dueAt,
      {
        method: 'POST',
        path: '/api/v1/authorize',
        apiKey: t.apiKey,
        body: authorizeBody(t.agent, amountOf(i), i % 2 === 0 ? { idempotency_key: `soak-${runId}-${i}` } : {}),
      },
      (status, body) => {
        if (status !== 200 || typeof body.decision !== 'string') {
          error('unexpected', `approve ${status} ${JSON.stringify(body).slice(0, 200)}`);
        }
      },
    );
  }
  if (i % 20 === 7) {
    const r = targets[(i * 13 + 5) % targets.length];
    if (r === undefined) return;
    send(
      'log',
      dueAt,
      {
        method: 'GET',
        path: `/api/v1/authorize/log/agent/${r.agent}?limit=20`,
        apiKey: r.apiKey,
      },
      (status, body) => {
        if (status !== 200 || !Array.isArray(body.items)) {
          error('unexpected', `log ${status} ${JSON.stringify(body).slice(0, 200)}`);
        }
      },
    );
  }
}

/** @param {ReturnType<typeof histogram>} h */
function summary(h) {
  const ms = (/** @type {number} */ us) => Math.round(us) / 1000;
  if (h.totalCount === 0) return { count: 0, p50: 0, p99: 0, max: 0 };
  const max = h.maxValue;
  return {
    count: h.totalCount,
    p50: ms(Math.min(h.getValueAtPercentile(50), max)),
    p99: ms(Math.min(h.getValueAtPercentile(99), max)),
    max: ms(max),
  };
}

/** @param {ReturnType<typeof newWindow>} w */
function report(w) {
  return {
    decisions: summary(w.decisions),
    other: summary(w.other),
    sent: w.sent,
    answers: w.answers,
    declined: w.declined,
    captured: w.captured,
    released: w.released,
    errors: w.errors,
    errorSamples: w.errorSamples,
    inFlight: inFlight(),
    sentTotal: sentCount,
    answeredTotal: answeredCount,
    failedTotal: failedCount,
  };
}

// The rate climbs linearly from 0 to `rate` over the first `rampMs` (a cold service warms up
// under a gentle load, as a deployment's traffic arrives), then holds for the rest of the run:
// decision i is due `dueMs(i)` after the start.
const rampDecisions = (rate * rampMs) / 2000;
/** @param {number} i */
const dueMs = (i) => (i < rampDecisions ? Math.sqrt((2 * rampMs * i * 1000) / rate) : (i * 1000) / rate + rampMs / 2);
const decisionsTotal = Math.floor((rate * (durationMs - rampMs / 2)) / 1000);
const start = performance.now() + 20;
let next = 0;
let done = false;

function tick() {
  const now = performance.now();
  for (; next < decisionsTotal && start + dueMs(next) <= now; next++) decide(next, start + dueMs(next));
  for (;;) {
    const f = followUps[followUpHead];
    if (f === undefined || f.at > now) break;
    followUpHead++;
    f.run(f.at);
  }
  if (followUpHead > 4096) {
    followUps.splice(0, followUpHead);
    followUpHead = 0;
  }
  if (next >= decisionsTotal && followUpHead >= followUps.length && inFlight() === 0) {
    finish();
    return;
  }
  setTimeout(tick, 1);
}

async function finish() {
  if (done) return;
  done = true;
  await pool.close();
  const w = report(win);
  win = newWindow();
  parentPort?.postMessage({ type: 'done', window: w, totals: report(total), planned: decisionsTotal });
}

parentPort?.on('message', (msg) => {
  if (msg !== 'sample' || done) return;
  const w = report(win);
  win = newWindow();
  parentPort?.postMessage({ type: 'sample', window: w });
});

setTimeout(tick, 20);
