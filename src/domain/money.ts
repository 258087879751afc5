// Exact money. Amounts travel as decimal strings and are computed as bigint counts of
// 10^-SCALE units, so 0.10 + 0.20 is exactly 0.30 and no binary float touches a limit.

/** Fractional digits kept internally; SPEC amounts have at most 8 (crypto) and usually 2. */
export const SCALE = 8;
const FACTOR = 10n ** BigInt(SCALE);
const DECIMAL = /^(0|[1-9]\d{0,17})(?:\.(\d{1,8}))?$/;

/** An exact amount in units of 10^-8. */
export type Units = bigint;

/**
 * Parses a decimal string or a JSON number (SPEC: amounts "may be sent as strings or numbers").
 * A number is read through its shortest round-trip decimal text, so 0.1 is exactly 0.1.
 * Returns null for anything that is not a plain non-negative decimal with at most 8 places.
 */
export function parseAmount(value: unknown): Units | null {
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    text = numberToPlain(value);
  } else return null;
  const m = DECIMAL.exec(text);
  if (m === null) return null;
  const whole = BigInt(m[1] as string);
  const frac = m[2] === undefined ? 0n : BigInt((m[2] as string).padEnd(SCALE, '0'));
  return whole * FACTOR + frac;
}

function numberToPlain(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  // Exponent form (1e-7, 1e21): expand without going through float arithmetic.
  const [mant, expRaw] = s.toLowerCase().split('e') as [string, string];
  const exp = Number(expRaw);
  const [int, frac = ''] = mant.split('.') as [string, string?];
  const digits = int + frac;
  const point = int.length + exp;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Number of fractional digits the text form of an input amount carries (for "2 decimal places" rules). */
export function decimalPlaces(value: unknown): number {
  const text = typeof value === 'number' ? numberToPlain(value) : String(value).trim();
  const dot = text.indexOf('.');
  return dot === -1 ? 0 : text.length - dot - 1;
}

/** Canonical decimal text: no trailing zeros beyond `minPlaces` (default 2), e.g. "12.50", "0.00012". */
export function formatAmount(units: Units, minPlaces = 2): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const whole = abs / FACTOR;
  let frac = (abs % FACTOR).toString().padStart(SCALE, '0');
  while (frac.length > minPlaces && frac.endsWith('0')) frac = frac.slice(0, -1);
  const text = frac.length === 0 ? whole.toString() : `${whole}.${frac}`;
  return neg ? `-${text}` : text;
}

/**
 * JSON number for a response field (SPEC: "Amounts in responses are numbers"). Only for
 * display: never feed the result back into a comparison or a total.
 */
export function toJsonNumber(units: Units): number {
  return Number(formatAmount(units, 0));
}

/** Parses a NUMERIC column value as returned by postgres.js (a string). */
export function fromDb(value: string | null): Units | null {
  if (value === null) return null;
  const u = parseAmount(value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value);
  if (u === null) throw new Error(`not an exact amount: ${value}`);
  return u;
}

/** Text for a NUMERIC column. */
export function toDb(units: Units): string {
  return formatAmount(units, 0);
}

/** units * multiplier, multiplier given as an exact decimal string like "0.5"; rounds down. */
export function scale(units: Units, multiplier: string): Units {
  const m = parseAmount(multiplier);
  if (m === null) throw new Error(`bad multiplier ${multiplier}`);
  return (units * m) / FACTOR;
}
