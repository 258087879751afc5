// Labeled sets for two detectors, written apart from them (bench/quality/detectors/*.json, each
// file's `about` says by whom and from what brief): prompt-injection texts against honest intent
// texts (injection.ts, injection-claims.ts), and merchant names imitating ones an agent paid
// against honest other names (lookalike.ts). `npm run quality` prints both; the floors in
// test/pipeline/detector-sets.test.ts keep them from regressing. They were tuned on (the misses
// read and the detectors extended), so they measure the detectors' breadth. A second pair,
// *-holdout.json, was written later by other helpers from other briefs and is never tuned on:
// only its aggregates are reported (no wrong items), and it measures how the detectors
// generalize.
import { detectInjection, imitatesKnown, knownNamesOf, nameWords } from '../../src/decision/core.js';
import injectionHoldout from './detectors/injection-holdout.json' with { type: 'json' };
import injectionSet from './detectors/injection-set.json' with { type: 'json' };
import lookalikeHoldout from './detectors/lookalike-holdout.json' with { type: 'json' };
import lookalikeSet from './detectors/lookalike-set.json' with { type: 'json' };
import { type Rate, rate } from './harness.js';

interface InjectionItem {
  readonly field: string;
  readonly text: string;
  readonly family: string;
}
interface LookalikeItem {
  readonly known: readonly string[];
  readonly candidate: string;
  readonly family: string;
}

export interface DetectorSetReport {
  /** Malicious texts (imitating names) the detector found. */
  readonly caught: Rate;
  /** Honest texts (other names) it flagged. */
  readonly flagged: Rate;
  /** Family -> rate: caught for the malicious ones, flagged for the honest ones. */
  readonly by_family: Record<string, Rate>;
  /** The items judged wrongly (label, family, the item). */
  readonly wrong: readonly string[];
}

function report<T extends { family: string }>(
  bad: readonly T[],
  good: readonly T[],
  judge: (x: T) => boolean,
  show: (x: T) => string,
): DetectorSetReport {
  const families = new Map<string, { n: number; hit: number }>();
  const wrong: string[] = [];
  let caught = 0;
  let flagged = 0;
  for (const [label, list] of [
    ['bad', bad],
    ['good', good],
  ] as const) {
    for (const x of list) {
      const hit = judge(x);
      const key = `${label === 'bad' ? 'caught' : 'flagged'} ${x.family}`;
      const f = families.get(key) ?? { n: 0, hit: 0 };
      f.n++;
      if (hit) f.hit++;
      families.set(key, f);
      if (label === 'bad' && hit) caught++;
      if (label === 'good' && hit) flagged++;
      if (hit !== (label === 'bad')) wrong.push(`${label === 'bad' ? 'MISS' : 'FLAG'} ${x.family}: ${show(x)}`);
    }
  }
  const by_family: Record<string, Rate> = {};
  for (const [k, v] of [...families].sort(([a], [b]) => a.localeCompare(b))) by_family[k] = rate(v.n, v.hit);
  return { caught: rate(bad.length, caught), flagged: rate(good.length, flagged), by_family, wrong };
}

interface InjectionSet {
  readonly malicious: readonly InjectionItem[];
  readonly benign: readonly InjectionItem[];
}
interface LookalikeSet {
  readonly imitations: readonly LookalikeItem[];
  readonly different: readonly LookalikeItem[];
}

/** Without its wrong items: a held-out set is measured, never read item by item. */
function heldOut(r: DetectorSetReport): DetectorSetReport {
  return { ...r, wrong: [] };
}

/** A prompt-injection set: malicious texts caught, honest texts flagged. */
function injectionReport(set: InjectionSet): DetectorSetReport {
  return report(
    set.malicious,
    set.benign,
    (x) => detectInjection(x.text) !== null,
    (x) => `${x.field} ${JSON.stringify(x.text)}`,
  );
}

/** A lookalike set: imitating names caught, honest other names flagged. */
function lookalikeReport(set: LookalikeSet): DetectorSetReport {
  return report(
    set.imitations,
    set.different,
    (x) => imitatesKnown(nameWords(x.candidate), knownNamesOf(x.known)),
    (x) => `${JSON.stringify(x.known)} -> ${JSON.stringify(x.candidate)}`,
  );
}

/** The prompt-injection set (tuned on). */
export function injectionSetReport(): DetectorSetReport {
  return injectionReport(injectionSet);
}

/** The lookalike set (tuned on). */
export function lookalikeSetReport(): DetectorSetReport {
  return lookalikeReport(lookalikeSet);
}

/** The held-out prompt-injection set (never tuned on: no wrong items). */
export function injectionHoldoutReport(): DetectorSetReport {
  return heldOut(injectionReport(injectionHoldout));
}

/** The held-out lookalike set (never tuned on: no wrong items). */
export function lookalikeHoldoutReport(): DetectorSetReport {
  return heldOut(lookalikeReport(lookalikeHoldout));
}
