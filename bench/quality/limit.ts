// The measured limit of issue 26 (docs/decision-engine.md "The imitation limit"). "Stopped
// within 3" asks that an agent imitating its own history be stopped within its first three
// compromised requests. Those requests copy the agent: a merchant it never paid, but in a
// category group, a country and a currency it pays in, at an amount within the outlier multiple
// of its median. Only the merchant's novelty tells them apart, so a gate that stops them steps up
// honest requests of the same profile as well: at the latest the third such in a row, within the
// time the imitation takes. This module counts both sides on a corpus, labels only (no gate runs).
import { groupsOfMcc } from '../../src/decision/core.js';
import type { Corpus, CorpusHistory, CorpusRequest } from './corpus.js';

type AnyCorpus = Corpus<string, string>;
type AnyRequest = CorpusRequest<string, string>;

/** The kind whose first requests imitate the agent, in both corpora. */
export const IMITATION_KIND = 'mimic_then_deviate';
/** Requests of an agent before its habit is judged (amount_outlier_min_history's default: its pace is learned). */
export const HABIT_REQUESTS = 5;
/** A run's requests lie within this long (more than the 20 hours three imitation requests span at most). */
export const RUN_SPAN_MS = 30 * 3_600_000;
/** amount_outlier_multiplier's default: an amount within it of the median is not an outlier. */
const AMOUNT_MULTIPLE = 5;

export interface ImitationLimit {
  /** The first three compromised requests of the imitating histories. */
  readonly imitated: number;
  /** ...of them copies of the agent: nothing but the merchant's novelty tells them apart. */
  readonly copies: number;
  /** Imitating histories whose first three compromised requests are all copies. */
  readonly histories: number;
  readonly historiesCopied: number;
  /** Honest requests after an agent's first HABIT_REQUESTS requests. */
  readonly honest: number;
  /** ...of them copies in the same sense (a new merchant of a group, country and currency paid). */
  readonly honestAlike: number;
  /** ...the second and the third in a row of such requests within RUN_SPAN_MS. */
  readonly honestSecond: number;
  readonly honestThird: number;
}

/** What an agent paid before a request: merchants, category groups, countries, currencies, amounts. */
class Habit {
  private readonly merchants = new Set<string>();
  private readonly countries = new Set<string>();
  private readonly mccs = new Set<string>();
  /** Amounts per currency (the engine's baselines are per currency). */
  private readonly amounts = new Map<string, number[]>();
  private groups = 0;

  learn(r: AnyRequest): void {
    this.merchants.add(r.merchantId);
    this.countries.add(r.country);
    this.mccs.add(r.mcc);
    const list = this.amounts.get(r.currency) ?? [];
    list.push(Number(r.amount));
    this.amounts.set(r.currency, list);
    this.groups |= groupsOfMcc(r.mcc);
  }

  /**
   * A new merchant of a category (its MCC's group, or the MCC itself when it has none), a country
   * and a currency the agent pays in, within x5 of its median amount in that currency.
   */
  copies(r: AnyRequest): boolean {
    const list = this.amounts.get(r.currency);
    if (this.merchants.has(r.merchantId) || list === undefined) return false;
    const sorted = [...list].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    const ratio = Number(r.amount) / median;
    const group = groupsOfMcc(r.mcc);
    return (
      (group === 0 ? this.mccs.has(r.mcc) : (group & this.groups) !== 0) &&
      this.countries.has(r.country) &&
      ratio < AMOUNT_MULTIPLE &&
      ratio > 1 / AMOUNT_MULTIPLE
    );
  }
}

function countImitation(h: CorpusHistory<string, string>): { imitated: number; copies: number } {
  const at = h.compromiseAt as number;
  const habit = new Habit();
  for (const r of h.requests.slice(0, at)) habit.learn(r);
  let copies = 0;
  const first = h.requests.slice(at, at + 3);
  for (const r of first) if (habit.copies(r)) copies++;
  return { imitated: first.length, copies };
}

/** Counts the imitation's copies and the honest requests of the same profile on `corpus`. */
export function imitationLimit(corpus: AnyCorpus): ImitationLimit {
  let imitated = 0;
  let copies = 0;
  let histories = 0;
  let historiesCopied = 0;
  let honest = 0;
  let honestAlike = 0;
  let honestSecond = 0;
  let honestThird = 0;
  for (const h of corpus.histories) {
    if (h.kind === IMITATION_KIND && h.compromiseAt !== null) {
      const c = countImitation(h);
      imitated += c.imitated;
      copies += c.copies;
      histories++;
      if (c.copies === c.imitated) historiesCopied++;
    }
    const habit = new Habit();
    const run: number[] = [];
    let seen = 0;
    for (const r of h.requests) {
      if (r.label !== 'honest') continue;
      if (seen++ >= HABIT_REQUESTS) {
        honest++;
        if (habit.copies(r)) {
          honestAlike++;
          while (run.length > 0 && r.atMs - (run[0] as number) > RUN_SPAN_MS) run.shift();
          run.push(r.atMs);
          if (run.length >= 2) honestSecond++;
          if (run.length >= 3) honestThird++;
        } else run.length = 0;
      }
      habit.learn(r);
    }
  }
  return { imitated, copies, histories, historiesCopied, honest, honestAlike, honestSecond, honestThird };
}
