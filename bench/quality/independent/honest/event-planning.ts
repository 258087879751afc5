// Event planning: an agent that usually buys little, then organises a wedding, an offsite or a
// conference: deposits and balances to venues, caterers, florists, photographers, AV rental
// and bands, large and at merchants never seen before, each explained by a contract or an
// invoice. Some weddings are abroad, paid in the destination's currency.
import { byTime, type Draft, type HonestPlan, say } from '../draft.js';
import { toMinor } from '../money.js';
import type { Prng } from '../prng.js';
import {
  type Country,
  countryOf,
  DAYS,
  dayMonth,
  isWorkday,
  localTime,
  merchant,
  sessionId,
  slug,
  wakingHour,
} from '../world.js';
import { pickHome, pickStyle, withAlarmingWords } from './common.js';

interface Supplier {
  readonly role: string;
  readonly mcc: string;
  /** Total contract in US dollars. */
  readonly usd: readonly [number, number];
  readonly names: readonly string[];
  /** Paid as a deposit then a balance (otherwise in one payment). */
  readonly split: boolean;
}

const SUPPLIERS: readonly Supplier[] = [
  {
    role: 'venue',
    mcc: '7299',
    usd: [4000, 14000],
    names: ['Ashcombe House', 'The Old Granary', 'Villa Serena', 'Harbourside Hall'],
    split: true,
  },
  {
    role: 'caterer',
    mcc: '5811',
    usd: [3000, 11000],
    names: ['Saltbox Catering', 'Table & Thyme', 'Cucina Viva Catering'],
    split: true,
  },
  { role: 'florist', mcc: '5992', usd: [600, 2400], names: ['Wild Stem Florals', 'Peony & Pine'], split: true },
  {
    role: 'photographer',
    mcc: '7221',
    usd: [1200, 3400],
    names: ['Lumen Photography', 'Northlight Studio'],
    split: true,
  },
  { role: 'AV rental', mcc: '7394', usd: [500, 2400], names: ['SoundStage Hire', 'ProAV Rentals'], split: false },
  { role: 'band', mcc: '7929', usd: [800, 3000], names: ['The Velvet Swing Band', 'DJ Marlowe Events'], split: true },
  { role: 'printing', mcc: '2741', usd: [90, 420], names: ['Letterpress Lane', 'Printhaus Invitations'], split: false },
  { role: 'coach hire', mcc: '4131', usd: [450, 1500], names: ['Greyline Coaches', 'Rivera Autocares'], split: false },
  {
    role: 'decorations',
    mcc: '5947',
    usd: [120, 600],
    names: ['Party Parade Supplies', 'Bunting & Bloom'],
    split: false,
  },
];

const SMALL: readonly (readonly [string, string, number, number])[] = [
  ['Chapter & Verse Books', '5942', 9, 30],
  ['Greenleaf Market', '5411', 20, 90],
  ['Paper Trail Stationers', '5943', 6, 30],
  ['Corner Roast', '5814', 3, 9],
];

export function eventPlanning(rng: Prng): HonestPlan {
  const home = pickHome(rng, ['GBR', 'USA', 'ESP', 'DEU', 'IRL']);
  const style = pickStyle(rng);
  const tz = home.tz;
  const kind = rng.weighted<'wedding' | 'offsite' | 'conference'>([
    ['wedding', 3],
    ['offsite', 2],
    ['conference', 1],
  ]);
  const abroad: Country =
    kind === 'wedding' && rng.chance(0.35)
      ? countryOf(rng.pick(['ITA', 'PRT', 'ESP', 'FRA'].filter((c) => c !== home.code)))
      : home;
  const eventDay = rng.int(42, DAYS + 10);
  const planFrom = rng.int(3, 16);
  const drafts: Draft[] = [];

  for (let day = 0; day < DAYS; day++) {
    if (!rng.chance(0.18)) continue;
    const [n, mcc, lo, hi] = rng.pick(SMALL);
    drafts.push({
      atMs: localTime(day, wakingHour(rng), tz),
      minor: toMinor(rng, rng.range(lo, hi), home.currency, 'retail'),
      currency: home.currency,
      merchant: merchant(n, mcc, home.code),
      intentType: 'purchase',
      taskReference: `errand-${slug(n)}`,
      reasoning: say(rng, style, `${n}, small everyday purchase.`, n),
      sessionId: sessionId(rng),
    });
  }

  const roles = rng.sample(SUPPLIERS, rng.int(5, SUPPLIERS.length));
  const event = `${kind}-${dayMonth(localTime(eventDay, 12, tz))
    .toLowerCase()
    .replace(' ', '')}`;
  for (const s of roles) {
    const where = s.role === 'printing' || s.role === 'decorations' ? home : abroad;
    const name = rng.pick(s.names);
    const m = merchant(name, s.mcc, where.code);
    const total = rng.range(s.usd[0], s.usd[1]) * (kind === 'conference' ? 1.5 : 1);
    const contract = `${s.role.slice(0, 2).toUpperCase()}-${rng.int(1000, 9999)}`;
    let day = planFrom + rng.int(0, 14);
    while (!isWorkday(day)) day++;
    const share = s.split ? rng.pick([0.25, 0.3, 0.4, 0.5]) : 1;
    const payments: [number, number, string][] = [[day, total * share, s.split ? 'deposit' : 'purchase']];
    if (s.split) {
      const balanceDay = Math.max(day + 7, eventDay - rng.int(7, 21));
      payments.push([balanceDay, total * (1 - share), 'purchase']);
    }
    for (const [d, usd, intent] of payments) {
      if (d >= DAYS) continue;
      const deposit = intent === 'deposit';
      drafts.push({
        atMs: localTime(d, rng.range(9, 18), tz),
        minor: toMinor(rng, usd, where.currency, 'exact'),
        currency: where.currency,
        merchant: m,
        intentType: intent,
        taskReference: `${event}/${slug(s.role)}`,
        reasoning: withAlarmingWords(
          rng,
          say(
            rng,
            style === 'sparse' ? 'terse' : style,
            deposit
              ? `${Math.round(share * 100)}% deposit to ${name} (${s.role}) per contract ${contract}, signed for the ${kind} on ${dayMonth(localTime(eventDay, 12, tz))}.`
              : s.split
                ? `Balance to ${name} (${s.role}) per contract ${contract}, due before the ${kind}.`
                : `${name}: ${s.role} for the ${kind}, invoice ${contract}.`,
            `${s.role} ${deposit ? 'deposit' : 'payment'} ${contract}`,
          ),
          0.08,
        ),
        sessionId: sessionId(rng),
      });
    }
  }
  drafts.sort(byTime);
  return { profile: { home, tz, lang: 'en', style, capabilities: ['PURCHASE'] }, drafts };
}
