// Currencies: ISO 4217 alphabetic codes in current use, as known to the runtime's ICU data
// (Intl.supportedValuesOf), read once at load, and the minor units (exponent) of each from the
// ISO 4217 table kept by the `currency-codes` package (JPY 0, USD 2, BHD 3, CLF 4).
//
// Amounts are always denominated in an ISO 4217 currency, on the crypto rail too: a crypto
// asset (USDC, ETH, ...) names what settles, not the unit of `amount` or of a mandate limit.
// The one exception is a mandate's crypto.max_transfer, which keeps the service's own 8-place
// scale (money.ts SCALE) since crypto assets carry finer units than the currency (USDC 6, BTC 8).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const iso4217 = require('currency-codes') as { code(code: string): { digits: number } | undefined };

const CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** Fractional digits per accepted code, computed once. */
const EXPONENTS: ReadonlyMap<string, number> = new Map(
  [...CODES].map((code) => {
    const digits = iso4217.code(code)?.digits;
    // A code ICU knows that this ISO table no longer lists (HRK, SLL, ZWL withdrawn; XCG new):
    // each had or has 2 minor units in ISO 4217 (CLDR's display digits differ, e.g. SLL 0).
    const exp = typeof digits === 'number' ? digits : 2;
    return [code, exp];
  }),
);

/** True for an upper-case ISO 4217 code in current use (USD, EUR, JPY, ...). */
export function isIsoCurrency(code: string): boolean {
  return CODES.has(code);
}

/** ISO 4217 minor units of an accepted code (JPY 0, USD 2, BHD 3); null for an unknown code. */
export function currencyExponent(code: string): number | null {
  return EXPONENTS.get(code) ?? null;
}
