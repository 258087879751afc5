// Amounts of the independent corpus: drawn as a value in US dollars, converted at a fixed
// approximate rate, then held as an integer count of the currency's minor units and written
// as exact decimal text.
import type { Prng } from './prng.js';

/** ISO 4217 minor units of the currencies the corpus uses (2 unless listed). */
const MINOR_DIGITS: Readonly<Record<string, number>> = { JPY: 0, KRW: 0, ISK: 0 };

/** Approximate units of the currency per US dollar (generation only, never a decision input). */
const PER_USD: Readonly<Record<string, number>> = {
  USD: 1,
  GBP: 0.79,
  EUR: 0.92,
  CHF: 0.88,
  CAD: 1.36,
  MXN: 17.1,
  AUD: 1.52,
  JPY: 150,
  KRW: 1350,
  SGD: 1.34,
  THB: 36,
  INR: 83,
  PLN: 4,
  CZK: 23,
  SEK: 10.5,
  DKK: 6.9,
  NOK: 10.6,
  ISK: 138,
  AED: 3.67,
  TRY: 32,
  BRL: 5,
  ZAR: 18.5,
};

export function minorDigits(currency: string): number {
  return MINOR_DIGITS[currency] ?? 2;
}

function rate(currency: string): number {
  const r = PER_USD[currency];
  if (r === undefined) throw new Error(`no rate for ${currency}`);
  return r;
}

/** How an amount is written: a shop price (.99, .49, .00), an invoice to the cent, or whole. */
export type Ending = 'retail' | 'exact' | 'whole';

/** A value in US dollars as minor units of `currency`, written as a price of that kind. */
export function toMinor(rng: Prng, usd: number, currency: string, ending: Ending): number {
  const digits = minorDigits(currency);
  const major = usd * rate(currency);
  if (digits === 0) {
    const step = major >= 10_000 ? 100 : 10;
    return Math.max(step, Math.round(major / step) * step);
  }
  const scale = 10 ** digits;
  if (ending === 'exact') return Math.max(1, Math.round(major * scale));
  if (ending === 'whole') {
    const step = major >= 1000 ? 50 : major >= 100 ? 5 : 1;
    return Math.max(1, Math.round(major / step)) * step * scale;
  }
  const whole = Math.floor(major);
  const cents = major < 2 ? rng.pick([49, 99]) : rng.pick([99, 99, 99, 49, 95, 0, 50]);
  return Math.max(1, whole * scale + cents);
}

/** Minor units of `currency` as decimal text ("42.50", "1480"). */
export function formatMinor(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor) || minor <= 0) throw new Error(`bad amount ${minor}`);
  const digits = minorDigits(currency);
  if (digits === 0) return String(minor);
  const s = String(minor).padStart(digits + 1, '0');
  return `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
}

/** Minor units of one currency converted to another at the generation rates (for attackers' sizing). */
export function convertMinor(minor: number, from: string, to: string): number {
  const major = minor / 10 ** minorDigits(from);
  const usd = major / rate(from);
  return Math.round(usd * rate(to) * 10 ** minorDigits(to));
}

/** Rounds minor units up to a limit a person would type: two significant figures of the major unit. */
export function niceLimit(minor: number, currency: string): number {
  const scale = 10 ** minorDigits(currency);
  const major = Math.ceil(minor / scale);
  const magnitude = 10 ** Math.max(0, String(major).length - 2);
  return Math.ceil(major / magnitude) * magnitude * scale;
}
