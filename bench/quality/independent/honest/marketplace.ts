// Marketplaces with many sellers: nearly every purchase is a new small seller, sellers sit in
// many countries, the marketplace charges in the buyer's currency, and a basket split across
// sellers is paid seller by seller within a minute.
import { byTime, type Draft, type HonestPlan, say } from '../draft.js';
import { toMinor } from '../money.js';
import type { Prng } from '../prng.js';
import { DAYS, localTime, merchant, sessionId, wakingHour } from '../world.js';
import { pickHome, pickStyle, withAlarmingWords } from './common.js';

interface Shelf {
  readonly mcc: string;
  readonly nouns: readonly string[];
  readonly items: readonly string[];
}

const SHELVES: readonly Shelf[] = [
  {
    mcc: '5970',
    nouns: ['Craft Supply', 'Paper Goods', 'Paints'],
    items: ['watercolour set', 'linen paper pad', 'brush set'],
  },
  {
    mcc: '5949',
    nouns: ['Yarnworks', 'Fabrics', 'Stitchery'],
    items: ['merino yarn, 4 skeins', 'quilting fabric bundle', 'embroidery hoops'],
  },
  {
    mcc: '5932',
    nouns: ['Vintage', 'Antiques', 'Curios'],
    items: ['vintage enamel jug', 'brass candle holders', '1960s poster'],
  },
  {
    mcc: '5942',
    nouns: ['Books', 'Book Barn', 'Paperbacks'],
    items: ['second-hand field guide', 'out-of-print cookbook', 'signed paperback'],
  },
  {
    mcc: '5945',
    nouns: ['Toys', 'Hobby Shop', 'Models'],
    items: ['wooden puzzle', 'model train coupling set', 'board game expansion'],
  },
  {
    mcc: '5947',
    nouns: ['Gifts', 'Cards & Prints', 'Studio'],
    items: ['birthday card set', 'art print A4', 'handmade bookmark'],
  },
  {
    mcc: '5999',
    nouns: ['Ceramics', 'Candles', 'Homewares'],
    items: ['stoneware mug', 'soy candle', 'ceramic planter'],
  },
  {
    mcc: '5533',
    nouns: ['Spare Parts', 'Bike Bits', 'Parts Co'],
    items: ['bike brake pads', 'replacement hinge', 'vacuum cleaner belt'],
  },
];

const FIRST = [
  'Hazel Fern',
  'Moss & Marrow',
  'Lotte',
  'Rustbelt',
  'PaperMoth',
  'Kiln & Co',
  'Nordic',
  'Old Atlas',
  'Little Wren',
  'Blue Heron',
  'Copperleaf',
  'Quill & Ink',
  'Mabel',
  'Ostara',
  'Tallow',
  'Juniper Lane',
  'Fox & Finch',
  'Ceramica Lua',
  'Pracownia Len',
  'Atelier Brume',
  'Werkstatt Ahorn',
  'Kumo',
  'Saltmarsh',
  'Ember',
  'Goldthread',
];

const SELLER_COUNTRIES: readonly (readonly [string, number])[] = [
  ['USA', 6],
  ['GBR', 4],
  ['CAN', 2],
  ['DEU', 2],
  ['NLD', 1],
  ['POL', 2],
  ['FRA', 1],
  ['PRT', 1],
  ['IND', 1],
  ['CHN', 2],
  ['JPN', 1],
  ['AUS', 1],
  ['LTU', 1],
  ['MEX', 1],
];

interface Seller {
  readonly name: string;
  readonly shelf: Shelf;
  readonly country: string;
}

const PLATFORMS = ['Craftory', 'Bazaarly', 'Stallhub'];

export function marketplace(rng: Prng): HonestPlan {
  const home = pickHome(rng, ['USA', 'GBR', 'CAN', 'DEU', 'AUS']);
  const style = pickStyle(rng);
  const tz = home.tz;
  const platform = rng.pick(PLATFORMS);
  const descriptor = rng.chance(0.5);
  const drafts: Draft[] = [];
  const known: Seller[] = [];
  for (let week = 0; week < DAYS / 7; week++) {
    const baskets = rng.int(1, 2);
    for (let b = 0; b < baskets; b++) {
      const day = week * 7 + rng.int(0, 6);
      let at = localTime(day, wakingHour(rng), tz);
      const session = sessionId(rng);
      const sellers = rng.weighted<number>([
        [1, 4],
        [2, 3],
        [3, 2],
        [4, 1],
        [5, 1],
        [6, 1],
      ]);
      const basket = `cart-${rng.token(6)}`;
      for (let k = 0; k < sellers; k++) {
        // Mostly a seller never bought from before; now and then one the buyer liked.
        let seller: Seller;
        if (known.length > 0 && rng.chance(0.12)) {
          seller = rng.pick(known);
        } else {
          const shelf = rng.pick(SHELVES);
          seller = {
            name: `${rng.pick(FIRST)} ${rng.pick(shelf.nouns)}`,
            shelf,
            country: rng.weighted(SELLER_COUNTRIES),
          };
          known.push(seller);
        }
        const { name, shelf, country: sellerCountry } = seller;
        const shown = descriptor ? `${platform} *${name}` : name;
        const item = rng.pick(shelf.items);
        const big = rng.chance(0.04);
        const usd = big ? rng.range(180, 420) : rng.around(18, 0.7, 2.5, 150);
        drafts.push({
          atMs: at,
          minor: toMinor(rng, usd, home.currency, 'retail'),
          currency: home.currency,
          merchant: merchant(shown, shelf.mcc, sellerCountry),
          intentType: 'purchase',
          taskReference: basket,
          reasoning: withAlarmingWords(
            rng,
            say(
              rng,
              style,
              `${item[0]?.toUpperCase()}${item.slice(1)} from ${name}: best-reviewed listing in budget, ships from ${sellerCountry}.`,
              item,
            ),
          ),
          sessionId: session,
        });
        at += rng.int(4, 25) * 1000;
      }
    }
  }
  drafts.sort(byTime);
  return { profile: { home, tz, lang: 'en', style, capabilities: ['PURCHASE'] }, drafts };
}
