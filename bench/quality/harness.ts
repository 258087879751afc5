// The evaluation harness: replays a labeled corpus through the real decision core
// (the `evaluate` the shard worker calls, on states built as `loadAgentState` builds them for
// an agent with no history), with the engine's clock injected: each request is decided at its
// own corpus timestamp, so a month of traffic replays in a second. Reports recall per kind,
// histories stopped within 3 requests of the compromise, false declines overall and per
// archetype with the gates that fired on them, and the decision latency.
import { performance } from 'node:perf_hooks';
import {
  type AgentState,
  clearMerchantEvidence,
  evaluate,
  type MandateState,
  mandateFromRow,
  newAgentState,
} from '../../src/decision/core.js';
import type { AuthorizeRequest } from '../../src/decision/model/contract.js';
import { ARCHETYPES, type Corpus, type CorpusHistory, type CorpusRequest, KINDS } from './corpus.js';

/** Any labeled corpus: the archetype and kind names are the corpus's own. */
type AnyCorpus = Corpus<string, string>;
type AnyHistory = CorpusHistory<string, string>;
type AnyRequest = CorpusRequest<string, string>;

/** The archetype and kind names a corpus is scored over (every one is reported, even when empty). */
export interface CorpusNames {
  readonly archetypes: readonly string[];
  readonly kinds: readonly string[];
}

/** The first corpus's names (bench/quality/corpus.ts). */
export const FIRST_CORPUS_NAMES: CorpusNames = { archetypes: ARCHETYPES, kinds: KINDS };

/** Agents per Principal in the replay (known-bad merchant evidence is per Principal). */
export const AGENTS_PER_PRINCIPAL = 8;

export function principalOf(corpus: AnyCorpus, index: number): string {
  return `prn_q${corpus.seed}_${Math.floor(index / AGENTS_PER_PRINCIPAL)}`;
}

export function agentIdOf(h: AnyHistory): string {
  return `agt_${h.id}`;
}

/** The engine's view of a history's agent before its first request (no audit rows yet). */
export function stateFor(h: AnyHistory, principalId: string, nowMs: number): AgentState {
  const mandates: MandateState[] = h.mandates.map((m) =>
    mandateFromRow(
      {
        id: m.id,
        rails: ['card'],
        currency: m.currency,
        max_amount_per_transaction: m.perTransaction,
        max_daily_amount: m.daily,
        max_monthly_amount: null,
        allowed_mccs: null,
        blocked_mccs: null,
        allowed_countries: null,
        blocked_countries: null,
        allowed_chains: null,
        allowed_assets: null,
        allowed_counterparties: null,
        crypto: null,
        valid_from: new Date(h.createdAtMs),
        valid_until: new Date(h.createdAtMs + 400 * 86_400_000),
        created_at: new Date(h.createdAtMs),
      },
      nowMs,
    ),
  );
  return newAgentState({
    agentId: agentIdOf(h),
    principalId,
    clientId: `cli_${principalId}`,
    createdAtMs: h.createdAtMs,
    capabilities: h.capabilities,
    mandates,
  });
}

export function requestOf(h: AnyHistory, r: AnyRequest, principalId: string): AuthorizeRequest {
  return {
    requestId: 'req_quality',
    environment: 'sandbox',
    clientId: `cli_${principalId}`,
    principalId,
    agentId: agentIdOf(h),
    amount: r.amount,
    currency: r.currency,
    merchantName: r.merchantName,
    merchantId: r.merchantId,
    mcc: r.mcc,
    country: r.country,
    rail: 'CARD',
    crypto: null,
    intent: {
      intentType: r.intentType,
      taskReference: r.taskReference,
      reasoningSummary: r.reasoningSummary,
      confidence: null,
      alternativesConsidered: null,
    },
    sessionId: r.sessionId,
    idempotencyKey: null,
    stepUpConfirmed: false,
    receivedAtMs: r.atMs,
  };
}

export interface Outcome {
  readonly history: number;
  readonly index: number;
  readonly decision: string;
  readonly gates: readonly string[];
  readonly reasons: readonly string[];
  readonly detail: string;
}

export interface Rate {
  n: number;
  hit: number;
  rate: number;
}

export interface QualityReport {
  readonly seed: number;
  readonly histories: number;
  readonly requests: number;
  readonly honest_requests: number;
  readonly compromised_requests: number;
  readonly recall_by_kind: Record<string, Rate>;
  readonly recall_mean_over_kinds: number;
  readonly stopped_within_3: Rate;
  readonly stopped_within_3_by_kind: Record<string, Rate>;
  readonly false_declines: Rate;
  readonly false_declines_by_archetype: Record<string, Rate>;
  /** Gate -> false declines it fired on. */
  readonly false_decline_gates: Record<string, number>;
  /** Reason code -> false declines it appeared on. */
  readonly false_decline_reasons: Record<string, number>;
  /** Archetype -> gate -> false declines of that archetype's honest requests it fired on. */
  readonly false_decline_gates_by_archetype: Record<string, Record<string, number>>;
  /** Decision (DECLINE, STEP_UP) -> false declines that got it. */
  readonly false_decline_decisions: Record<string, number>;
  readonly latency_us: { p50: number; p90: number; p99: number; max: number; mean: number };
}

export function rate(n: number, hit: number): Rate {
  return { n, hit, rate: n === 0 ? 0 : Math.round((hit / n) * 10_000) / 10_000 };
}

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.floor(q * sorted.length));
  return Math.round((sorted[i] as number) * 1000) / 1000;
}

interface Replay {
  readonly outcomes: Outcome[][];
  readonly latencies: Float64Array;
}

/** Replays every request in time order (all agents interleaved) and records each decision. */
export function replay(corpus: AnyCorpus, opts: { filter?: (h: AnyHistory, i: number) => boolean } = {}): Replay {
  // A fresh service: the Principal-wide merchant evidence a replay before this one counted (the
  // same Principals' declines, from the corpus's future) must not flag merchants in this one.
  clearMerchantEvidence();
  const hs = corpus.histories;
  const states: (AgentState | null)[] = hs.map(() => null);
  const principals = hs.map((_, i) => principalOf(corpus, i));
  const order: { h: number; i: number; at: number }[] = [];
  hs.forEach((h, hi) => {
    if (opts.filter !== undefined && !opts.filter(h, hi)) return;
    h.requests.forEach((r, i) => {
      order.push({ h: hi, i, at: r.atMs });
    });
  });
  order.sort((a, b) => a.at - b.at || a.h - b.h || a.i - b.i);
  const outcomes: Outcome[][] = hs.map(() => []);
  const latencies = new Float64Array(order.length);
  let k = 0;
  for (const o of order) {
    const h = hs[o.h] as AnyHistory;
    const r = h.requests[o.i] as AnyRequest;
    const principal = principals[o.h] as string;
    let state = states[o.h];
    if (state === null || state === undefined) {
      state = stateFor(h, principal, r.atMs);
      states[o.h] = state;
    }
    const req = requestOf(h, r, principal);
    const t0 = performance.now();
    const ev = evaluate(state, req, r.atMs);
    latencies[k++] = (performance.now() - t0) * 1000;
    const res = ev.response as { gates_fired: string[]; reason_codes: string[]; reason_detail: string };
    // The Principal confirms a STEP_UP of an honest request (the agent re-submits it with
    // step_up_confirmed) and refuses one of a compromised agent. The STEP_UP still counts as
    // a false decline: the confirmation only keeps the replay's state realistic.
    if (ev.decision === 'STEP_UP' && r.label === 'honest') evaluate(state, { ...req, stepUpConfirmed: true }, r.atMs);
    (outcomes[o.h] as Outcome[])[o.i] = {
      history: o.h,
      index: o.i,
      decision: ev.decision,
      gates: res.gates_fired,
      reasons: res.reason_codes,
      detail: res.reason_detail,
    };
  }
  return { outcomes, latencies: latencies.subarray(0, k) };
}

/** Scores a replay against the labels. */
export function score(corpus: AnyCorpus, rep: Replay, names: CorpusNames = FIRST_CORPUS_NAMES): QualityReport {
  const kindN: Record<string, [number, number]> = {};
  const stopN: Record<string, [number, number]> = {};
  for (const k of names.kinds) {
    kindN[k] = [0, 0];
    stopN[k] = [0, 0];
  }
  const archN: Record<string, [number, number]> = {};
  for (const a of names.archetypes) archN[a] = [0, 0];
  const fdGates: Record<string, number> = {};
  const fdReasons: Record<string, number> = {};
  const fdGatesByArch: Record<string, Record<string, number>> = {};
  const fdDecisions: Record<string, number> = {};
  let honest = 0;
  let honestHit = 0;
  let compromised = 0;
  let requests = 0;
  let stopped = 0;
  let compromisedHistories = 0;
  corpus.histories.forEach((h, hi) => {
    const outs = rep.outcomes[hi] as Outcome[];
    if (outs.length === 0) return;
    h.requests.forEach((r, i) => {
      const o = outs[i];
      if (o === undefined) return;
      requests++;
      const caught = o.decision !== 'APPROVE';
      if (r.label === 'honest') {
        honest++;
        const archetype = h.kind === null ? h.archetype : r.archetype;
        const a = archN[archetype] as [number, number];
        a[0]++;
        if (caught) {
          honestHit++;
          a[1]++;
          fdDecisions[o.decision] = (fdDecisions[o.decision] ?? 0) + 1;
          const byGate = fdGatesByArch[archetype] ?? {};
          fdGatesByArch[archetype] = byGate;
          for (const g of o.gates) {
            fdGates[g] = (fdGates[g] ?? 0) + 1;
            byGate[g] = (byGate[g] ?? 0) + 1;
          }
          for (const c of o.reasons) fdReasons[c] = (fdReasons[c] ?? 0) + 1;
        }
      } else {
        compromised++;
        const k = kindN[r.kind as string] as [number, number];
        k[0]++;
        if (caught) k[1]++;
      }
    });
    if (h.kind !== null && h.compromiseAt !== null) {
      compromisedHistories++;
      let hit = false;
      for (let i = h.compromiseAt; i < Math.min(h.requests.length, h.compromiseAt + 3); i++) {
        if (outs[i] !== undefined && (outs[i] as Outcome).decision !== 'APPROVE') hit = true;
      }
      const s = stopN[h.kind] as [number, number];
      s[0]++;
      if (hit) {
        s[1]++;
        stopped++;
      }
    }
  });
  const recall: Record<string, Rate> = {};
  let sum = 0;
  let kinds = 0;
  for (const k of names.kinds) {
    const [n, hit] = kindN[k] as [number, number];
    recall[k] = rate(n, hit);
    if (n > 0) {
      sum += (recall[k] as Rate).rate;
      kinds++;
    }
  }
  const stopByKind: Record<string, Rate> = {};
  for (const k of names.kinds) stopByKind[k] = rate(...(stopN[k] as [number, number]));
  const byArch: Record<string, Rate> = {};
  for (const a of names.archetypes) byArch[a] = rate(...(archN[a] as [number, number]));
  const sorted = Float64Array.from(rep.latencies).sort();
  let total = 0;
  for (const v of sorted) total += v;
  return {
    seed: corpus.seed,
    histories: corpus.histories.length,
    requests,
    honest_requests: honest,
    compromised_requests: compromised,
    recall_by_kind: recall,
    recall_mean_over_kinds: kinds === 0 ? 0 : Math.round((sum / kinds) * 10_000) / 10_000,
    stopped_within_3: rate(compromisedHistories, stopped),
    stopped_within_3_by_kind: stopByKind,
    false_declines: rate(honest, honestHit),
    false_declines_by_archetype: byArch,
    false_decline_gates: fdGates,
    false_decline_reasons: fdReasons,
    false_decline_gates_by_archetype: fdGatesByArch,
    false_decline_decisions: fdDecisions,
    latency_us: {
      p50: quantile(sorted, 0.5),
      p90: quantile(sorted, 0.9),
      p99: quantile(sorted, 0.99),
      max: quantile(sorted, 1),
      mean: sorted.length === 0 ? 0 : Math.round((total / sorted.length) * 1000) / 1000,
    },
  };
}

function addRates(into: Record<string, Rate>, from: Record<string, Rate>): void {
  for (const [k, v] of Object.entries(from)) {
    const t = into[k];
    into[k] = t === undefined ? rate(v.n, v.hit) : rate(t.n + v.n, t.hit + v.hit);
  }
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/**
 * Several reports of one generator at different seeds as one: every count summed, the recall mean
 * taken over the pooled kinds, each latency quantile the worst of the seeds' (the reports keep
 * quantiles, not the samples). `seed` is the first report's.
 */
export function pooled(reports: readonly QualityReport[]): QualityReport {
  const first = reports[0];
  if (first === undefined) throw new Error('pooled() needs at least one report');
  const recall: Record<string, Rate> = {};
  const stopByKind: Record<string, Rate> = {};
  const byArch: Record<string, Rate> = {};
  const fdGates: Record<string, number> = {};
  const fdReasons: Record<string, number> = {};
  const fdDecisions: Record<string, number> = {};
  const fdGatesByArch: Record<string, Record<string, number>> = {};
  let stopped = rate(0, 0);
  let fd = rate(0, 0);
  let histories = 0;
  let requests = 0;
  let honest = 0;
  let compromised = 0;
  const latency = { p50: 0, p90: 0, p99: 0, max: 0, mean: 0 };
  for (const r of reports) {
    addRates(recall, r.recall_by_kind);
    addRates(stopByKind, r.stopped_within_3_by_kind);
    addRates(byArch, r.false_declines_by_archetype);
    addCounts(fdGates, r.false_decline_gates);
    addCounts(fdReasons, r.false_decline_reasons);
    addCounts(fdDecisions, r.false_decline_decisions);
    for (const [a, gates] of Object.entries(r.false_decline_gates_by_archetype)) {
      const into = fdGatesByArch[a] ?? {};
      fdGatesByArch[a] = into;
      addCounts(into, gates);
    }
    stopped = rate(stopped.n + r.stopped_within_3.n, stopped.hit + r.stopped_within_3.hit);
    fd = rate(fd.n + r.false_declines.n, fd.hit + r.false_declines.hit);
    histories += r.histories;
    requests += r.requests;
    honest += r.honest_requests;
    compromised += r.compromised_requests;
    for (const q of ['p50', 'p90', 'p99', 'max', 'mean'] as const) latency[q] = Math.max(latency[q], r.latency_us[q]);
  }
  const kinds = Object.values(recall).filter((v) => v.n > 0);
  const mean = kinds.length === 0 ? 0 : kinds.reduce((s, v) => s + v.hit / v.n, 0) / kinds.length;
  return {
    seed: first.seed,
    histories,
    requests,
    honest_requests: honest,
    compromised_requests: compromised,
    recall_by_kind: recall,
    recall_mean_over_kinds: Math.round(mean * 10_000) / 10_000,
    stopped_within_3: stopped,
    stopped_within_3_by_kind: stopByKind,
    false_declines: fd,
    false_declines_by_archetype: byArch,
    false_decline_gates: fdGates,
    false_decline_reasons: fdReasons,
    false_decline_gates_by_archetype: fdGatesByArch,
    false_decline_decisions: fdDecisions,
    latency_us: latency,
  };
}

/** Replays the corpus `runs` times (the first warms the JIT up) and scores the last run. */
export function evaluateCorpus(corpus: AnyCorpus, runs = 2, names: CorpusNames = FIRST_CORPUS_NAMES): QualityReport {
  let rep = replay(corpus);
  for (let i = 1; i < runs; i++) rep = replay(corpus);
  return score(corpus, rep, names);
}

/** The false declines and missed compromises of a replay, for tuning (never on the held-out seed). */
export function errorsOf(corpus: AnyCorpus, rep: Replay): string[] {
  const lines: string[] = [];
  corpus.histories.forEach((h, hi) => {
    const outs = rep.outcomes[hi] as Outcome[];
    h.requests.forEach((r, i) => {
      const o = outs[i];
      if (o === undefined) return;
      const caught = o.decision !== 'APPROVE';
      if (r.label === 'honest' && caught) {
        lines.push(
          `FD ${h.id}#${i} ${r.archetype} ${o.decision} ${o.reasons.join(',')} | ${r.amount} ${r.currency} ${r.merchantName} ${r.mcc} ${r.country} "${r.intentType}" ${r.taskReference} "${r.reasoningSummary ?? ''}" -- ${o.detail}`,
        );
      } else if (r.label === 'compromised' && !caught) {
        lines.push(
          `MISS ${h.id}#${i} ${r.kind} | ${r.amount} ${r.currency} ${r.merchantName} ${r.mcc} ${r.country} "${r.intentType}" ${r.taskReference} "${r.reasoningSummary ?? ''}"`,
        );
      }
    });
  });
  return lines;
}
