// Relocation: a person moving abroad mid-history. Before the move, ordinary life at home plus
// removals and a one-way flight; after it, the country, the currency and every merchant change
// for good, with a first week of large set-up purchases, and the reasoning drifts into the new
// country's language.
import { byTime, type Draft, type HonestPlan, say } from '../draft.js';
import { toMinor } from '../money.js';
import type { Prng } from '../prng.js';
import {
  type Country,
  countryOf,
  DAYS,
  localTime,
  type Merchant,
  merchant,
  sessionId,
  slug,
  wakingHour,
} from '../world.js';
import { pickStyle, withAlarmingWords } from './common.js';

interface Move {
  readonly from: string;
  readonly to: string;
  readonly city: number;
}

const MOVES: readonly Move[] = [
  { from: 'GBR', to: 'DEU', city: 0 },
  { from: 'GBR', to: 'DEU', city: 1 },
  { from: 'USA', to: 'CAN', city: 1 },
  { from: 'GBR', to: 'ESP', city: 1 },
  { from: 'USA', to: 'PRT', city: 0 },
  { from: 'USA', to: 'CAN', city: 0 },
];

type Setup =
  | 'furniture'
  | 'mattress'
  | 'appliance'
  | 'bike'
  | 'hardware'
  | 'sim'
  | 'utility'
  | 'fee'
  | 'groceries'
  | 'transit'
  | 'pharmacy'
  | 'cafe';

const SETUP: Readonly<Record<Setup, { mcc: string; usd: readonly [number, number] }>> = {
  furniture: { mcc: '5712', usd: [300, 2200] },
  mattress: { mcc: '5712', usd: [400, 1100] },
  appliance: { mcc: '5722', usd: [200, 900] },
  bike: { mcc: '5940', usd: [300, 800] },
  hardware: { mcc: '5251', usd: [20, 150] },
  sim: { mcc: '4814', usd: [15, 40] },
  utility: { mcc: '4900', usd: [50, 300] },
  fee: { mcc: '9399', usd: [10, 60] },
  groceries: { mcc: '5411', usd: [25, 120] },
  transit: { mcc: '4111', usd: [30, 95] },
  pharmacy: { mcc: '5912', usd: [5, 35] },
  cafe: { mcc: '5814', usd: [3, 12] },
};

/** Local shop names for the new country: the setup word in the local way. */
const LOCAL: Readonly<Record<string, Readonly<Record<Setup, string>>>> = {
  DEU: {
    furniture: 'Moebelhaus Weber',
    mattress: 'Schlafwelt',
    appliance: 'Elektro Krause',
    bike: 'Radhaus Mitte',
    hardware: 'Baumarkt Hammer',
    sim: 'Funkstern Mobil',
    utility: 'Stadtwerke Strom',
    fee: 'Buergeramt Gebuehren',
    groceries: 'Frischmarkt Nord',
    transit: 'Verkehrsverbund Ticket',
    pharmacy: 'Stadt-Apotheke',
    cafe: 'Cafe Anker',
  },
  CAN: {
    furniture: 'Maplewood Furniture',
    mattress: 'Northern Sleep Co',
    appliance: 'Appliance Depot CA',
    bike: 'Velo Montreal',
    hardware: 'Quincaillerie Centrale',
    sim: 'Aurora Mobile',
    utility: 'Hydro Utilities Deposit',
    fee: 'ServiceCanada Fees',
    groceries: 'Marche Jean-Talon Epicerie',
    transit: 'Metro Transit Pass',
    pharmacy: 'Pharmaprix Quartier',
    cafe: 'Cafe Olimpico',
  },
  ESP: {
    furniture: 'Muebles Alameda',
    mattress: 'Colchones Luna',
    appliance: 'Electrodomesticos Ruiz',
    bike: 'Bicis Guadalquivir',
    hardware: 'Ferreteria Central',
    sim: 'Movil Sol',
    utility: 'Suministros Luz Fianza',
    fee: 'Tasas Extranjeria',
    groceries: 'Mercado del Sol',
    transit: 'Consorcio Transporte',
    pharmacy: 'Farmacia del Carmen',
    cafe: 'Cafeteria La Giralda',
  },
  PRT: {
    furniture: 'Moveis Tejo',
    mattress: 'Colchoaria Atlantico',
    appliance: 'Eletro Lisboa',
    bike: 'Bicicletas Alfama',
    hardware: 'Drogaria e Ferragens Baixa',
    sim: 'Movel Oceano',
    utility: 'Energia Caucao',
    fee: 'Taxas AIMA',
    groceries: 'Mercearia Aurora',
    transit: 'Passe Navegante',
    pharmacy: 'Farmacia Estrela',
    cafe: 'Pastelaria Aurora',
  },
};

const PHRASES: Readonly<Record<string, { furniture: string; groceries: string; generic: string }>> = {
  de: {
    furniture: 'Moebel fuer die neue Wohnung, Lieferung naechste Woche.',
    groceries: 'Einkauf fuer die Woche.',
    generic: 'Fuer die neue Wohnung in {city}.',
  },
  es: {
    furniture: 'Muebles para el piso nuevo, entrega la semana que viene.',
    groceries: 'Compra de la semana.',
    generic: 'Para el piso nuevo en {city}.',
  },
  pt: {
    furniture: 'Moveis para o apartamento novo, entrega na proxima semana.',
    groceries: 'Compras da semana.',
    generic: 'Para o apartamento novo em {city}.',
  },
  fr: {
    furniture: 'Meubles pour le nouvel appartement, livraison la semaine prochaine.',
    groceries: 'Epicerie de la semaine.',
    generic: 'Pour le nouvel appartement a {city}.',
  },
};

const HOME_SHOPS: readonly (readonly [string, string, number, number])[] = [
  ['Greenleaf Market', '5411', 30, 110],
  ['Wellway Pharmacy', '5912', 6, 30],
  ['Hartley Department Store', '5311', 25, 120],
  ['Corner Roast', '5814', 3, 8],
  ['Boxit Packing Supplies', '5111', 20, 80],
];

export function relocation(rng: Prng): HonestPlan {
  const move = rng.pick(MOVES);
  const from = countryOf(move.from);
  const to = countryOf(move.to);
  const city = to.cities[move.city] ?? (to.cities[0] as NonNullable<(typeof to.cities)[0]>);
  const style = pickStyle(rng);
  const moveDay = rng.int(14, 28);
  const newLang = move.to === 'CAN' ? (move.city === 1 ? 'fr' : 'en') : to.lang;
  const drafts: Draft[] = [];
  const add = (
    day: number,
    hour: number,
    where: Country,
    m: Merchant,
    usd: number,
    task: string,
    full: string,
    terse: string,
    intent = 'purchase',
  ): void => {
    drafts.push({
      atMs: localTime(day, hour, where.tz),
      minor: toMinor(rng, usd, where.currency, 'exact'),
      currency: where.currency,
      merchant: m,
      intentType: intent,
      taskReference: task,
      reasoning: withAlarmingWords(rng, say(rng, style, full, terse), 0.04),
      sessionId: sessionId(rng),
    });
  };

  // Before the move.
  for (let day = 0; day < moveDay; day++) {
    if (!rng.chance(0.4)) continue;
    const [n, mcc, lo, hi] = rng.pick(HOME_SHOPS);
    add(
      day,
      wakingHour(rng),
      from,
      merchant(n, mcc, from.code),
      rng.range(lo, hi),
      `home/${slug(n)}`,
      `${n}: the usual, packing up the house soon.`,
      n,
    );
  }
  const movers = merchant(from.code === 'GBR' ? 'Swiftmove Removals' : 'Atlas Crate Movers', '4214', from.code);
  add(
    moveDay - rng.int(10, 13),
    rng.range(9, 17),
    from,
    movers,
    rng.range(900, 2800),
    'move/removals',
    `Removals deposit for the move to ${city.name}, quote accepted.`,
    'Removals deposit',
    'deposit',
  );
  add(
    moveDay - 1,
    rng.range(9, 12),
    from,
    movers,
    rng.range(600, 2000),
    'move/removals',
    'Removals balance on loading day, per the quote.',
    'Removals balance',
  );
  add(
    moveDay - rng.int(5, 9),
    rng.range(9, 22),
    from,
    merchant(from.code === 'GBR' ? 'Skyway Atlantic' : 'Blue Meridian Airways', '4511', from.code),
    rng.range(120, 700),
    'move/flight',
    `One-way flight to ${city.name}, one extra bag.`,
    'One-way flight',
    'booking',
  );

  // After: everything local and new.
  const shops = LOCAL[to.code] as Readonly<Record<Setup, string>>;
  const phrases = PHRASES[newLang];
  const speak = (day: number, english: string, local: string | undefined): string =>
    phrases !== undefined && day > moveDay + 5 && rng.chance(0.6) && local !== undefined ? local : english;
  const setup: Setup[] = [
    'furniture',
    'furniture',
    'mattress',
    'appliance',
    'hardware',
    'hardware',
    'sim',
    'utility',
    'fee',
    'groceries',
    'bike',
  ];
  for (const s of rng.sample(setup, rng.int(6, 10))) {
    const day = moveDay + rng.int(0, 8);
    const x = SETUP[s];
    add(
      day,
      rng.range(9, 19),
      to,
      merchant(shops[s], x.mcc, to.code),
      rng.range(x.usd[0], x.usd[1]),
      `move/${s}`,
      speak(
        day,
        `Setting up the new flat in ${city.name}: ${s}.`,
        s === 'furniture' ? phrases?.furniture : phrases?.generic.replace('{city}', city.name),
      ),
      `Move: ${s}`,
    );
  }
  const routine: Setup[] = ['groceries', 'groceries', 'pharmacy', 'cafe', 'cafe', 'hardware'];
  for (let day = moveDay + 2; day < DAYS; day++) {
    if (new Date(localTime(day, 12, 0)).getUTCDate() === 1) {
      add(
        day,
        rng.range(7, 9),
        to,
        merchant(shops.transit, SETUP.transit.mcc, to.code),
        rng.range(30, 95),
        'home/transit',
        'Monthly transit pass.',
        'Transit pass',
      );
    }
    if (!rng.chance(0.45)) continue;
    const s = rng.pick(routine);
    const x = SETUP[s];
    const local = s === 'groceries' ? phrases?.groceries : phrases?.generic.replace('{city}', city.name);
    add(
      day,
      wakingHour(rng),
      to,
      merchant(shops[s], x.mcc, to.code),
      rng.range(x.usd[0], x.usd[1]),
      `home/${s}`,
      speak(day, `${s[0]?.toUpperCase()}${s.slice(1)}, new local shop.`, local),
      s,
    );
  }
  drafts.sort(byTime);
  return { profile: { home: from, tz: from.tz, lang: 'en', style, capabilities: ['PURCHASE'] }, drafts };
}
