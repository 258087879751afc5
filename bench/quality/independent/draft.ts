// A purchase as the generators draft it, before it is labeled and written as a corpus request.
import type { Prng } from './prng.js';
import type { Country, Lang, Merchant } from './world.js';

export interface Draft {
  readonly atMs: number;
  /** Integer minor units of `currency`. */
  readonly minor: number;
  readonly currency: string;
  readonly merchant: Merchant;
  readonly intentType: string;
  readonly taskReference: string;
  readonly reasoning: string | null;
  readonly sessionId: string;
}

/** How much an agent writes in its reasoning summaries. */
export type Style = 'full' | 'terse' | 'sparse';

/** Who the agent acts for: its home, its clock and its language. */
export interface Profile {
  readonly home: Country;
  /** Hours ahead of UTC of the agent's Principal. */
  readonly tz: number;
  readonly lang: Lang;
  readonly style: Style;
  readonly capabilities: readonly string[];
}

/** An honest agent's whole timeline over the corpus window, in time order. */
export interface HonestPlan {
  readonly profile: Profile;
  readonly drafts: Draft[];
}

/** The reasoning an agent of this style writes: the full sentence, a short one, or nothing. */
export function say(rng: Prng, style: Style, full: string, terse: string): string | null {
  if (style === 'full') return rng.chance(0.85) ? full : terse;
  if (style === 'terse') return rng.chance(0.8) ? terse : rng.chance(0.5) ? full : null;
  return rng.chance(0.35) ? terse : null;
}

export function byTime(a: Draft, b: Draft): number {
  return a.atMs - b.atMs;
}
