// Currencies: ISO 4217 alphabetic codes in current use, as known to the runtime's ICU data
// (Intl.supportedValuesOf), read once at load.
const CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** True for an upper-case ISO 4217 code in current use (USD, EUR, JPY, ...). */
export function isIsoCurrency(code: string): boolean {
  return CODES.has(code);
}
