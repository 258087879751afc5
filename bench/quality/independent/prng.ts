// The independent corpus's own generator: sfc32 seeded through a splitmix-style mixer. Every
// history draws from its own fork (the corpus seed mixed with the history's label), so adding
// or changing one history leaves every other history's draws as they were.

/** FNV-1a over the UTF-16 code units of a string. */
export function fnv1a(text: string, basis = 0x811c9dc5): number {
  let h = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function mix32(x: number): number {
  let z = (x + 0x9e3779b9) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad) >>> 0;
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97) >>> 0;
  return (z ^ (z >>> 15)) >>> 0;
}

export class Prng {
  readonly seed: number;
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    let s = this.seed;
    s = mix32(s);
    this.a = s;
    s = mix32(s);
    this.b = s;
    s = mix32(s);
    this.c = s;
    this.d = 1;
    for (let i = 0; i < 15; i++) this.u32();
  }

  /** A generator for one labeled part of the corpus, independent of every other part's draws. */
  fork(label: string): Prng {
    return new Prng(mix32(this.seed ^ fnv1a(label)));
  }

  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4_294_967_296;
  }

  /** Uniform in [lo, hi). */
  range(lo: number, hi: number): number {
    return lo + (hi - lo) * this.float();
  }

  /** Uniform integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.float() * items.length)] as T;
  }

  /** Picks by weight: `[[item, weight], ...]`. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let x = this.float() * total;
    for (const [item, w] of items) {
      x -= w;
      if (x < 0) return item;
    }
    return (items[items.length - 1] as readonly [T, number])[0];
  }

  /** `n` distinct items (all of them, shuffled, when n >= length). */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = this.shuffle(items);
    return copy.slice(0, Math.min(n, copy.length));
  }

  shuffle<T>(items: readonly T[]): T[] {
    const copy = items.slice();
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      const t = copy[i] as T;
      copy[i] = copy[j] as T;
      copy[j] = t;
    }
    return copy;
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Log-normal around a median, clamped to [lo, hi]. */
  around(median: number, sigma: number, lo: number, hi: number): number {
    const x = median * Math.exp(sigma * this.normal());
    return Math.min(hi, Math.max(lo, x));
  }

  /** Lower-case letters and digits, as in generated identifiers. */
  token(length: number): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    let s = '';
    for (let i = 0; i < length; i++) s += alphabet[this.u32() % alphabet.length];
    return s;
  }
}
