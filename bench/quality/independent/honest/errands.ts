// Everyday errands of a busy person: rides, food delivery, coffee, quick groceries, laundry,
// with the tip charged as a separate payment at the same merchant minutes after the ride or
// the delivery, and many different restaurants behind one delivery platform.
import { byTime, type Draft, type HonestPlan, say } from '../draft.js';
import { toMinor } from '../money.js';
import type { Prng } from '../prng.js';
import { DAYS, isWorkday, localTime, MINUTE_MS, merchant, sessionId } from '../world.js';
import { pickHome, pickStyle, withAlarmingWords } from './common.js';

const KITCHENS = [
  'Thai Orchid',
  'Bombay Spice',
  'Nonna Pasta',
  'Green Bowl',
  'Burger Yard',
  'Sushi Nami',
  'Pho Saigon',
  'Taco Loco',
  'Falafel King',
  'Dumpling House',
  'Poke Point',
  'Curry Leaf',
  'Pizza Forno',
  'Salad Lab',
  'Kebab Corner',
  'Seoul Kitchen',
];

const CAFES = ['Bean There', 'Daily Grind', 'Flat White Club', 'Corner Roast', 'Morning Ritual', 'Steam & Co'];

export function errands(rng: Prng): HonestPlan {
  const home = pickHome(rng, ['GBR', 'USA', 'CAN', 'DEU', 'IRL', 'AUS']);
  const style = pickStyle(rng);
  const tz = home.tz;
  const cur = home.currency;
  const c = home.code;
  const rides = merchant(rng.pick(['Zoomride', 'Hailo Rides']), '4121', c);
  const food = rng.pick(['Forkfast Delivery', 'Dishdash']);
  const favourites = rng.sample(CAFES, 2);
  const grocer = merchant('Quickbasket', '5411', c);
  const laundry = merchant('Suds Laundry Service', '7211', c);
  const drafts: Draft[] = [];
  const add = (
    atMs: number,
    usd: number,
    m: ReturnType<typeof merchant>,
    intent: string,
    task: string,
    full: string,
    terse: string,
    session: string,
  ): void => {
    drafts.push({
      atMs,
      minor: toMinor(rng, usd, cur, 'exact'),
      currency: cur,
      merchant: m,
      intentType: intent,
      taskReference: task,
      reasoning: withAlarmingWords(rng, say(rng, style, full, terse), 0.04),
      sessionId: session,
    });
  };
  for (let day = 0; day < DAYS; day++) {
    const work = isWorkday(day);
    if (work && rng.chance(0.22)) {
      const cafe = rng.chance(0.8) ? rng.pick(favourites) : rng.pick(CAFES);
      add(
        localTime(day, rng.range(7.5, 9.5), tz),
        rng.range(3, 7),
        merchant(cafe, '5814', c),
        'purchase',
        'coffee',
        'Morning coffee on the way in.',
        'Coffee',
        sessionId(rng),
      );
    }
    if (rng.chance(work ? 0.2 : 0.15)) {
      const session = sessionId(rng);
      const at = localTime(day, work ? rng.pick([rng.range(7, 9), rng.range(18, 23)]) : rng.range(10, 23.5), tz);
      add(at, rng.range(8, 35), rides, 'purchase', 'ride', 'Ride home, late meeting.', 'Ride', session);
      if (rng.chance(0.6)) {
        add(
          at + rng.int(8, 45) * MINUTE_MS,
          rng.range(1, 6),
          rides,
          'gratuity',
          'ride-tip',
          'Tip for the driver, five-star ride.',
          'Tip',
          session,
        );
      }
    }
    if (rng.chance(0.22)) {
      const session = sessionId(rng);
      const kitchen = rng.pick(KITCHENS);
      const at = localTime(day, rng.chance(0.7) ? rng.range(18.5, 21.5) : rng.range(12, 13.5), tz);
      const m = merchant(`${food} *${kitchen}`, '5814', c);
      add(
        at,
        rng.range(15, 48),
        m,
        'purchase',
        'dinner',
        `Dinner from ${kitchen}, nothing in the fridge.`,
        `Delivery ${kitchen}`,
        session,
      );
      if (rng.chance(0.5)) {
        add(
          at + rng.int(25, 70) * MINUTE_MS,
          rng.range(2, 8),
          m,
          'gratuity',
          'delivery-tip',
          'Tip for the courier, arrived hot.',
          'Tip',
          session,
        );
      }
    }
    if (rng.chance(1 / 7)) {
      add(
        localTime(day, rng.range(17, 21), tz),
        rng.range(18, 70),
        grocer,
        'purchase',
        'groceries',
        'Quick grocery top-up: milk, bread, fruit.',
        'Groceries',
        sessionId(rng),
      );
    }
    if (day % 7 === 6 && rng.chance(0.4)) {
      add(
        localTime(day, rng.range(10, 13), tz),
        rng.range(12, 30),
        laundry,
        'purchase',
        'laundry',
        'Laundry pickup, weekly wash and fold.',
        'Laundry',
        sessionId(rng),
      );
    }
  }
  drafts.sort(byTime);
  return { profile: { home, tz, lang: 'en', style, capabilities: ['PURCHASE'] }, drafts };
}
