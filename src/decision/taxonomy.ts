// The MCC taxonomy the intent and risk stages reason with (docs/decision-engine.md "MCC
// taxonomy"): named merchant-category groups, which of them are high risk, and which groups an
// intent text or an agent capability names (keywords in several languages). Groups are bits of
// a number so a session or an agent can remember the groups it paid cheaply.

export const G_TRAVEL = 1 << 0;
export const G_DINING = 1 << 1;
export const G_GROCERY = 1 << 2;
export const G_HOUSEHOLD = 1 << 3;
export const G_SOFTWARE = 1 << 4;
export const G_OFFICE = 1 << 5;
export const G_BOOKS = 1 << 6;
export const G_RETAIL = 1 << 7;
export const G_ELECTRONICS = 1 << 8;
export const G_LUXURY = 1 << 9;
export const G_FUEL = 1 << 10;
export const G_EDUCATION = 1 << 11;
export const G_APPAREL = 1 << 12;
// High-risk groups: paying them needs an intent or a capability that names them.
export const G_GAMBLING = 1 << 16;
export const G_QUASI_CASH = 1 << 17;
export const G_MONEY_TRANSFER = 1 << 18;
export const G_STORED_VALUE = 1 << 19;
export const G_CRYPTO = 1 << 20;
export const G_PAWN_DATING = 1 << 21;
export const HIGH_RISK_GROUPS =
  G_GAMBLING | G_QUASI_CASH | G_MONEY_TRANSFER | G_STORED_VALUE | G_CRYPTO | G_PAWN_DATING;

export const GROUP_NAMES: Readonly<Record<number, string>> = {
  [G_TRAVEL]: 'travel',
  [G_DINING]: 'dining',
  [G_GROCERY]: 'grocery',
  [G_HOUSEHOLD]: 'household',
  [G_SOFTWARE]: 'software',
  [G_OFFICE]: 'office',
  [G_BOOKS]: 'books_media',
  [G_RETAIL]: 'general_retail',
  [G_ELECTRONICS]: 'electronics',
  [G_LUXURY]: 'luxury',
  [G_FUEL]: 'fuel',
  [G_EDUCATION]: 'education',
  [G_APPAREL]: 'apparel',
  [G_GAMBLING]: 'gambling',
  [G_QUASI_CASH]: 'quasi_cash',
  [G_MONEY_TRANSFER]: 'money_transfer',
  [G_STORED_VALUE]: 'stored_value',
  [G_CRYPTO]: 'crypto',
  [G_PAWN_DATING]: 'pawn_dating',
};

const SINGLE: [number, readonly number[]][] = [
  [
    G_TRAVEL,
    [
      4011, 4111, 4112, 4121, 4131, 4411, 4457, 4468, 4511, 4582, 4722, 4784, 4789, 7011, 7012, 7032, 7033, 7512, 7513,
      7519, 7523,
    ],
  ],
  [G_DINING, [5811, 5812, 5813, 5814]],
  [G_GROCERY, [5411, 5422, 5441, 5451, 5462, 5499]],
  [G_HOUSEHOLD, [5200, 5211, 5231, 5251, 5261, 5300, 5712, 5714, 5719, 5722, 5912, 5995, 5977, 7210, 7342]],
  [G_SOFTWARE, [4814, 4816, 4899, 5734, 5815, 5816, 5817, 5818, 7372, 7379]],
  [G_OFFICE, [5021, 5044, 5045, 5046, 5065, 5085, 5111, 5943, 5978, 7399, 7338]],
  [G_BOOKS, [5192, 5942, 5994, 5735]],
  [G_RETAIL, [5310, 5311, 5331, 5399, 5999, 5945, 5947, 5941, 5964, 5965, 5969]],
  [G_ELECTRONICS, [5732, 5045, 5065, 5722, 5946]],
  [G_LUXURY, [5944, 5094, 5681, 5691, 5971]],
  [G_APPAREL, [5611, 5621, 5631, 5641, 5651, 5655, 5661, 5691, 5699]],
  [G_FUEL, [5541, 5542, 5552, 5983]],
  [G_EDUCATION, [8211, 8220, 8241, 8244, 8249, 8299]],
  [G_GAMBLING, [7995, 7800, 7801, 7802, 9406]],
  [G_QUASI_CASH, [6050, 6051, 6010, 6011]],
  [G_MONEY_TRANSFER, [4829, 6536, 6537, 6538]],
  [G_STORED_VALUE, [6540]],
  [G_CRYPTO, [6051]],
  [G_PAWN_DATING, [5933, 7273, 5967]],
];

// 10 000 MCCs: a flat table of group bits, built once.
const TABLE = new Int32Array(10_000);
for (const [bit, codes] of SINGLE) for (const c of codes) TABLE[c] = (TABLE[c] as number) | bit;
for (let c = 3000; c <= 3999; c++) TABLE[c] = (TABLE[c] as number) | G_TRAVEL; // airlines, hotels, car rental

/** The groups of an MCC (0: unknown or absent). */
export function groupsOfMcc(mcc: string | null): number {
  if (mcc === null || mcc.length !== 4) return 0;
  const code =
    (mcc.charCodeAt(0) - 48) * 1000 +
    (mcc.charCodeAt(1) - 48) * 100 +
    (mcc.charCodeAt(2) - 48) * 10 +
    mcc.charCodeAt(3) -
    48;
  return code >= 0 && code < 10_000 ? (TABLE[code] as number) : 0;
}

/** Keyword stems (lower case, diacritics stripped) -> the groups they name. */
const KEYWORDS: [number, readonly string[]][] = [
  [
    G_TRAVEL | G_DINING,
    [
      'travel',
      'trip',
      'flight',
      'airfare',
      'airline',
      'hotel',
      'lodging',
      'booking',
      'car_rental',
      'car rental',
      'train',
      'rail',
      'taxi',
      'offsite',
      'conference',
      'viaje',
      'voyage',
      'reise',
      'viaggio',
      'viagem',
      'reis',
      'podroz',
      'поезд',
      'поездк',
      'путешеств',
      '旅行',
      '出張',
      '出差',
      'prenotazione',
    ],
  ],
  [G_DINING | G_GROCERY, ['food', 'meal', 'restaurant', 'dining', 'catering', 'lunch', 'dinner']],
  [
    G_GROCERY | G_HOUSEHOLD | G_RETAIL,
    [
      'grocer',
      'restock',
      'pantry',
      'household',
      'supermarket',
      'pet',
      'pharmacy',
      'courses',
      'lebensmittel',
      'comestibles',
      'продукт',
      '食料',
      '食品',
      '杂货',
      'spesa',
      'mercado',
      'boodschappen',
      'zakupy',
    ],
  ],
  [
    G_SOFTWARE,
    [
      'software',
      'saas',
      'subscription',
      'licen',
      'cloud',
      'hosting',
      'compute',
      'api',
      'seat',
      'renew',
      'usage',
      'credits',
      'logiciel',
      'abonnement',
      'suscripcion',
      'abbonamento',
      'assinatura',
      'подписк',
      'ソフト',
      '软件',
    ],
  ],
  [
    G_OFFICE | G_ELECTRONICS | G_SOFTWARE,
    [
      'office',
      'stationery',
      'supplies',
      'procurement',
      'purchase order',
      'equipment',
      'it ',
      'b2b',
      'fournitures',
      'bureau',
      'burobedarf',
      'buero',
      'oficina',
      'escritorio',
      'ufficio',
      'cancelleria',
      'kantoor',
      'biuro',
      'канцеляр',
      '办公',
      '事務',
      'suprimentos',
    ],
  ],
  [
    G_BOOKS | G_RETAIL,
    ['book', 'reading', 'novel', 'libro', 'livre', 'buch', 'livro', 'boek', 'ksiazk', 'книг', '本', '书', 'lectura'],
  ],
  [G_RETAIL | G_APPAREL | G_ELECTRONICS | G_BOOKS, ['marketplace', 'second-hand', 'wishlist', 'shopping', 'gift list']],
  [G_APPAREL, ['clothing', 'apparel', 'wardrobe', 'shoes', 'sneaker']],
  [G_ELECTRONICS, ['electronic', 'gadget', 'laptop', 'computer', 'phone', 'spare-parts', 'spare parts']],
  [G_LUXURY, ['luxury', 'jewel', 'watch']],
  [G_FUEL, ['fuel', 'gasoline', 'petrol', 'ev_charging', 'charging']],
  [G_EDUCATION, ['course', 'training', 'tuition', 'class', 'education']],
  [G_HOUSEHOLD, ['valve', 'pump', 'garden', 'seeds', 'hardware', 'repair']],
  [G_GAMBLING, ['casino', 'gambl', 'betting', 'lottery', 'poker', 'wager']],
  [G_MONEY_TRANSFER, ['remittance', 'money transfer', 'wire transfer', 'send money', 'payout', 'payroll']],
  [G_CRYPTO | G_QUASI_CASH, ['crypto', 'bitcoin', 'btc', 'ethereum', 'stablecoin', 'usdc', 'exchange deposit']],
  [G_STORED_VALUE | G_RETAIL, ['gift card', 'gift-card', 'giftcard', 'prepaid', 'voucher']],
];

/** Capability names -> groups the agent is there to pay. */
const CAPABILITIES: Readonly<Record<string, number>> = {
  // the runtime plane's vocabulary (POST /agents), lower-cased
  purchase: 0,
  subscription: G_SOFTWARE,
  refund_request: 0,
  balance_inquiry: 0,
  transfer: G_MONEY_TRANSFER,
  // words the onboarding plane's free capabilities commonly use
  travel: G_TRAVEL | G_DINING,
  groceries: G_GROCERY | G_HOUSEHOLD,
  shopping: G_RETAIL | G_BOOKS | G_APPAREL | G_ELECTRONICS,
  marketplace: G_RETAIL | G_APPAREL | G_ELECTRONICS | G_BOOKS,
  subscriptions: G_SOFTWARE,
  cloud: G_SOFTWARE,
  procurement: G_OFFICE | G_ELECTRONICS | G_SOFTWARE,
  crypto: G_CRYPTO | G_QUASI_CASH,
  remittance: G_MONEY_TRANSFER,
  payouts: G_MONEY_TRANSFER,
  gaming: G_GAMBLING,
  gift_cards: G_STORED_VALUE,
};

const COMBINING = /[\u0300-\u036f]/g;

/** Lower case with Latin diacritics stripped (keyword matching). */
export function foldText(text: string): string {
  const lower = text.toLowerCase();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII fast path
  return /^[\x00-\x7f]*$/.test(lower) ? lower : lower.normalize('NFD').replace(COMBINING, '').normalize('NFC');
}

// Intent texts come from a small vocabulary per integrator: memoise.
const intentCache = new Map<string, number>();
const INTENT_CACHE_SIZE = 1024;

/** The groups an intent text names (0: none named). */
export function groupsOfIntent(text: string): number {
  const hit = intentCache.get(text);
  if (hit !== undefined) return hit;
  const folded = foldText(text);
  let g = 0;
  for (const [bits, words] of KEYWORDS) {
    for (const w of words) {
      if (folded.includes(w)) {
        g |= bits;
        break;
      }
    }
  }
  if (intentCache.size >= INTENT_CACHE_SIZE) intentCache.clear();
  intentCache.set(text, g);
  return g;
}

/** The groups an agent's capabilities name. */
export function groupsOfCapabilities(caps: readonly string[]): number {
  let g = 0;
  for (const c of caps) g |= CAPABILITIES[c] ?? groupsOfIntent(c);
  return g;
}

/** Names of the groups in a bit set (for reason details and the audit features). */
export function groupNames(bits: number): string[] {
  const out: string[] = [];
  for (const k in GROUP_NAMES) if ((bits & Number(k)) !== 0) out.push(GROUP_NAMES[Number(k)] as string);
  return out;
}

// Regions of the world (UN geoscheme, coarse) by ISO 3166-1 alpha-3: a jump to a region the
// agent never paid in weighs more than one to a neighbour.
const REGION_LISTS: Readonly<Record<string, string>> = {
  na: 'USA CAN MEX GRL BMU',
  latam: 'ARG BOL BRA CHL COL ECU GUY PRY PER SUR URY VEN BLZ CRI SLV GTM HND NIC PAN CUB DOM HTI JAM TTO BHS BRB PRI',
  weu: 'GBR IRL FRA DEU NLD BEL LUX CHE AUT ITA ESP PRT MLT MCO AND LIE SMR VAT ISL NOR SWE DNK FIN',
  eeu: 'POL CZE SVK HUN ROU BGR SVN HRV BIH SRB MNE MKD ALB GRC CYP EST LVA LTU UKR BLR MDA RUS',
  mena: 'TUR ISR JOR LBN SYR IRQ IRN SAU ARE QAT KWT BHR OMN YEM EGY LBY TUN DZA MAR',
  africa: 'NGA GHA KEN ETH ZAF TZA UGA RWA SEN CIV CMR AGO MOZ ZMB ZWE NAM BWA MUS SDN COD',
  sasia: 'IND PAK BGD LKA NPL BTN MDV AFG',
  easia: 'CHN JPN KOR PRK TWN HKG MAC MNG',
  seasia: 'VNM THA KHM LAO MMR MYS SGP IDN PHL BRN TLS',
  oceania: 'AUS NZL FJI PNG WSM TON',
  casia: 'KAZ UZB KGZ TJK TKM AZE ARM GEO',
};
const REGION_OF = new Map<string, number>();
let regionBit = 1;
for (const key of Object.keys(REGION_LISTS)) {
  for (const c of (REGION_LISTS[key] as string).split(' ')) REGION_OF.set(c, regionBit);
  regionBit <<= 1;
}
/** Bit of any country no list names (treated as a region of its own kind). */
const REGION_OTHER = regionBit;

/** The region bit of an alpha-3 country code. */
export function regionOf(country: string): number {
  return REGION_OF.get(country) ?? REGION_OTHER;
}

// The currency a country's shops charge in (ISO 4217 by alpha-3 country; countries not listed:
// none known). A payment in a country's own currency under a mandate the Principal granted in it
// is a payment where the Principal expected the agent to pay (risk.ts country jump).
const CURRENCY_OF = new Map<string, string>();
for (const [currency, countries] of [
  ['EUR', 'AUT BEL CYP EST FIN FRA DEU GRC IRL ITA LVA LTU LUX MLT NLD PRT SVK SVN ESP HRV'],
  ['USD', 'USA ECU SLV PAN PRI'],
  ['GBP', 'GBR'],
  ['CAD', 'CAN'],
  ['JPY', 'JPN'],
  ['CHF', 'CHE LIE'],
  ['AUD', 'AUS'],
  ['NZD', 'NZL'],
  ['SEK', 'SWE'],
  ['NOK', 'NOR'],
  ['DKK', 'DNK'],
  ['ISK', 'ISL'],
  ['PLN', 'POL'],
  ['CZK', 'CZE'],
  ['HUF', 'HUN'],
  ['MXN', 'MEX'],
  ['BRL', 'BRA'],
  ['SGD', 'SGP'],
  ['HKD', 'HKG'],
  ['THB', 'THA'],
  ['KRW', 'KOR'],
  ['CNY', 'CHN'],
  ['INR', 'IND'],
  ['TRY', 'TUR'],
  ['AED', 'ARE'],
  ['ZAR', 'ZAF'],
] as const) {
  for (const c of countries.split(' ')) CURRENCY_OF.set(c, currency);
}

/** The currency shops of an alpha-3 country charge in (undefined: not known). */
export function currencyOfCountry(country: string): string | undefined {
  return CURRENCY_OF.get(country);
}
