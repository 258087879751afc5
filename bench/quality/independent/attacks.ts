// What an attacker does with an agent once it holds it, kind by kind. Each generator sees the
// agent's honest past (what an attacker inside the agent could read), the limits the Principal
// granted, and the moment of the takeover.
import type { Draft, Profile } from './draft.js';
import { HOMOGLYPHS, injectedMerchantName, injectedTaskReference, injection } from './injections.js';
import { toMinor } from './money.js';
import type { Prng } from './prng.js';
import { HOUR_MS, type Merchant, MINUTE_MS, merchant, START_MS, sessionId, slug } from './world.js';

export interface Limits {
  /** Per-transaction limit in minor units. */
  readonly perTx: number;
  /** Daily limit in minor units. */
  readonly daily: number;
}

export interface Takeover {
  readonly profile: Profile;
  /** The agent's honest requests before the takeover, in time order. */
  readonly past: readonly Draft[];
  /** Limits per currency. */
  readonly limits: ReadonlyMap<string, Limits>;
  /** The instant of the attacker's first request. */
  readonly atMs: number;
}

type Shop = readonly [name: string, mcc: string, country: string];

const RESALE: readonly Shop[] = [
  ['Voltmart Electronics', '5732', 'USA'],
  ['GiftHaven Cards', '5999', 'USA'],
  ['Maison Ardent Joaillerie', '5944', 'FRA'],
  ['Camera Depot Pro', '5946', 'USA'],
  ['Luxe Watch Exchange', '5944', 'CHE'],
  ['Gadget Harbor', '5732', 'HKG'],
  ['Cardvault Gift Cards', '5999', 'GBR'],
  ['Console Corner', '5732', 'GBR'],
];

const DRIP: readonly Shop[] = [
  ['Quillbyte Notes Pro', '5817', 'EST'],
  ['Snapvault Storage', '4816', 'CYP'],
  ['Pixelmint Filters', '5818', 'LTU'],
  ['Zenbox Backup', '4816', 'USA'],
  ['CloudSerif Fonts', '5817', 'IRL'],
  ['Tinyledger Apps', '5817', 'MLT'],
];

const RAPID: readonly Shop[] = [
  ['Pixel Coins Store', '5816', 'USA'],
  ['Vouchr Digital', '5999', 'EST'],
  ['Steamline Wallet', '5816', 'USA'],
  ['Playcard Direct', '5816', 'GBR'],
  ['Giftly Codes', '5999', 'CYP'],
];

const CASH: readonly Shop[] = [
  ['Swiftload Prepaid', '6540', 'GBR'],
  ['Remitora Transfers', '4829', 'USA'],
  ['Coinbridge Exchange', '6051', 'LTU'],
  ['Nimbus Wallet Top-up', '6540', 'EST'],
  ['Globex Money Orders', '4829', 'PAN'],
];

const OFFSHORE = ['CYP', 'MLT', 'EST', 'HKG', 'ARE', 'PAN', 'SYC', 'LTU', 'NGA', 'VNM'];

function shop(s: Shop): Merchant {
  return merchant(s[0], s[1], s[2]);
}

/** The currency the attacker pays in: the home currency when it has a mandate, else the most used. */
function currencyOf(t: Takeover): string {
  if (t.limits.has(t.profile.home.currency)) return t.profile.home.currency;
  const counts = new Map<string, number>();
  for (const d of t.past) counts.set(d.currency, (counts.get(d.currency) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? t.profile.home.currency;
}

function limitsOf(t: Takeover, currency: string): Limits {
  const l = t.limits.get(currency);
  if (l === undefined) throw new Error(`no mandate in ${currency}`);
  return l;
}

function medianMinor(t: Takeover, currency: string): number {
  const xs = t.past
    .filter((d) => d.currency === currency)
    .map((d) => d.minor)
    .sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)] ?? limitsOf(t, currency).perTx / 10;
}

/** An instant `hours` after `from`, moved into the agent's waking day. */
function later(rng: Prng, t: Takeover, from: number, minHours: number, maxHours: number): number {
  let at = from + rng.range(minHours, maxHours) * HOUR_MS;
  const local = (at / HOUR_MS + t.profile.tz) % 24;
  if (local < 7) at += (7 - local + rng.range(0, 3)) * HOUR_MS;
  return Math.round(at);
}

function session(rng: Prng, t: Takeover): string {
  const last = t.past[t.past.length - 1];
  return last !== undefined && rng.chance(0.3) ? last.sessionId : sessionId(rng);
}

function clamp(minor: number, l: Limits, share = 0.95): number {
  return Math.max(1, Math.min(Math.round(minor), Math.floor(l.perTx * share)));
}

function draft(
  at: number,
  minor: number,
  currency: string,
  m: Merchant,
  intent: string,
  task: string,
  reasoning: string | null,
  ses: string,
): Draft {
  return { atMs: at, minor, currency, merchant: m, intentType: intent, taskReference: task, reasoning, sessionId: ses };
}

// ---------------------------------------------------------------------------------------

export function slowDrip(rng: Prng, t: Takeover): Draft[] {
  const cur = currencyOf(t);
  const shops = rng.sample(DRIP, rng.int(1, 2)).map(shop);
  const out: Draft[] = [];
  let at = t.atMs;
  const n = rng.int(8, 18);
  const price = rng.range(1, 12);
  for (let i = 0; i < n; i++) {
    const m = rng.pick(shops);
    out.push(
      draft(
        at,
        toMinor(rng, rng.chance(0.6) ? price : rng.range(1, 14), cur, 'retail'),
        cur,
        m,
        rng.pick(['purchase', 'subscription']),
        rng.chance(0.5) ? `misc-${rng.token(5)}` : rng.pick(t.past).taskReference,
        rng.pick([
          null,
          null,
          'Small add-on for the shared files.',
          'Font licence for the slides.',
          'App credit.',
          'Storage top-up.',
        ]),
        session(rng, t),
      ),
    );
    at = later(rng, t, at, 6, 40);
  }
  return out;
}

export function capProbing(rng: Prng, t: Takeover): Draft[] {
  const cur = currencyOf(t);
  const l = limitsOf(t, cur);
  const out: Draft[] = [];
  let at = t.atMs;
  const n = rng.int(5, 9);
  const overFirst = rng.chance(0.3);
  const reasons = [
    'Replacement laptop, the old one failed.',
    'Gift cards for the client thank-you pack.',
    'Camera body for the product shoot.',
    'Watch as a retirement gift, team collection.',
    null,
  ];
  for (let i = 0; i < n; i++) {
    const share = overFirst && i === 0 ? rng.range(1.02, 1.3) : rng.range(0.9, 0.999);
    let minor = Math.floor(l.perTx * share);
    if (rng.chance(0.5)) minor -= minor % 100;
    const m = shop(rng.pick(RESALE));
    out.push(
      draft(at, Math.max(1, minor), cur, m, 'purchase', `order-${rng.token(6)}`, rng.pick(reasons), session(rng, t)),
    );
    at = later(rng, t, at, 0.08, 3);
  }
  return out;
}

/** A lookalike of a merchant name, as registered by someone imitating it. */
export function lookalike(rng: Prng, name: string): string {
  const tries: (() => string)[] = [
    () => {
      const map: Record<string, string> = { o: '0', l: '1', i: '1', e: '3', s: '5' };
      const idx = Array.from(name).findIndex((ch) => map[ch] !== undefined);
      return idx < 0 ? name : name.slice(0, idx) + (map[name[idx] as string] as string) + name.slice(idx + 1);
    },
    () => {
      let done = 0;
      return Array.from(name, (ch) => {
        const g = HOMOGLYPHS[ch];
        if (g !== undefined && done < 2 && rng.chance(0.6)) {
          done++;
          return g;
        }
        return ch;
      }).join('');
    },
    () =>
      name.includes('m') ? name.replace('m', 'rn') : name.includes('rn') ? name.replace('rn', 'm') : `${name} Billing`,
    () => `${name} ${rng.pick(['Billing', 'Payments', 'Renewals', 'Svcs Ltd', 'Online'])}`,
    () => `${slug(name).replace(/-/g, '')}${rng.pick(['.co', '-billing.com', '.net', '-pay.io'])}`,
    () => {
      const i = rng.int(1, Math.max(1, name.length - 2));
      return name.slice(0, i) + name[i] + name.slice(i);
    },
    () => {
      const i = rng.int(1, Math.max(1, name.length - 2));
      return name.slice(0, i) + name.slice(i + 1);
    },
    () => {
      const i = rng.int(1, Math.max(1, name.length - 3));
      return name.slice(0, i) + (name[i + 1] ?? '') + (name[i] ?? '') + name.slice(i + 2);
    },
  ];
  for (let k = 0; k < 8; k++) {
    const candidate = rng.pick(tries)();
    if (candidate !== name && candidate.trim() !== '') return candidate;
  }
  return `${name} Payments`;
}

export function merchantMimicry(rng: Prng, t: Takeover): Draft[] {
  const counts = new Map<string, { d: Draft; n: number }>();
  for (const d of t.past) {
    const c = counts.get(d.merchant.id);
    if (c === undefined) counts.set(d.merchant.id, { d, n: 1 });
    else c.n++;
  }
  const usual = [...counts.values()].sort((a, b) => b.n - a.n || a.d.atMs - b.d.atMs).slice(0, 3);
  const targets = rng.sample(usual, rng.int(1, Math.min(2, usual.length))).map(({ d }) => {
    const name = lookalike(rng, d.merchant.name);
    const country = rng.chance(0.6) ? rng.pick(OFFSHORE) : d.merchant.country;
    const mcc = rng.chance(0.7) ? d.merchant.mcc : '5968';
    return { real: d, fake: merchant(name, mcc, country) };
  });
  const out: Draft[] = [];
  let at = t.atMs;
  const n = rng.int(4, 8);
  for (let i = 0; i < n; i++) {
    const { real, fake } = rng.pick(targets);
    const like = t.past.filter((d) => d.merchant.id === real.merchant.id);
    const model = rng.pick(like);
    const l = limitsOf(t, model.currency);
    out.push(
      draft(
        at,
        clamp(model.minor * rng.range(0.9, 1.6), l),
        model.currency,
        fake,
        model.intentType,
        model.taskReference,
        model.reasoning === null ? null : model.reasoning.split(real.merchant.name).join(fake.name),
        session(rng, t),
      ),
    );
    at = later(rng, t, at, 2, 48);
  }
  return out;
}

export function promptInjection(rng: Prng, t: Takeover): Draft[] {
  const cur = currencyOf(t);
  const l = limitsOf(t, cur);
  const median = medianMinor(t, cur);
  const out: Draft[] = [];
  let at = t.atMs;
  const n = rng.int(3, 6);
  for (let i = 0; i < n; i++) {
    const inj = injection(rng);
    const vector = rng.weighted<'reasoning' | 'task' | 'merchant'>([
      ['reasoning', 6],
      ['task', 2.5],
      ['merchant', 1.5],
    ]);
    const model = rng.pick(t.past.filter((d) => d.currency === cur).concat(t.past.slice(-1)));
    let m: Merchant;
    if (vector === 'merchant') m = merchant(injectedMerchantName(rng), '5999', rng.pick(OFFSHORE));
    else if (rng.chance(0.5)) m = shop(rng.pick(RESALE));
    else m = model.merchant;
    const task = vector === 'task' ? injectedTaskReference(rng, inj.text) : model.taskReference;
    const reasoning = vector === 'reasoning' ? inj.framed : rng.chance(0.6) ? model.reasoning : 'Order as discussed.';
    out.push(draft(at, clamp(median * rng.range(1, 3), l), cur, m, model.intentType, task, reasoning, session(rng, t)));
    at = later(rng, t, at, 0.15, 24);
  }
  return out;
}

const MCC_NOUN: Readonly<Record<string, string>> = {
  '5411': 'Grocers',
  '5812': 'Bistro',
  '5814': 'Kitchen',
  '4121': 'Cars',
  '4111': 'Transit',
  '4112': 'Rail Tickets',
  '4511': 'Air Travel',
  '7011': 'Suites',
  '4722': 'Travel',
  '5734': 'Software',
  '5817': 'Apps',
  '5818': 'Digital',
  '7372': 'Cloud Tools',
  '4816': 'Hosting',
  '5085': 'Industrial',
  '5045': 'Computers',
  '5065': 'Electronics Supply',
  '5047': 'Lab Supply',
  '5912': 'Pharmacy',
  '5651': 'Outfitters',
  '5942': 'Books',
  '5999': 'Goods',
  '7922': 'Tickets',
};

export function mimicThenDeviate(rng: Prng, t: Takeover): Draft[] {
  const out: Draft[] = [];
  let at = t.atMs;
  const prefix = rng.pick(['Northgate', 'Bluepeak', 'Silverline', 'Harbor', 'Kingsway', 'Oakridge', 'Fairview']);
  const n1 = rng.int(2, 4);
  for (let i = 0; i < n1; i++) {
    const model = rng.pick(t.past);
    const m = merchant(
      `${prefix} ${MCC_NOUN[model.merchant.mcc] ?? 'Trading'}`,
      model.merchant.mcc,
      model.merchant.country,
    );
    const l = limitsOf(t, model.currency);
    // Same hour of the day as the model request, on a later day.
    const hourMs = (model.atMs - START_MS) % 86_400_000;
    const dayStart = Math.floor((at - START_MS) / 86_400_000) * 86_400_000 + START_MS;
    const when = Math.max(at, dayStart + hourMs);
    out.push(
      draft(
        when,
        clamp(model.minor * rng.range(0.8, 1.2), l),
        model.currency,
        m,
        model.intentType,
        model.taskReference,
        model.reasoning === null ? null : model.reasoning.split(model.merchant.name).join(m.name),
        session(rng, t),
      ),
    );
    at = when + rng.range(18, 30) * HOUR_MS;
  }
  const cur = currencyOf(t);
  const l = limitsOf(t, cur);
  const median = medianMinor(t, cur);
  const n2 = rng.int(3, 6);
  for (let i = 0; i < n2; i++) {
    const base = rng.pick(RESALE);
    const abroad = rng.chance(0.5);
    const m = merchant(base[0], base[1], abroad ? rng.pick(OFFSHORE) : t.profile.home.code);
    out.push(
      draft(
        at,
        clamp(median * rng.range(3, 8), l, rng.range(0.6, 0.95)),
        cur,
        m,
        'purchase',
        `order-${rng.token(6)}`,
        rng.pick(['Stock for the resale shop.', 'Upgrade requested by the owner.', 'Gift for a client.', null]),
        sessionId(rng),
      ),
    );
    at = later(rng, t, at, 0.3, 6);
  }
  return out;
}

/** One agent's part of a drain that several agents of a Principal run at the same hours. */
export function coordinatedDrain(rng: Prng, t: Takeover, shops: readonly Shop[]): Draft[] {
  const cur = currencyOf(t);
  const l = limitsOf(t, cur);
  const out: Draft[] = [];
  let at = t.atMs;
  let spent = 0;
  const n = rng.int(4, 8);
  for (let i = 0; i < n; i++) {
    const minor = Math.floor(l.perTx * rng.range(0.25, 0.7));
    if (spent + minor > l.daily * 0.9) break;
    spent += minor;
    out.push(
      draft(
        at,
        minor,
        cur,
        shop(rng.pick(shops)),
        'purchase',
        `order-${rng.token(6)}`,
        rng.pick([
          'Team gift cards for the quarterly awards.',
          'Spare laptops for the new office.',
          'Client thank-you gifts.',
          null,
        ]),
        session(rng, t),
      ),
    );
    at += Math.round(rng.range(15, 50) * MINUTE_MS);
  }
  return out;
}

/** The shops a drain's agents share. */
export function drainShops(rng: Prng): Shop[] {
  return rng.sample(RESALE.concat(RAPID), 3);
}

export function rapidFire(rng: Prng, t: Takeover): Draft[] {
  const cur = currencyOf(t);
  const l = limitsOf(t, cur);
  const shops = rng.sample(RAPID, rng.int(1, 2)).map(shop);
  const ses = sessionId(rng);
  const out: Draft[] = [];
  let at = t.atMs;
  const n = rng.int(10, 25);
  const face = rng.pick([10, 20, 25, 50, 100]);
  for (let i = 0; i < n; i++) {
    out.push(
      draft(
        at,
        clamp(toMinor(rng, rng.chance(0.7) ? face : rng.pick([10, 25, 50]), cur, 'whole'), l),
        cur,
        rng.pick(shops),
        'purchase',
        `order-${rng.token(6)}`,
        rng.pick([null, 'Gift card order.', 'Game credits.', 'Digital voucher.']),
        ses,
      ),
    );
    at += rng.int(2, 10) * 1000;
  }
  return out;
}

export function cashOut(rng: Prng, t: Takeover): Draft[] {
  const cur = currencyOf(t);
  const l = limitsOf(t, cur);
  const out: Draft[] = [];
  let at = t.atMs;
  const n = rng.int(3, 7);
  for (let i = 0; i < n; i++) {
    const s = rng.pick(CASH);
    const abroad = s[2] !== t.profile.home.code && rng.chance(0.5);
    const m = merchant(s[0], s[1], abroad ? s[2] : t.profile.home.code);
    out.push(
      draft(
        at,
        Math.floor(l.perTx * rng.range(0.3, 0.8)),
        cur,
        m,
        rng.pick(['purchase', 'top_up', 'transfer']),
        `pay-${rng.token(6)}`,
        rng.pick([
          'Top up the team travel card before the offsite.',
          'Transfer the contractor deposit as agreed.',
          'Convert budget to stablecoin for the vendor invoice.',
          'Load the prepaid card for petty cash.',
          null,
        ]),
        session(rng, t),
      ),
    );
    at = later(rng, t, at, 0.5, 4);
  }
  return out;
}
