// B2B procurement: large, irregular orders to a handful of suppliers in several countries,
// each in the supplier's currency, on working days, with purchase-order numbers; now and
// then a capital purchase far above the usual order.
import { byTime, type Draft, type HonestPlan, say } from '../draft.js';
import { toMinor } from '../money.js';
import type { Prng } from '../prng.js';
import { countryOf, DAYS, isWorkday, localTime, merchant, sessionId, workingHour } from '../world.js';
import { pickHome, pickStyle, withAlarmingWords } from './common.js';

interface Supplier {
  readonly name: string;
  readonly mcc: string;
  readonly country: string;
  /** Typical order in US dollars. */
  readonly order: number;
  readonly items: readonly string[];
}

const SUPPLIERS: readonly Supplier[] = [
  {
    name: 'Northfield Industrial Supply',
    mcc: '5085',
    country: 'USA',
    order: 2400,
    items: ['bearings and seals', 'pneumatic fittings', 'conveyor belt spares'],
  },
  {
    name: 'Brightline Office Wholesale',
    mcc: '5111',
    country: 'USA',
    order: 650,
    items: ['printer paper, 40 cases', 'toner cartridges', 'archive boxes'],
  },
  {
    name: 'Kestrel Networks',
    mcc: '5045',
    country: 'GBR',
    order: 5200,
    items: ['access points', 'rack switches', 'laptops for new starters'],
  },
  {
    name: 'Halden Elektro GmbH',
    mcc: '5065',
    country: 'DEU',
    order: 3100,
    items: ['contactors and relays', 'cable reels', 'PLC modules'],
  },
  {
    name: 'Labsource Scientific',
    mcc: '5047',
    country: 'USA',
    order: 4300,
    items: ['pipette tips, 20 racks', 'centrifuge tubes', 'nitrile gloves, 50 boxes'],
  },
  {
    name: 'Palletwise Packaging',
    mcc: '5099',
    country: 'NLD',
    order: 1800,
    items: ['stretch wrap', 'double-wall cartons', 'pallet labels'],
  },
  {
    name: 'Corvid Chemicals',
    mcc: '5169',
    country: 'BEL',
    order: 2900,
    items: ['isopropanol, 200 L', 'cleaning concentrate', 'buffer salts'],
  },
  {
    name: 'Ridgeway Safety Equipment',
    mcc: '5099',
    country: 'GBR',
    order: 1200,
    items: ['hi-vis jackets', 'safety boots', 'first aid refills'],
  },
  {
    name: 'Steelmark Metals',
    mcc: '5051',
    country: 'POL',
    order: 7800,
    items: ['aluminium sheet', 'steel bar stock', 'stainless tube'],
  },
  {
    name: 'Tooling Direct',
    mcc: '5072',
    country: 'DEU',
    order: 950,
    items: ['carbide end mills', 'drill bit sets', 'torque wrenches'],
  },
  {
    name: 'Fluxline Plumbing Trade',
    mcc: '5074',
    country: 'GBR',
    order: 1400,
    items: ['valves and fittings', 'heat exchanger parts', 'copper pipe'],
  },
  {
    name: 'Aster Lab Instruments',
    mcc: '5047',
    country: 'CHE',
    order: 8800,
    items: ['balance calibration', 'pH meters', 'fume hood filters'],
  },
];

export function procurement(rng: Prng): HonestPlan {
  const home = pickHome(rng, ['USA', 'DEU', 'GBR', 'NLD']);
  const style = pickStyle(rng);
  const tz = home.tz;
  const site = rng.pick(home.cities).name;
  const suppliers = rng.sample(SUPPLIERS, rng.int(4, 7));
  const drafts: Draft[] = [];
  let po = rng.int(1000, 8000);
  const order = (day: number, s: Supplier, usd: number, capital: boolean): void => {
    const currency = countryOf(s.country).currency;
    const item = rng.pick(s.items);
    const ref = `PO-2026-${String(po++).padStart(4, '0')}`;
    const full = capital
      ? `Capital purchase approved in the budget review: ${item} from ${s.name}, ${ref}, quote attached.`
      : rng.chance(0.5)
        ? `Reorder of ${item} from ${s.name} per the min-stock alert, ${ref}, delivery to ${site}.`
        : `${s.name} invoice for ${item} (${ref}), matched to the goods receipt.`;
    drafts.push({
      atMs: localTime(day, workingHour(rng), tz),
      minor: toMinor(rng, usd, currency, 'exact'),
      currency,
      merchant: merchant(s.name, s.mcc, s.country),
      intentType: 'procurement',
      taskReference: ref,
      reasoning: withAlarmingWords(rng, say(rng, style, full, `${ref} ${item}`), 0.05),
      sessionId: sessionId(rng),
    });
  };
  for (const s of suppliers) {
    const scale = rng.range(0.6, 1.6);
    let day = rng.int(0, 10);
    while (day < DAYS) {
      if (isWorkday(day)) order(day, s, rng.around(s.order * scale, 0.5, 150, 30_000), false);
      day += rng.int(5, 16);
    }
  }
  if (rng.chance(0.5)) {
    const s = rng.pick(suppliers);
    let day = rng.int(10, DAYS - 5);
    while (!isWorkday(day)) day++;
    order(day, s, s.order * rng.range(4, 8), true);
  }
  drafts.sort(byTime);
  return { profile: { home, tz, lang: 'en', style, capabilities: ['PURCHASE'] }, drafts };
}
