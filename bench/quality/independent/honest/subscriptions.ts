// Subscriptions and renewals: an agent paying a small organisation's software tools, each on its
// own billing day, monthly or yearly, with price changes, added seats and new tools.
import { byTime, type Draft, type HonestPlan, say } from '../draft.js';
import { toMinor } from '../money.js';
import type { Prng } from '../prng.js';
import { DAYS, localTime, type Merchant, merchant, sessionId, slug, yearMonth } from '../world.js';
import { pickHome, pickStyle, withAlarmingWords } from './common.js';

interface Vendor {
  readonly name: string;
  readonly mcc: string;
  readonly country: string;
  readonly currency: string;
  /** Monthly price per seat (or per plan) in US dollars. */
  readonly usd: readonly [number, number];
  readonly perSeat: boolean;
  readonly what: string;
}

export const VENDORS: readonly Vendor[] = [
  {
    name: 'Figtree Design',
    mcc: '5734',
    country: 'USA',
    currency: 'USD',
    usd: [12, 45],
    perSeat: true,
    what: 'design tool',
  },
  { name: 'Gitloom', mcc: '7372', country: 'USA', currency: 'USD', usd: [4, 21], perSeat: true, what: 'code hosting' },
  {
    name: 'Boxwell Storage',
    mcc: '4816',
    country: 'USA',
    currency: 'USD',
    usd: [10, 30],
    perSeat: false,
    what: 'file storage',
  },
  {
    name: 'Vidflow Studio',
    mcc: '5817',
    country: 'IRL',
    currency: 'EUR',
    usd: [15, 40],
    perSeat: false,
    what: 'video editing',
  },
  {
    name: 'KeyNest Passwords',
    mcc: '5734',
    country: 'CAN',
    currency: 'USD',
    usd: [3, 8],
    perSeat: true,
    what: 'password manager',
  },
  {
    name: 'Metricly Analytics',
    mcc: '7372',
    country: 'DEU',
    currency: 'EUR',
    usd: [29, 99],
    perSeat: false,
    what: 'web analytics',
  },
  {
    name: 'Tunewave Music',
    mcc: '5815',
    country: 'SWE',
    currency: 'EUR',
    usd: [10, 17],
    perSeat: false,
    what: 'music for the office',
  },
  { name: 'Calendrio', mcc: '5817', country: 'NLD', currency: 'EUR', usd: [8, 16], perSeat: true, what: 'scheduling' },
  {
    name: 'Notepine',
    mcc: '5817',
    country: 'USA',
    currency: 'USD',
    usd: [8, 10],
    perSeat: true,
    what: 'notes and wiki',
  },
  {
    name: 'Slatework Chat',
    mcc: '7372',
    country: 'USA',
    currency: 'USD',
    usd: [7, 13],
    perSeat: true,
    what: 'team chat',
  },
  {
    name: 'Mailcraft',
    mcc: '7372',
    country: 'GBR',
    currency: 'GBP',
    usd: [15, 60],
    perSeat: false,
    what: 'newsletter sending',
  },
  {
    name: 'Hostbay Domains',
    mcc: '4816',
    country: 'USA',
    currency: 'USD',
    usd: [5, 25],
    perSeat: false,
    what: 'hosting',
  },
  { name: 'Shieldline VPN', mcc: '4816', country: 'CHE', currency: 'EUR', usd: [5, 10], perSeat: true, what: 'VPN' },
  {
    name: 'Linguo Translate',
    mcc: '5817',
    country: 'DEU',
    currency: 'EUR',
    usd: [9, 25],
    perSeat: true,
    what: 'translation',
  },
  {
    name: 'Pixelary Stock',
    mcc: '5818',
    country: 'USA',
    currency: 'USD',
    usd: [29, 49],
    perSeat: false,
    what: 'stock photos',
  },
  {
    name: 'Codewright IDE',
    mcc: '5734',
    country: 'CZE',
    currency: 'EUR',
    usd: [9, 25],
    perSeat: true,
    what: 'IDE licences',
  },
  {
    name: 'Taskmere Projects',
    mcc: '7372',
    country: 'AUS',
    currency: 'USD',
    usd: [8, 14],
    perSeat: true,
    what: 'project boards',
  },
  {
    name: 'Inkseal eSign',
    mcc: '7372',
    country: 'USA',
    currency: 'USD',
    usd: [10, 25],
    perSeat: true,
    what: 'e-signatures',
  },
  {
    name: 'Ledgerly Books',
    mcc: '7372',
    country: 'GBR',
    currency: 'GBP',
    usd: [15, 45],
    perSeat: false,
    what: 'accounting',
  },
  {
    name: 'Cloudpane Backup',
    mcc: '4816',
    country: 'NLD',
    currency: 'EUR',
    usd: [6, 20],
    perSeat: false,
    what: 'laptop backup',
  },
];

interface Plan {
  readonly vendor: Vendor;
  readonly m: Merchant;
  readonly seats: number;
  readonly annual: boolean;
  readonly billingDay: number;
  readonly monthlyUsd: number;
  /** The billing month (0 February, 1 March) from which the price changes, and the factor. */
  readonly change: { readonly from: number; readonly factor: number } | null;
  /** The corpus day of the plan's first charge (a tool added mid-window). */
  readonly startDay: number;
}

export function subscriptions(rng: Prng): HonestPlan {
  const home = pickHome(rng, ['USA', 'GBR', 'DEU', 'NLD', 'IRL', 'CAN']);
  const style = pickStyle(rng);
  const tz = home.tz;
  const runHour = rng.range(6, 10);
  const count = rng.int(7, 12);
  const chosen = rng.sample(VENDORS, count + 1);
  const plans: Plan[] = chosen.map((vendor, i) => {
    const added = i === count;
    const seats = vendor.perSeat ? rng.int(2, 14) : 1;
    return {
      vendor,
      m: merchant(vendor.name, vendor.mcc, vendor.country),
      seats,
      annual: !added && rng.chance(0.22),
      billingDay: rng.int(1, 28),
      monthlyUsd: rng.range(vendor.usd[0], vendor.usd[1]) * seats,
      change: rng.chance(0.3)
        ? { from: 1, factor: rng.chance(0.85) ? rng.range(1.08, 1.3) : rng.range(0.8, 0.95) }
        : null,
      startDay: added ? rng.int(15, 40) : 0,
    };
  });
  const drafts: Draft[] = [];
  // Billing days are calendar days of the month; corpus day 0 is 2 February.
  const dates: { day: number; date: number; cycle: number }[] = [];
  for (let day = 0; day < DAYS; day++) {
    const date = new Date(localTime(day, 12, 0)).getUTCDate();
    const month = new Date(localTime(day, 12, 0)).getUTCMonth();
    dates.push({ day, date, cycle: month - 1 });
  }
  const sessions = new Map<number, string>();
  const sessionOf = (day: number): string => {
    let s = sessions.get(day);
    if (s === undefined) {
      s = sessionId(rng);
      sessions.set(day, s);
    }
    return s;
  };
  for (const p of plans) {
    const annualDay = p.annual ? (rng.chance(0.7) ? rng.int(3, DAYS - 3) : -1) : -1;
    for (const { day, date, cycle } of dates) {
      if (day < p.startDay) continue;
      const first = p.startDay > 0 && day === p.startDay;
      const due = p.annual ? day === annualDay : date === p.billingDay || first;
      if (!due) continue;
      const at = localTime(day, runHour + rng.range(0, 0.4), tz);
      const changed = p.change !== null && cycle >= p.change.from;
      const usd = p.monthlyUsd * (changed ? (p.change?.factor ?? 1) : 1) * (p.annual ? rng.range(10, 12) : 1);
      const minor = toMinor(rng, usd, p.vendor.currency, p.vendor.perSeat ? 'exact' : 'retail');
      const name = p.vendor.name;
      let full: string;
      let terse: string;
      if (p.annual) {
        full = `Annual renewal of ${name} (${p.vendor.what}), in this year's budget.`;
        terse = `${name} annual renewal`;
      } else if (first) {
        full = `New tool: ${name} for ${p.vendor.what}, first month, trial ended.`;
        terse = `${name} first invoice`;
      } else if (changed && p.change !== null && cycle === p.change.from) {
        full = `${name} changed its price from this cycle; ${p.vendor.what} still needed, amount checked against their notice.`;
        terse = `${name} new price`;
      } else {
        full =
          p.seats > 1
            ? `Monthly ${name} plan, ${p.seats} seats (${p.vendor.what}).`
            : `Monthly ${name} plan (${p.vendor.what}).`;
        terse = `${name} monthly`;
      }
      drafts.push({
        atMs: at,
        minor,
        currency: p.vendor.currency,
        merchant: p.m,
        intentType: p.annual ? 'renewal' : 'subscription',
        taskReference: `billing/${slug(name)}/${yearMonth(at)}`,
        reasoning: withAlarmingWords(rng, say(rng, style, full, terse), 0.04),
        sessionId: sessionOf(day),
      });
    }
    // A seat added mid-cycle is charged pro rata at once.
    if (p.vendor.perSeat && !p.annual && rng.chance(0.35)) {
      const day = rng.int(3, DAYS - 2);
      const added = rng.int(1, 3);
      const usd = (p.monthlyUsd / p.seats) * added * rng.range(0.3, 0.95);
      const at = localTime(day, rng.range(9, 17), tz);
      drafts.push({
        atMs: at,
        minor: toMinor(rng, usd, p.vendor.currency, 'exact'),
        currency: p.vendor.currency,
        merchant: p.m,
        intentType: 'purchase',
        taskReference: `billing/${slug(p.vendor.name)}/seats-${added}`,
        reasoning: say(
          rng,
          style,
          `Adding ${added} ${p.vendor.name} seat${added > 1 ? 's' : ''} for new starters, prorated for the rest of the month.`,
          `${p.vendor.name} +${added} seat${added > 1 ? 's' : ''}`,
        ),
        sessionId: sessionId(rng),
      });
    }
  }
  drafts.sort(byTime);
  return {
    profile: { home, tz, lang: 'en', style, capabilities: ['PURCHASE', 'SUBSCRIPTION'] },
    drafts,
  };
}
