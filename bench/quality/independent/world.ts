// Places, time and merchants of the independent corpus.
import { fnv1a, type Prng } from './prng.js';

export type Lang = 'en' | 'de' | 'es' | 'fr' | 'pt' | 'pl' | 'it' | 'ja';

export interface Country {
  /** ISO 3166-1 alpha-3. */
  readonly code: string;
  readonly currency: string;
  /** Hours ahead of UTC (standard time; the corpus runs in February and March). */
  readonly tz: number;
  readonly lang: Lang;
  readonly cities: readonly City[];
}

export interface City {
  readonly name: string;
  readonly airport: string;
}

function country(code: string, currency: string, tz: number, lang: Lang, cities: [string, string][]): Country {
  return { code, currency, tz, lang, cities: cities.map(([name, airport]) => ({ name, airport })) };
}

export const COUNTRIES: Readonly<Record<string, Country>> = {
  GBR: country('GBR', 'GBP', 0, 'en', [
    ['London', 'LHR'],
    ['Edinburgh', 'EDI'],
    ['Manchester', 'MAN'],
  ]),
  USA: country('USA', 'USD', -5, 'en', [
    ['New York', 'JFK'],
    ['Chicago', 'ORD'],
    ['Boston', 'BOS'],
  ]),
  CAN: country('CAN', 'CAD', -5, 'en', [
    ['Toronto', 'YYZ'],
    ['Montreal', 'YUL'],
    ['Vancouver', 'YVR'],
  ]),
  MEX: country('MEX', 'MXN', -6, 'es', [
    ['Mexico City', 'MEX'],
    ['Oaxaca', 'OAX'],
    ['Guadalajara', 'GDL'],
  ]),
  FRA: country('FRA', 'EUR', 1, 'fr', [
    ['Paris', 'CDG'],
    ['Lyon', 'LYS'],
    ['Bordeaux', 'BOD'],
  ]),
  DEU: country('DEU', 'EUR', 1, 'de', [
    ['Berlin', 'BER'],
    ['Munich', 'MUC'],
    ['Hamburg', 'HAM'],
  ]),
  ESP: country('ESP', 'EUR', 1, 'es', [
    ['Madrid', 'MAD'],
    ['Barcelona', 'BCN'],
    ['Seville', 'SVQ'],
  ]),
  ITA: country('ITA', 'EUR', 1, 'it', [
    ['Rome', 'FCO'],
    ['Milan', 'MXP'],
    ['Florence', 'FLR'],
  ]),
  PRT: country('PRT', 'EUR', 0, 'pt', [
    ['Lisbon', 'LIS'],
    ['Porto', 'OPO'],
  ]),
  NLD: country('NLD', 'EUR', 1, 'en', [
    ['Amsterdam', 'AMS'],
    ['Rotterdam', 'RTM'],
  ]),
  IRL: country('IRL', 'EUR', 0, 'en', [
    ['Dublin', 'DUB'],
    ['Cork', 'ORK'],
  ]),
  AUT: country('AUT', 'EUR', 1, 'de', [
    ['Vienna', 'VIE'],
    ['Salzburg', 'SZG'],
  ]),
  BEL: country('BEL', 'EUR', 1, 'fr', [
    ['Brussels', 'BRU'],
    ['Antwerp', 'ANR'],
  ]),
  CHE: country('CHE', 'CHF', 1, 'de', [
    ['Zurich', 'ZRH'],
    ['Geneva', 'GVA'],
  ]),
  POL: country('POL', 'PLN', 1, 'pl', [
    ['Warsaw', 'WAW'],
    ['Krakow', 'KRK'],
  ]),
  CZE: country('CZE', 'CZK', 1, 'en', [['Prague', 'PRG']]),
  DNK: country('DNK', 'DKK', 1, 'en', [['Copenhagen', 'CPH']]),
  SWE: country('SWE', 'SEK', 1, 'en', [['Stockholm', 'ARN']]),
  NOR: country('NOR', 'NOK', 1, 'en', [['Oslo', 'OSL']]),
  ISL: country('ISL', 'ISK', 0, 'en', [['Reykjavik', 'KEF']]),
  JPN: country('JPN', 'JPY', 9, 'ja', [
    ['Tokyo', 'HND'],
    ['Kyoto', 'KIX'],
    ['Osaka', 'KIX'],
  ]),
  KOR: country('KOR', 'KRW', 9, 'en', [['Seoul', 'ICN']]),
  SGP: country('SGP', 'SGD', 8, 'en', [['Singapore', 'SIN']]),
  THA: country('THA', 'THB', 7, 'en', [
    ['Bangkok', 'BKK'],
    ['Chiang Mai', 'CNX'],
  ]),
  IND: country('IND', 'INR', 5.5, 'en', [
    ['Bengaluru', 'BLR'],
    ['Pune', 'PNQ'],
  ]),
  AUS: country('AUS', 'AUD', 11, 'en', [
    ['Sydney', 'SYD'],
    ['Melbourne', 'MEL'],
  ]),
  ARE: country('ARE', 'AED', 4, 'en', [['Dubai', 'DXB']]),
  TUR: country('TUR', 'TRY', 3, 'en', [['Istanbul', 'IST']]),
  BRA: country('BRA', 'BRL', -3, 'pt', [['Sao Paulo', 'GRU']]),
  ZAF: country('ZAF', 'ZAR', 2, 'en', [['Cape Town', 'CPT']]),
  CHN: country('CHN', 'USD', 8, 'en', [['Shenzhen', 'SZX']]),
  CYP: country('CYP', 'EUR', 2, 'en', [['Limassol', 'LCA']]),
  EST: country('EST', 'EUR', 2, 'en', [['Tallinn', 'TLL']]),
  LTU: country('LTU', 'EUR', 2, 'en', [['Vilnius', 'VNO']]),
  MLT: country('MLT', 'EUR', 1, 'en', [['Valletta', 'MLA']]),
  HKG: country('HKG', 'USD', 8, 'en', [['Hong Kong', 'HKG']]),
  PAN: country('PAN', 'USD', -5, 'en', [['Panama City', 'PTY']]),
  SYC: country('SYC', 'USD', 4, 'en', [['Victoria', 'SEZ']]),
  NGA: country('NGA', 'USD', 1, 'en', [['Lagos', 'LOS']]),
  VNM: country('VNM', 'USD', 7, 'en', [['Ho Chi Minh City', 'SGN']]),
};

export function countryOf(code: string): Country {
  const c = COUNTRIES[code];
  if (c === undefined) throw new Error(`unknown country ${code}`);
  return c;
}

// ---------------------------------------------------------------------------------------
// Time

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;

/** Monday 2 February 2026, 00:00 UTC: day 0 of the corpus. */
export const START_MS = Date.UTC(2026, 1, 2);
/** The corpus covers eight weeks. */
export const DAYS = 56;

/** The instant of `hour` (fractional) on corpus day `day`, in a place `tz` hours ahead of UTC. */
export function localTime(day: number, hour: number, tz: number): number {
  return Math.round(START_MS + day * DAY_MS + (hour - tz) * HOUR_MS);
}

/** Day of the week of a corpus day: 0 Monday ... 6 Sunday. */
export function weekday(day: number): number {
  return ((day % 7) + 7) % 7;
}

export function isWorkday(day: number): boolean {
  return weekday(day) < 5;
}

/** An hour of a person's waking day, most often around midday and the evening. */
export function wakingHour(rng: Prng): number {
  const [lo, hi] = rng.weighted<readonly [number, number]>([
    [[7, 9], 2],
    [[9, 12], 3],
    [[12, 14], 3],
    [[14, 18], 3],
    [[18, 21.5], 4],
    [[21.5, 23.5], 1],
  ]);
  return rng.range(lo, hi);
}

export function workingHour(rng: Prng): number {
  return rng.range(8.5, 17.5);
}

// ---------------------------------------------------------------------------------------
// Merchants

export interface Merchant {
  readonly name: string;
  readonly id: string;
  readonly mcc: string;
  /** ISO 3166-1 alpha-3. */
  readonly country: string;
}

/** A merchant's acquirer id: 15 digits, the same for the same name and country across agents. */
export function merchantId(name: string, country: string): string {
  const a = fnv1a(`${name}|${country}`) % 1_000_000_000;
  const b = fnv1a(`${country}|${name}`, 0x01234567) % 1_000_000;
  return `${String(a).padStart(9, '0')}${String(b).padStart(6, '0')}`;
}

export function merchant(name: string, mcc: string, countryCode: string): Merchant {
  return { name, id: merchantId(name, countryCode), mcc, country: countryCode };
}

export function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export function sessionId(rng: Prng): string {
  return `ses_${rng.token(12)}`;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** "2026-03" of an instant. */
export function yearMonth(atMs: number): string {
  const d = new Date(atMs);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** "mar" of an instant. */
export function monthName(atMs: number): string {
  return MONTHS[new Date(atMs).getUTCMonth()] as string;
}

/** "12 Mar" of an instant. */
export function dayMonth(atMs: number): string {
  const d = new Date(atMs);
  const m = MONTHS[d.getUTCMonth()] as string;
  return `${d.getUTCDate()} ${m[0]?.toUpperCase()}${m.slice(1)}`;
}
