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

const PLAIN = /^(0|[1-9]\d{0,17})(?:\.(\d+))?$/;
const JSON_NUMBER = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** Exponents beyond this cannot give an amount of at most 18 integer and 8 fractional digits. */
const MAX_EXPONENT = 64;

/**
 * Plain decimal text of a JSON number's source text, expanded by moving the decimal point (no
 * binary float): "1e-7" -> "0.0000001", "1.50e1" -> "15.0", "1E2" -> "100", "10.50" -> "10.50".
 * Fractional digits written in the source are kept (trailing zeros too), so a caller can count
 * them. Null when the text is not a JSON number or its exponent is beyond any amount.
 */
export function expandNumberText(text: string): string | null {
  const m = JSON_NUMBER.exec(text);
  if (m === null) return null;
  const int = m[2] as string;
  const frac = m[3] ?? '';
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  if (Math.abs(exp) > MAX_EXPONENT) return null;
  const digits = int + frac;
  const point = int.length + exp;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  const lead = /^0+(?=\d)/.exec(out);
  if (lead !== null) out = out.slice(lead[0].length);
  return m[1] === '-' ? `-${out}` : out;
}

/**
 * Reads an amount given as decimal text (a JSON string, or a JSON number's expanded source
 * text) carrying at most `maxPlaces` fractional digits as written (the currency's ISO 4217
 * minor units: "10.50" is refused for JPY). Returns the exact units, or the reason it is not an
 * amount, phrased to follow the field name ("must be ...").
 */
export function readAmount(text: string, maxPlaces: number, currency: string): Units | string {
  const m = PLAIN.exec(text);
  if (m === null) return 'must be a non-negative decimal amount with at most 18 integer digits';
  const frac = m[2] ?? '';
  if (frac.length > maxPlaces) {
    return maxPlaces === 0
      ? `must be a whole number: ${currency} has no minor units (got ${frac.length} decimal places)`
      : `must have at most ${maxPlaces} decimal places for ${currency} (got ${frac.length})`;
  }
  return BigInt(m[1] as string) * FACTOR + (frac.length === 0 ? 0n : BigInt(frac.padEnd(SCALE, '0')));
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
