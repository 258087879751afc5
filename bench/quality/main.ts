// `npm run quality -- [--seed <n>] [--independent-seed <n>] [--out <dir>] [--errors]`: the
// decision-quality figures on two labeled corpora side by side. Without a seed it reports the
// first corpus at its tuning and held-out seeds and the independent corpus
// (docs/quality-independent-corpus.md) at its seed. --seed reports only the first corpus at that
// seed, --independent-seed only the independent corpus at that seed (both flags: both).
// --errors lists the false declines and misses of the first corpus's tuning seed and the tuned
// detector sets' wrong items (bench/quality/detectors.ts; never the held-out sets'); it is refused
// for the held-out seed and never lists the independent corpus (neither is tuned on).
// Beside the figures, each corpus's imitation limit (limit.ts): the imitation's first requests
// that copy the agent at new merchants, and the honest requests that do the same.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { commit, machine } from '../report/results.js';
import { corpusStats, generateCorpus, HELD_OUT_SEED, TUNING_SEED } from './corpus.js';
import {
  type DetectorSetReport,
  injectionHoldoutReport,
  injectionSetReport,
  lookalikeHoldoutReport,
  lookalikeSetReport,
} from './detectors.js';
import {
  errorsOf,
  evaluateCorpus,
  FIRST_CORPUS_NAMES,
  pooled,
  type QualityReport,
  type Rate,
  rate,
  replay,
} from './harness.js';
import {
  generateIndependentCorpus,
  INDEPENDENT_ARCHETYPES,
  INDEPENDENT_KINDS,
  INDEPENDENT_POOL_SEEDS,
  INDEPENDENT_SEED,
  type IndependentCorpus,
  independentStats,
} from './independent/corpus.js';
import { HABIT_REQUESTS, type ImitationLimit, imitationLimit, RUN_SPAN_MS } from './limit.js';

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string' },
    'independent-seed': { type: 'string' },
    out: { type: 'string', default: 'bench/results' },
    errors: { type: 'boolean', default: false },
  },
  strict: true,
});

/** The targets, printed next to every figure. */
const TARGETS = {
  recallMean: 0.95,
  stoppedWithin3: 0.97,
  falseDeclines: 0.01,
  falseDeclinesPerArchetype: 0.03,
} as const;

interface Labeled {
  readonly corpus: 'first' | 'independent';
  readonly label: string;
  readonly report: QualityReport;
  /** The imitation limit on the same corpus (limit.ts). */
  readonly limit: ImitationLimit;
}

function pct(r: Rate): string {
  return `${(r.rate * 100).toFixed(2)}% (${r.hit}/${r.n})`;
}

function met(ok: boolean): string {
  return ok ? 'met' : 'NOT MET';
}

function worstArchetype(r: QualityReport): { name: string; rate: Rate } {
  let name = '-';
  let worst: Rate = { n: 0, hit: 0, rate: 0 };
  for (const [a, v] of Object.entries(r.false_declines_by_archetype)) {
    if (v.n > 0 && (v.rate > worst.rate || name === '-')) {
      name = a;
      worst = v;
    }
  }
  return { name, rate: worst };
}

/** The headline figures of one report, each with its target and whether it is met. */
function headline(r: QualityReport) {
  const worst = worstArchetype(r);
  return {
    recall_mean_over_kinds: {
      value: r.recall_mean_over_kinds,
      target: `>= ${TARGETS.recallMean}`,
      met: r.recall_mean_over_kinds >= TARGETS.recallMean,
    },
    stopped_within_3: {
      value: r.stopped_within_3.rate,
      target: `>= ${TARGETS.stoppedWithin3}`,
      met: r.stopped_within_3.rate >= TARGETS.stoppedWithin3,
    },
    false_declines: {
      value: r.false_declines.rate,
      target: `<= ${TARGETS.falseDeclines}`,
      met: r.false_declines.rate <= TARGETS.falseDeclines,
    },
    worst_archetype_false_declines: {
      archetype: worst.name,
      value: worst.rate.rate,
      target: `<= ${TARGETS.falseDeclinesPerArchetype}`,
      met: worst.rate.rate <= TARGETS.falseDeclinesPerArchetype,
    },
  };
}

function sideBySide(all: readonly Labeled[]): string {
  const w = 30;
  const col = (s: string): string => s.padEnd(w);
  const lines: string[] = [];
  lines.push(`${''.padEnd(34)}${all.map((x) => col(x.label)).join('')}target`);
  const row = (name: string, cell: (r: QualityReport) => string, target: string): void => {
    lines.push(`${name.padEnd(34)}${all.map((x) => col(cell(x.report))).join('')}${target}`);
  };
  row('histories / requests', (r) => `${r.histories} / ${r.requests} (${r.compromised_requests} bad)`, '');
  row(
    'recall mean over kinds',
    (r) => `${r.recall_mean_over_kinds.toFixed(4)} ${met(r.recall_mean_over_kinds >= TARGETS.recallMean)}`,
    `>= ${TARGETS.recallMean}`,
  );
  row(
    'stopped within first 3',
    (r) => `${(r.stopped_within_3.rate * 100).toFixed(2)}% ${met(r.stopped_within_3.rate >= TARGETS.stoppedWithin3)}`,
    `>= ${TARGETS.stoppedWithin3 * 100}%`,
  );
  row(
    'false declines overall',
    (r) => `${(r.false_declines.rate * 100).toFixed(2)}% ${met(r.false_declines.rate <= TARGETS.falseDeclines)}`,
    `<= ${TARGETS.falseDeclines * 100}%`,
  );
  row(
    'false declines, worst archetype',
    (r) => {
      const worst = worstArchetype(r);
      return `${(worst.rate.rate * 100).toFixed(2)}% ${worst.name} ${met(worst.rate.rate <= TARGETS.falseDeclinesPerArchetype)}`;
    },
    `<= ${TARGETS.falseDeclinesPerArchetype * 100}% each`,
  );
  row(
    'archetypes over 3%',
    (r) => {
      const over = Object.values(r.false_declines_by_archetype).filter(
        (v) => v.rate > TARGETS.falseDeclinesPerArchetype,
      ).length;
      return `${over} of ${Object.keys(r.false_declines_by_archetype).length}`;
    },
    '0',
  );
  return lines.join('\n');
}

function detail(x: Labeled): string {
  const r = x.report;
  const lines: string[] = [];
  lines.push(`${x.label}: ${r.histories} histories, ${r.requests} requests (${r.compromised_requests} compromised)`);
  lines.push(
    `  recall averaged over kinds  ${r.recall_mean_over_kinds.toFixed(4)} (target >= ${TARGETS.recallMean}: ${met(r.recall_mean_over_kinds >= TARGETS.recallMean)})`,
  );
  for (const [k, v] of Object.entries(r.recall_by_kind)) {
    const s = r.stopped_within_3_by_kind[k];
    lines.push(`    ${k.padEnd(20)} recall ${pct(v).padEnd(22)} stopped within 3: ${s ? pct(s) : '-'}`);
  }
  lines.push(
    `  histories stopped within 3  ${pct(r.stopped_within_3)} (target >= ${TARGETS.stoppedWithin3 * 100}%: ${met(r.stopped_within_3.rate >= TARGETS.stoppedWithin3)})`,
  );
  lines.push(
    `  false declines              ${pct(r.false_declines)} (target <= ${TARGETS.falseDeclines * 100}%: ${met(r.false_declines.rate <= TARGETS.falseDeclines)})`,
  );
  for (const [a, v] of Object.entries(r.false_declines_by_archetype)) {
    const gates = r.false_decline_gates_by_archetype[a];
    const behind = gates === undefined ? '' : `  gates ${JSON.stringify(gates)}`;
    lines.push(
      `    ${a.padEnd(20)} ${pct(v).padEnd(20)} ${met(v.rate <= TARGETS.falseDeclinesPerArchetype).padEnd(8)}${behind}`,
    );
  }
  lines.push(`  decisions on false declines ${JSON.stringify(r.false_decline_decisions)}`);
  lines.push(`  gates on false declines     ${JSON.stringify(r.false_decline_gates)}`);
  lines.push(`  reasons on false declines   ${JSON.stringify(r.false_decline_reasons)}`);
  const l = r.latency_us;
  lines.push(`  evaluate() per decision     p50 ${l.p50} us  p90 ${l.p90} us  p99 ${l.p99} us  max ${l.max} us`);
  return lines.join('\n');
}

function seedArg(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) {
    process.stderr.write(`--${name} must be an integer\n`);
    process.exit(2);
  }
  return n;
}

const firstSeed = seedArg('seed', args.seed);
const independentSeed = seedArg('independent-seed', args['independent-seed']);
const anySeed = firstSeed !== undefined || independentSeed !== undefined;
const firstSeeds = firstSeed !== undefined ? [firstSeed] : anySeed ? [] : [TUNING_SEED, HELD_OUT_SEED];
const independentSeeds = independentSeed !== undefined ? [independentSeed] : anySeed ? [] : [INDEPENDENT_SEED];

if (args.errors && firstSeed === HELD_OUT_SEED) {
  process.stderr.write(`--errors is refused for the held-out seed ${HELD_OUT_SEED}\n`);
  process.exit(2);
}

const all: Labeled[] = [];
const reports: unknown[] = [];
for (const seed of firstSeeds) {
  const corpus = generateCorpus(seed);
  if (args.errors && seed !== HELD_OUT_SEED) {
    for (const line of errorsOf(corpus, replay(corpus))) process.stdout.write(`${line}\n`);
  }
  const report = evaluateCorpus(corpus, 3, FIRST_CORPUS_NAMES);
  const label =
    seed === TUNING_SEED
      ? `first, tuning ${seed}`
      : seed === HELD_OUT_SEED
        ? `first, held-out ${seed}`
        : `first, seed ${seed}`;
  all.push({ corpus: 'first', label, report, limit: imitationLimit(corpus) });
  reports.push({ ...report, corpus: corpusStats(corpus) });
}
const independent: unknown[] = [];
const independentNames = { archetypes: INDEPENDENT_ARCHETYPES, kinds: INDEPENDENT_KINDS };
for (const seed of independentSeeds) {
  const corpus = generateIndependentCorpus(seed);
  const report = evaluateCorpus(corpus, 3, independentNames);
  all.push({ corpus: 'independent', label: `independent ${seed}`, report, limit: imitationLimit(corpus) });
  independent.push({ ...report, corpus: independentStats(corpus) });
}
// Without a seed: the independent corpus at INDEPENDENT_POOL_SEEDS as well, pooled (one seed's
// figures swing by several points; the pool is the steadier measure).
let independentPooled: QualityReport | null = null;
if (!anySeed) {
  const corpora = INDEPENDENT_POOL_SEEDS.map((seed) => generateIndependentCorpus(seed));
  const each = corpora.map((c) => evaluateCorpus(c, 2, independentNames));
  independentPooled = pooled(each);
  const limit = imitationLimit({
    ...(corpora[0] as IndependentCorpus),
    histories: corpora.flatMap((c) => c.histories),
  });
  all.push({ corpus: 'independent', label: `independent, ${each.length} seeds`, report: independentPooled, limit });
}
if (args.errors && independentSeeds.length > 0) {
  process.stdout.write('(--errors does not list the independent corpus: it is never tuned on)\n');
}

process.stdout.write(
  `Decision quality, side by side (targets: recall mean >= ${TARGETS.recallMean}, stopped within 3 >= ${TARGETS.stoppedWithin3 * 100}%, false declines <= ${TARGETS.falseDeclines * 100}% overall and <= ${TARGETS.falseDeclinesPerArchetype * 100}% per archetype)\n\n`,
);
process.stdout.write(`${sideBySide(all)}\n\n`);
for (const x of all) process.stdout.write(`${detail(x)}\n\n`);

process.stdout.write(
  `The imitation limit (bench/quality/limit.ts, labels only: docs/decision-engine.md "The imitation limit")\n`,
);
for (const x of all) {
  const l = x.limit;
  process.stdout.write(
    `  ${x.label.padEnd(24)} the first 3 compromised requests of ${l.histories} imitating histories that copy the agent at a new merchant ${pct(rate(l.imitated, l.copies))}, all 3 in ${l.historiesCopied}; ` +
      `honest requests after the first ${HABIT_REQUESTS} that do ${pct(rate(l.honest, l.honestAlike))}, the 2nd in a row within ${RUN_SPAN_MS / 3_600_000} h ${pct(rate(l.honest, l.honestSecond))}, the 3rd ${pct(rate(l.honest, l.honestThird))}\n`,
  );
}
process.stdout.write('\n');

const detectors = { injection: injectionSetReport(), lookalike: lookalikeSetReport() };
const holdouts = { injection: injectionHoldoutReport(), lookalike: lookalikeHoldoutReport() };
function detectorLine(name: string, r: DetectorSetReport, bad: string, good: string): string {
  return `  ${name.padEnd(18)} ${bad} caught ${pct(r.caught).padEnd(20)} ${good} flagged ${pct(r.flagged)}`;
}
process.stdout.write(
  `Detector sets (bench/quality/detectors/, written apart from the detectors, tuned on)\n${detectorLine('prompt injection', detectors.injection, 'malicious texts', 'honest texts')}\n${detectorLine('merchant lookalike', detectors.lookalike, 'imitations', 'other names')}\n\n`,
);
process.stdout.write(
  `Held-out detector sets (bench/quality/detectors/*-holdout.json, written apart from the detectors and the sets above, never tuned on)\n${detectorLine('prompt injection', holdouts.injection, 'malicious texts', 'honest texts')}\n${detectorLine('merchant lookalike', holdouts.lookalike, 'imitations', 'other names')}\n\n`,
);
if (args.errors) {
  for (const line of detectors.injection.wrong) process.stdout.write(`INJECTION ${line}\n`);
  for (const line of detectors.lookalike.wrong) process.stdout.write(`LOOKALIKE ${line}\n`);
}

mkdirSync(args.out, { recursive: true });
const file = join(args.out, 'quality.json');
writeFileSync(
  file,
  `${JSON.stringify(
    {
      scenario: 'quality',
      commit: commit(process.cwd()),
      machine: machine(),
      at: new Date().toISOString(),
      tuning_seed: TUNING_SEED,
      held_out_seed: HELD_OUT_SEED,
      independent_seed: INDEPENDENT_SEED,
      independent_pool_seeds: INDEPENDENT_POOL_SEEDS,
      targets: {
        recall_mean_over_kinds: TARGETS.recallMean,
        stopped_within_3: TARGETS.stoppedWithin3,
        false_declines: TARGETS.falseDeclines,
        false_declines_per_archetype: TARGETS.falseDeclinesPerArchetype,
      },
      side_by_side: all.map((x) => ({ corpus: x.corpus, label: x.label, seed: x.report.seed, ...headline(x.report) })),
      imitation_limit: all.map((x) => ({ corpus: x.corpus, label: x.label, ...x.limit })),
      reports,
      independent,
      independent_pooled: independentPooled,
      detectors: {
        injection: { ...detectors.injection, wrong: undefined },
        lookalike: { ...detectors.lookalike, wrong: undefined },
        injection_holdout: { ...holdouts.injection, wrong: undefined },
        lookalike_holdout: { ...holdouts.lookalike, wrong: undefined },
      },
    },
    null,
    2,
  )}\n`,
);
process.stdout.write(`written ${file}\n`);
