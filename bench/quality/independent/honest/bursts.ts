// Bursts of legitimate quick purchases: an ordinary shopper who now and then races a ticket
// drop (separate orders seconds apart, because the seller limits tickets per order), a sneaker
// release or a flash sale (items checked out one after another within a minute).
import { byTime, type Draft, type HonestPlan, say } from '../draft.js';
import { toMinor } from '../money.js';
import type { Prng } from '../prng.js';
import { DAYS, localTime, type Merchant, merchant, sessionId, slug, wakingHour } from '../world.js';
import { pickHome, pickStyle, withAlarmingWords } from './common.js';

const SHOPS: readonly (readonly [string, string, number, number])[] = [
  ['Hartley Department Store', '5311', 25, 140],
  ['Threadline Clothing', '5691', 20, 110],
  ['Voltaire Electronics', '5732', 15, 260],
  ['Chapter & Verse Books', '5942', 9, 35],
  ['Nest & Nook Home', '5719', 12, 90],
  ['Trailhead Outdoor', '5941', 20, 160],
  ['Greenleaf Market', '5411', 25, 110],
  ['Brewline Coffee Roasters', '5499', 12, 40],
  ['Petpal Supplies', '5995', 15, 70],
];

const TICKETS = [
  ['Stagegate Tickets', 'the Saturday arena show'],
  ['Tixpoint', 'the cup final'],
  ['Boxline Live', 'the festival weekend'],
] as const;

export function bursts(rng: Prng): HonestPlan {
  const home = pickHome(rng, ['USA', 'GBR', 'AUS', 'CAN', 'IRL']);
  const style = pickStyle(rng);
  const tz = home.tz;
  const cur = home.currency;
  const shops: Merchant[] = rng.sample(SHOPS, 6).map(([n, mcc]) => merchant(n, mcc, home.code));
  const prices = new Map(SHOPS.map(([n, , lo, hi]) => [n, [lo, hi] as const]));
  const drafts: Draft[] = [];
  for (let day = 0; day < DAYS; day++) {
    if (!rng.chance(0.3)) continue;
    const m = rng.pick(shops);
    const [lo, hi] = prices.get(m.name) ?? [10, 50];
    drafts.push({
      atMs: localTime(day, wakingHour(rng), tz),
      minor: toMinor(rng, rng.range(lo, hi), cur, 'retail'),
      currency: cur,
      merchant: m,
      intentType: 'purchase',
      taskReference: `list-${slug(m.name)}`,
      reasoning: withAlarmingWords(
        rng,
        say(rng, style, `From the shopping list: ${m.name}, compared prices first.`, m.name),
      ),
      sessionId: sessionId(rng),
    });
  }
  const drops = rng.int(2, 4);
  const dropDays = rng.sample(
    Array.from({ length: DAYS - 4 }, (_, i) => i + 2),
    drops,
  );
  for (const day of dropDays) {
    const kind = rng.weighted<'tickets' | 'sneakers' | 'flash'>([
      ['tickets', 3],
      ['sneakers', 1],
      ['flash', 2],
    ]);
    const session = sessionId(rng);
    let at = localTime(day, rng.pick([9, 10, 10, 12, 18]), tz) + rng.int(0, 40) * 1000;
    if (kind === 'tickets') {
      const [seller, what] = rng.pick(TICKETS);
      const m = merchant(seller, '7922', home.code);
      const orders = rng.int(2, 6);
      const each = rng.range(45, 160);
      const task = `drop-${slug(what)}`;
      for (let i = 0; i < orders; i++) {
        drafts.push({
          atMs: at,
          minor: toMinor(rng, each * 2, cur, 'exact'),
          currency: cur,
          merchant: m,
          intentType: 'purchase',
          taskReference: task,
          reasoning: say(
            rng,
            style,
            `Presale for ${what} just opened: the limit is 2 tickets per order, buying order ${i + 1} of ${orders} for the group.`,
            `Presale ${what}, order ${i + 1}/${orders}`,
          ),
          sessionId: session,
        });
        at += rng.int(3, 25) * 1000;
      }
    } else {
      const sneakers = kind === 'sneakers';
      const m = sneakers
        ? merchant('Kicklab Releases', '5661', home.code)
        : merchant('Brightbuy Flash', '5311', home.code);
      const items = sneakers ? rng.int(2, 3) : rng.int(3, 5);
      const task = sneakers ? 'drop-kicklab-release' : `flash-${rng.token(4)}`;
      for (let i = 0; i < items; i++) {
        drafts.push({
          atMs: at,
          minor: toMinor(rng, sneakers ? rng.range(120, 220) : rng.range(15, 150), cur, 'retail'),
          currency: cur,
          merchant: m,
          intentType: 'purchase',
          taskReference: task,
          reasoning: withAlarmingWords(
            rng,
            say(
              rng,
              style,
              sneakers
                ? `Release at ${m.name}: one pair per checkout, pair ${i + 1} (sizes agreed with the family).`
                : `Flash sale ends in 15 minutes: item ${i + 1} from the wish list at 40% off.`,
              sneakers ? `Release pair ${i + 1}` : `Flash sale item ${i + 1}`,
            ),
            0.15,
          ),
          sessionId: session,
        });
        at += rng.int(5, 30) * 1000;
      }
    }
  }
  drafts.sort(byTime);
  return { profile: { home, tz, lang: 'en', style, capabilities: ['PURCHASE'] }, drafts };
}
