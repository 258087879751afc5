// The independent labeled corpus (docs/quality-independent-corpus.md), in the harness's Corpus
// shape: honest agents of nine archetypes and compromised agents of eight kinds, each
// compromised history honest up to its recorded compromise point. Deterministic from a seed.
import type { Corpus, CorpusHistory, CorpusMandate, CorpusRequest } from '../corpus.js';
import {
  capProbing,
  cashOut,
  coordinatedDrain,
  drainShops,
  type Limits,
  merchantMimicry,
  mimicThenDeviate,
  promptInjection,
  rapidFire,
  slowDrip,
  type Takeover,
} from './attacks.js';
import type { Draft, HonestPlan } from './draft.js';
import { bursts } from './honest/bursts.js';
import { delegate } from './honest/delegate.js';
import { errands } from './honest/errands.js';
import { eventPlanning } from './honest/event-planning.js';
import { marketplace } from './honest/marketplace.js';
import { procurement } from './honest/procurement.js';
import { relocation } from './honest/relocation.js';
import { subscriptions } from './honest/subscriptions.js';
import { travel } from './honest/travel.js';
import { formatMinor, niceLimit } from './money.js';
import { Prng } from './prng.js';
import { INDEPENDENT_SEED } from './seed.js';
import { DAY_MS, HOUR_MS, localTime, MINUTE_MS, START_MS } from './world.js';

export { INDEPENDENT_POOL_SEEDS, INDEPENDENT_SEED } from './seed.js';

export const INDEPENDENT_ARCHETYPES = [
  'subscriptions',
  'travel',
  'marketplace',
  'procurement',
  'delegate',
  'bursts',
  'errands',
  'relocation',
  'event_planning',
] as const;
export type IndependentArchetype = (typeof INDEPENDENT_ARCHETYPES)[number];

export const INDEPENDENT_KINDS = [
  'slow_drip',
  'cap_probing',
  'merchant_mimicry',
  'prompt_injection',
  'mimic_then_deviate',
  'coordinated_drain',
  'rapid_fire',
  'cash_out',
] as const;
export type IndependentKind = (typeof INDEPENDENT_KINDS)[number];

export type IndependentCorpus = Corpus<IndependentArchetype, IndependentKind>;
type History = CorpusHistory<IndependentArchetype, IndependentKind>;

/** Agents per Principal: the harness groups consecutive histories eight to a Principal. */
export const PRINCIPAL_SIZE = 8;

const HONEST: Readonly<Record<IndependentArchetype, (rng: Prng) => HonestPlan>> = {
  subscriptions,
  travel,
  marketplace,
  procurement,
  delegate,
  bursts,
  errands,
  relocation,
  event_planning: eventPlanning,
};

/** The archetypes an attack of each kind starts from (the attacker needs a past to imitate). */
const BASES: Readonly<Record<IndependentKind, readonly IndependentArchetype[]>> = {
  slow_drip: INDEPENDENT_ARCHETYPES,
  cap_probing: INDEPENDENT_ARCHETYPES,
  merchant_mimicry: ['subscriptions', 'delegate', 'errands', 'procurement', 'bursts'],
  prompt_injection: INDEPENDENT_ARCHETYPES,
  mimic_then_deviate: INDEPENDENT_ARCHETYPES,
  coordinated_drain: ['errands', 'delegate', 'bursts', 'marketplace', 'travel', 'relocation'],
  rapid_fire: INDEPENDENT_ARCHETYPES,
  cash_out: INDEPENDENT_ARCHETYPES,
};

type Attack = (rng: Prng, t: Takeover) => Draft[];

const ATTACKS: Readonly<Record<Exclude<IndependentKind, 'coordinated_drain'>, Attack>> = {
  slow_drip: slowDrip,
  cap_probing: capProbing,
  merchant_mimicry: merchantMimicry,
  prompt_injection: promptInjection,
  mimic_then_deviate: mimicThenDeviate,
  rapid_fire: rapidFire,
  cash_out: cashOut,
};

export interface IndependentOptions {
  /** Honest histories per archetype (default 6). */
  readonly honestPerArchetype?: number;
  /** Compromised histories per kind (default 6; a coordinated drain counts its agents). */
  readonly perKind?: number;
}

/** The mandates a Principal grants for an agent's honest behaviour, one per currency, with headroom. */
function mandatesFor(
  rng: Prng,
  id: string,
  drafts: readonly Draft[],
): { mandates: CorpusMandate[]; limits: Map<string, Limits> } {
  const byCurrency = new Map<string, Draft[]>();
  for (const d of drafts) {
    const list = byCurrency.get(d.currency) ?? [];
    list.push(d);
    byCurrency.set(d.currency, list);
  }
  const mandates: CorpusMandate[] = [];
  const limits = new Map<string, Limits>();
  for (const [currency, list] of [...byCurrency.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    let maxTx = 0;
    let max24h = 0;
    let lo = 0;
    let sum = 0;
    for (let hi = 0; hi < list.length; hi++) {
      const d = list[hi] as Draft;
      maxTx = Math.max(maxTx, d.minor);
      sum += d.minor;
      while ((list[lo] as Draft).atMs <= d.atMs - DAY_MS) sum -= (list[lo++] as Draft).minor;
      max24h = Math.max(max24h, sum);
    }
    const perTx = niceLimit(maxTx * rng.range(1.3, 2.5), currency);
    const daily = niceLimit(Math.max(perTx * rng.range(1.5, 3), max24h * rng.range(1.5, 2.5)), currency);
    limits.set(currency, { perTx, daily });
    mandates.push({
      id: `mnd_${id}_${currency.toLowerCase()}`,
      currency,
      perTransaction: formatMinor(perTx, currency),
      daily: formatMinor(daily, currency),
    });
  }
  return { mandates, limits };
}

function request(
  d: Draft,
  archetype: IndependentArchetype,
  kind: IndependentKind | null,
): CorpusRequest<IndependentArchetype, IndependentKind> {
  return {
    atMs: d.atMs,
    amount: formatMinor(d.minor, d.currency),
    currency: d.currency,
    merchantName: d.merchant.name,
    merchantId: d.merchant.id,
    mcc: d.merchant.mcc,
    country: d.merchant.country,
    intentType: d.intentType,
    taskReference: d.taskReference,
    reasoningSummary: d.reasoning,
    sessionId: d.sessionId,
    label: kind === null ? 'honest' : 'compromised',
    kind,
    archetype,
  };
}

function history(
  rng: Prng,
  id: string,
  archetype: IndependentArchetype,
  kind: IndependentKind | null,
  plan: HonestPlan,
  mandates: CorpusMandate[],
  past: readonly Draft[],
  attack: readonly Draft[],
): History {
  const requests = past.map((d) => request(d, archetype, null));
  const bad = attack.slice().sort((a, b) => a.atMs - b.atMs);
  const first = past[0] ?? bad[0];
  return {
    id,
    archetype,
    kind,
    compromiseAt: kind === null ? null : requests.length,
    createdAtMs: (first?.atMs ?? START_MS) - Math.round(rng.range(1, 120) * HOUR_MS),
    capabilities: plan.profile.capabilities,
    mandates,
    requests: requests.concat(bad.map((d) => request(d, archetype, kind))),
  };
}

/** An honest plan with at least `min` requests before `untilMs` (redrawn from further forks until it has). */
function planWith(rng: Prng, label: string, archetype: IndependentArchetype, min: number, untilMs: number): HonestPlan {
  for (let k = 0; ; k++) {
    const plan = HONEST[archetype](rng.fork(`${label}/${k}`));
    if (plan.drafts.filter((d) => d.atMs < untilMs).length >= min || k >= 20) return plan;
  }
}

export function generateIndependentCorpus(
  seed: number = INDEPENDENT_SEED,
  opts: IndependentOptions = {},
): IndependentCorpus {
  const root = new Prng(seed);
  const honestN = opts.honestPerArchetype ?? 6;
  const perKind = opts.perKind ?? 6;
  const singles: History[] = [];
  const blocks: History[][] = [];
  const lastAttackMs = START_MS + 50 * DAY_MS;

  for (const archetype of INDEPENDENT_ARCHETYPES) {
    for (let i = 0; i < honestN; i++) {
      const id = `ind-${archetype}-${i}`;
      const rng = root.fork(id);
      const plan = planWith(rng, id, archetype, 10, Number.POSITIVE_INFINITY);
      const { mandates } = mandatesFor(rng, id, plan.drafts);
      singles.push(history(rng, id, archetype, null, plan, mandates, plan.drafts, []));
    }
  }

  for (const kind of INDEPENDENT_KINDS) {
    const bases = root.fork(`bases/${kind}`).shuffle(BASES[kind]);
    if (kind === 'coordinated_drain') {
      // Groups of three or four agents of one Principal, taken over at the same hour.
      const groups = Math.max(1, Math.round(perKind / 3.5));
      let made = 0;
      for (let g = 0; g < groups; g++) {
        const grng = root.fork(`ind-drain-group-${g}`);
        const size = Math.ceil((perKind - made) / (groups - g));
        const day = grng.int(22, 40);
        const hour = grng.range(11, 19);
        const shops = drainShops(grng);
        const block: History[] = [];
        for (let j = 0; j < size; j++) {
          const id = `ind-${kind}-${g}-${j}`;
          const rng = root.fork(id);
          const archetype = bases[(made + j) % bases.length] as IndependentArchetype;
          const plan = planWith(rng, id, archetype, 8, START_MS + day * DAY_MS);
          const atMs = localTime(day, hour, 0) + j * Math.round(rng.range(1, 9) * MINUTE_MS);
          const past = plan.drafts.filter((d) => d.atMs < atMs);
          const { mandates, limits } = mandatesFor(rng, id, plan.drafts);
          const attack = coordinatedDrain(rng, { profile: plan.profile, past, limits, atMs }, shops);
          block.push(history(rng, id, archetype, kind, plan, mandates, past, attack));
        }
        blocks.push(block);
        made += size;
      }
      continue;
    }
    for (let i = 0; i < perKind; i++) {
      const id = `ind-${kind}-${i}`;
      const rng = root.fork(id);
      const archetype = bases[i % bases.length] as IndependentArchetype;
      const plan = planWith(rng, id, archetype, 10, lastAttackMs);
      const usable = plan.drafts.filter((d) => d.atMs < lastAttackMs);
      const cut = rng.int(8, Math.max(8, Math.min(25, usable.length)));
      const past = plan.drafts.slice(0, cut);
      const lastMs = (past[past.length - 1] as Draft).atMs;
      const atMs = lastMs + Math.round(rng.range(0.3, 36) * HOUR_MS);
      const { mandates, limits } = mandatesFor(rng, id, plan.drafts);
      const attack = ATTACKS[kind](rng, { profile: plan.profile, past, limits, atMs });
      singles.push(history(rng, id, archetype, kind, plan, mandates, past, attack));
    }
  }

  // Eight agents to a Principal: each drain's agents open a Principal of their own, filled up
  // with other agents; the other agents are shuffled.
  const order = root.fork('order');
  const rest = order.shuffle(singles);
  const histories: History[] = [];
  for (let p = 0; rest.length > 0 || blocks.length > 0; p++) {
    if (blocks.length > 0 && (p % 2 === 1 || rest.length === 0)) {
      if (histories.length % PRINCIPAL_SIZE !== 0) throw new Error('a coordinated drain would straddle two Principals');
      histories.push(...(blocks.shift() as History[]));
    }
    while (histories.length < (p + 1) * PRINCIPAL_SIZE && rest.length > 0) histories.push(rest.shift() as History);
  }
  return { seed, startMs: START_MS, histories };
}

export interface IndependentStats {
  readonly seed: number;
  readonly histories: number;
  readonly requests: number;
  readonly honest_requests: number;
  readonly compromised_requests: number;
  readonly histories_by_archetype: Record<string, number>;
  readonly histories_by_kind: Record<string, number>;
  readonly currencies: number;
  readonly countries: number;
  readonly merchants: number;
}

export function independentStats(corpus: IndependentCorpus): IndependentStats {
  const byArchetype: Record<string, number> = {};
  const byKind: Record<string, number> = {};
  const currencies = new Set<string>();
  const countries = new Set<string>();
  const merchants = new Set<string>();
  let requests = 0;
  let compromised = 0;
  for (const h of corpus.histories) {
    if (h.kind === null) byArchetype[h.archetype] = (byArchetype[h.archetype] ?? 0) + 1;
    else byKind[h.kind] = (byKind[h.kind] ?? 0) + 1;
    for (const r of h.requests) {
      requests++;
      if (r.label === 'compromised') compromised++;
      currencies.add(r.currency);
      countries.add(r.country);
      merchants.add(r.merchantId);
    }
  }
  return {
    seed: corpus.seed,
    histories: corpus.histories.length,
    requests,
    honest_requests: requests - compromised,
    compromised_requests: compromised,
    histories_by_archetype: byArchetype,
    histories_by_kind: byKind,
    currencies: currencies.size,
    countries: countries.size,
    merchants: merchants.size,
  };
}
