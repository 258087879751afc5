// Travel: a GB- or US-based agent booking two or three trips: flights from home in the home
// currency weeks ahead, then hotels, trains, taxis, metro, meals and sights abroad, in the
// visited countries' currencies.
import { byTime, type Draft, type HonestPlan, say } from '../draft.js';
import { toMinor } from '../money.js';
import type { Prng } from '../prng.js';
import {
  type City,
  type Country,
  countryOf,
  DAYS,
  type Lang,
  localTime,
  type Merchant,
  merchant,
  monthName,
  sessionId,
  slug,
  wakingHour,
} from '../world.js';
import { pickHome, pickStyle, withAlarmingWords } from './common.js';

const AIRLINES: Readonly<Record<string, string>> = {
  GBR: 'Skyway Atlantic',
  USA: 'Blue Meridian Airways',
  PRT: 'Aeroluz',
  JPN: 'Hanami Air',
  CAN: 'Maple Wings',
  ESP: 'Sol Iberica',
  AUT: 'Alpenflug',
  ISL: 'Northjet',
  MEX: 'Aerolineas Colibri',
  THA: 'Siam Orchid Airways',
  NLD: 'Polder Air',
};

const RAIL: Readonly<Record<string, string>> = {
  GBR: 'Britrail Tickets',
  USA: 'Northeast Rail',
  FRA: 'Rail France Voyages',
  DEU: 'Fernbahn DE',
  ESP: 'Trenes Iberia',
  ITA: 'Treni Veloci Italia',
  PRT: 'Comboios Portugal',
  NLD: 'NL Spoor',
  CHE: 'Swiss Rail Ticket',
  JPN: 'JR Central Reserve',
  CAN: 'Canada Rail',
  AUT: 'Austria Bahn',
  CZE: 'Ceske Vlaky',
  DNK: 'Dansk Tog',
  POL: 'Koleje Polskie',
  IRL: 'Irish Rail Online',
  KOR: 'Korail Ticket',
};

const RESTAURANTS: Readonly<Record<Lang, readonly string[]>> = {
  en: ['The Copper Kettle', 'Harbour Grill', 'Old Mill Kitchen', 'Fig & Olive', 'North Star Diner', 'Saffron House'],
  fr: ['Le Petit Zinc', 'Chez Marthe', 'Bistrot des Halles', 'La Table du Marche', 'Brasserie Lumiere'],
  de: ['Gasthaus zum Loewen', 'Cafe Anker', 'Wirtshaus am Markt', 'Brauhaus Kessel', 'Imbiss Eck'],
  es: ['Taberna La Tinaja', 'Casa Morena', 'Bodega El Sol', 'Cerveceria Plaza', 'La Cocina de Ana'],
  it: ['Trattoria da Gino', 'Osteria del Ponte', 'Pizzeria Vesuvio', 'Caffe Centrale', 'Enoteca Rossi'],
  pt: ['Tasca do Ze', 'Cervejaria Ribeira', 'Pastelaria Aurora', 'Marisqueira Mar Azul'],
  pl: ['Bar Mleczny Pod Lipa', 'Pierogarnia Babci', 'Restauracja Stary Rynek'],
  ja: ['Sushi Kanda', 'Ramen Ichibanya', 'Izakaya Tanuki', 'Kissaten Hoshi', 'Soba Matsuya'],
};

const HOTEL_WORDS = ['Aurora', 'Meridian', 'Lindenhof', 'Harbourview', 'Central', 'Belvedere', 'Garden', 'Riverside'];
const SIGHTS = [
  'Museum of Art',
  'Castle Tickets',
  'Old Town Walking Tour',
  'Aquarium',
  'Botanical Garden',
  'Modern Art Museum',
];

const REGIONS: readonly (readonly string[])[] = [
  ['FRA', 'DEU', 'ESP', 'ITA', 'PRT', 'NLD', 'CHE', 'CZE', 'AUT', 'POL', 'IRL', 'DNK'],
  ['JPN', 'KOR'],
  ['THA', 'SGP'],
  ['MEX'],
  ['CAN'],
  ['ISL', 'DNK'],
];

interface Stop {
  readonly country: Country;
  readonly city: City;
  readonly nights: number;
}

function regionOf(code: string): readonly string[] {
  return REGIONS.find((r) => r.includes(code)) ?? [code];
}

export function travel(rng: Prng): HonestPlan {
  const home = pickHome(rng, ['GBR', 'USA']);
  const style = pickStyle(rng);
  const tz = home.tz;
  const homeCity = rng.pick(home.cities);
  const pool =
    home.code === 'GBR'
      ? ['FRA', 'DEU', 'ESP', 'ITA', 'PRT', 'NLD', 'CHE', 'CZE', 'ISL', 'JPN', 'USA', 'THA', 'IRL', 'AUT', 'POL']
      : ['GBR', 'FRA', 'ESP', 'ITA', 'PRT', 'DEU', 'NLD', 'JPN', 'MEX', 'CAN', 'ISL', 'KOR', 'IRL'];
  const travellers = rng.weighted<number>([
    [1, 5],
    [2, 3],
    [3, 1],
  ]);
  const drafts: Draft[] = [];
  const push = (
    atMs: number,
    usd: number,
    currency: string,
    m: Merchant,
    intent: string,
    task: string,
    full: string,
    terse: string,
    session: string,
  ): void => {
    drafts.push({
      atMs,
      minor: toMinor(rng, usd, currency, 'exact'),
      currency,
      merchant: m,
      intentType: intent,
      taskReference: task,
      reasoning: withAlarmingWords(rng, say(rng, style, full, terse), 0.04),
      sessionId: session,
    });
  };

  let day = rng.int(4, 12);
  let trips = 0;
  while (trips < 3 && day < DAYS - 4) {
    const first = countryOf(rng.pick(pool));
    const codes = [first.code];
    if (rng.chance(0.4)) {
      for (const c of rng.sample(
        regionOf(first.code).filter((x) => x !== first.code && x !== home.code),
        1,
      )) {
        codes.push(c);
      }
    }
    const stops: Stop[] = [];
    for (const c of codes) {
      const country = countryOf(c);
      for (const city of rng.sample(country.cities, codes.length === 1 && rng.chance(0.35) ? 2 : 1)) {
        stops.push({ country, city, nights: rng.int(1, 3) });
      }
    }
    const tripDays = stops.reduce((n, s) => n + s.nights, 0);
    const start = day;
    const end = start + tripDays;
    const task = `trip-${slug(stops[0]?.city.name ?? 'away')}-${monthName(localTime(start, 12, tz))}`;
    const long = ![
      'FRA',
      'DEU',
      'ESP',
      'ITA',
      'PRT',
      'NLD',
      'CHE',
      'CZE',
      'AUT',
      'POL',
      'IRL',
      'DNK',
      'CAN',
      'MEX',
    ].includes(first.code);
    const dest = stops[0] as Stop;
    const last = stops[stops.length - 1] as Stop;

    // Booked from home, in the home currency, days or weeks ahead.
    const bookDay = Math.max(0, start - rng.int(4, 24));
    const bookSession = sessionId(rng);
    const airline = rng.chance(0.6)
      ? home.code
      : AIRLINES[dest.country.code] !== undefined
        ? dest.country.code
        : home.code;
    const fare = (long ? rng.range(550, 1500) : rng.range(90, 380)) * travellers;
    push(
      localTime(bookDay, rng.range(9, 22), tz),
      fare,
      home.currency,
      merchant(AIRLINES[airline] as string, '4511', airline),
      'booking',
      task,
      `Return flights ${homeCity.airport}-${dest.city.airport}, ${travellers} passenger${travellers > 1 ? 's' : ''}, cheapest fare with a checked bag.`,
      `Flights ${homeCity.airport}-${dest.city.airport}`,
      bookSession,
    );
    const prepaid = new Set<number>();
    stops.forEach((s, i) => {
      if (rng.chance(0.5)) {
        prepaid.add(i);
        push(
          localTime(bookDay, rng.range(9, 23), tz) + rng.int(2, 40) * 60_000,
          s.nights * rng.range(90, 240) * (travellers > 2 ? 1.5 : 1),
          home.currency,
          merchant('Tripnest Hotels', '4722', 'NLD'),
          'booking',
          task,
          `${s.nights} night${s.nights > 1 ? 's' : ''} in ${s.city.name}, free cancellation, near the station.`,
          `Hotel ${s.city.name} ${s.nights}n`,
          bookSession,
        );
      }
    });

    // On the road: local currency, local merchants.
    let d = start;
    stops.forEach((s, i) => {
      const c = s.country;
      const ltz = c.tz;
      const cur = c.currency;
      const session = sessionId(rng);
      const arrive = localTime(d, rng.range(10, 19), ltz);
      if (i === 0) {
        push(
          arrive,
          rng.range(25, 80),
          cur,
          merchant(`${s.city.name} Airport Taxi`, '4121', c.code),
          'purchase',
          task,
          `Taxi from ${s.city.airport} to the hotel.`,
          'Airport taxi',
          session,
        );
      } else {
        const prev = stops[i - 1] as Stop;
        const sameCountry = prev.country.code === c.code;
        const rail = RAIL[prev.country.code];
        if (sameCountry || rail !== undefined) {
          push(
            arrive - rng.int(2, 30) * 3_600_000,
            rng.range(25, 140) * travellers,
            prev.country.currency,
            merchant(rail ?? `${prev.country.code} Rail`, '4112', prev.country.code),
            'booking',
            task,
            `Train ${prev.city.name} to ${s.city.name}, ${travellers} seat${travellers > 1 ? 's' : ''} reserved.`,
            `Train to ${s.city.name}`,
            session,
          );
        } else {
          push(
            arrive - rng.int(5, 30) * 3_600_000,
            rng.range(60, 260) * travellers,
            prev.country.currency,
            merchant(AIRLINES[c.code] ?? 'Skyway Atlantic', '4511', AIRLINES[c.code] !== undefined ? c.code : 'GBR'),
            'booking',
            task,
            `One-way flight ${prev.city.airport}-${s.city.airport} for the next leg.`,
            `Flight to ${s.city.name}`,
            session,
          );
        }
      }
      const restaurants = RESTAURANTS[c.lang];
      for (let n = 0; n < s.nights; n++) {
        const today = d + n;
        if (rng.chance(0.35)) {
          push(
            localTime(today, rng.range(8, 11), ltz),
            rng.range(3, 25),
            cur,
            merchant(`${s.city.name} Metro`, '4111', c.code),
            'purchase',
            task,
            n === 0 ? 'Transit pass for the stay.' : 'Metro tickets for today.',
            'Metro',
            session,
          );
        }
        if (rng.chance(0.3)) {
          push(
            localTime(today, rng.range(10, 23), ltz),
            rng.range(8, 35),
            cur,
            merchant(rng.chance(0.5) ? 'Zoomride' : `${s.city.name} Taxi`, '4121', c.code),
            'purchase',
            task,
            'Ride across town, rain and too far to walk.',
            'Taxi',
            session,
          );
        }
        const meals = rng.chance(0.35) ? 2 : 1;
        for (let k = 0; k < meals; k++) {
          const dinner = k === meals - 1;
          push(
            localTime(today, dinner ? rng.range(19, 21.5) : rng.range(12, 14), ltz),
            (dinner ? rng.range(30, 95) : rng.range(12, 35)) * Math.min(travellers, 2),
            cur,
            merchant(rng.pick(restaurants), '5812', c.code),
            'purchase',
            task,
            dinner ? `Dinner in ${s.city.name}.` : 'Lunch.',
            dinner ? 'Dinner' : 'Lunch',
            session,
          );
        }
        if (rng.chance(0.3)) {
          const sight = rng.pick(SIGHTS);
          push(
            localTime(today, rng.range(10, 16), ltz),
            rng.range(10, 40) * travellers,
            cur,
            merchant(`${s.city.name} ${sight}`, '7991', c.code),
            'purchase',
            task,
            `${sight} tickets, booked for a time slot.`,
            sight,
            session,
          );
        }
      }
      if (!prepaid.has(i)) {
        push(
          localTime(d + s.nights, rng.range(8, 11), ltz),
          s.nights * rng.range(90, 240) * (travellers > 2 ? 1.5 : 1),
          cur,
          merchant(
            c.code === 'JPN'
              ? `Ryokan ${rng.pick(['Hanaya', 'Kikuya', 'Sakura'])}`
              : `Hotel ${rng.pick(HOTEL_WORDS)} ${s.city.name}`,
            '7011',
            c.code,
          ),
          'purchase',
          task,
          `Hotel bill at checkout, ${s.nights} night${s.nights > 1 ? 's' : ''}.`,
          'Hotel checkout',
          session,
        );
      }
      d += s.nights;
    });
    push(
      localTime(end, rng.range(6, 12), last.country.tz),
      rng.range(25, 80),
      last.country.currency,
      merchant(`${last.city.name} Airport Taxi`, '4121', last.country.code),
      'purchase',
      task,
      `Taxi to ${last.city.airport} for the flight home.`,
      'Taxi to airport',
      sessionId(rng),
    );
    trips++;
    day = end + rng.int(5, 14);
  }

  // Between trips, now and then a train or a taxi at home.
  const tripDays = new Set(drafts.map((x) => Math.floor((x.atMs - localTime(0, 0, 0)) / 86_400_000)));
  for (let w = 0; w < DAYS; w += 7) {
    if (!rng.chance(0.45)) continue;
    const dd = w + rng.int(0, 6);
    if (tripDays.has(dd) || dd >= DAYS) continue;
    const rail = rng.chance(0.6);
    push(
      localTime(dd, wakingHour(rng), tz),
      rail ? rng.range(15, 90) : rng.range(12, 45),
      home.currency,
      rail
        ? merchant(RAIL[home.code] as string, '4112', home.code)
        : merchant(`${homeCity.name} Cabs`, '4121', home.code),
      'booking',
      `local-${monthName(localTime(dd, 12, tz))}`,
      rail ? 'Day return for the meeting.' : 'Cab to the station, early start.',
      rail ? 'Train' : 'Cab',
      sessionId(rng),
    );
  }
  drafts.sort(byTime);
  return { profile: { home, tz, lang: 'en', style, capabilities: ['PURCHASE'] }, drafts };
}
