// An agent acting for several people: a family (groceries, pharmacy, children's clothes and
// school things, a teenager's games, a grandparent's shopping in another country), writing in
// the family's language; or a small distributed team (coworking, couriers, equipment, meals,
// conference tickets) in the US, Germany, India and the UK.
import { byTime, type Draft, type HonestPlan, say } from '../draft.js';
import { type Ending, toMinor } from '../money.js';
import type { Prng } from '../prng.js';
import {
  type Country,
  countryOf,
  DAYS,
  isWorkday,
  type Lang,
  localTime,
  merchant,
  sessionId,
  slug,
  wakingHour,
  workingHour,
} from '../world.js';
import { pickHome, pickStyle, withAlarmingWords } from './common.js';

type FamilyLang = 'en' | 'es' | 'de' | 'pl' | 'fr';

type Need =
  | 'groceries'
  | 'pharmacy'
  | 'clothes'
  | 'school'
  | 'games'
  | 'sports'
  | 'delivery'
  | 'taxi'
  | 'gym'
  | 'books';

const NEEDS: Readonly<Record<Need, { mcc: string; usd: readonly [number, number]; ending: Ending }>> = {
  groceries: { mcc: '5411', usd: [45, 190], ending: 'exact' },
  pharmacy: { mcc: '5912', usd: [6, 45], ending: 'exact' },
  clothes: { mcc: '5651', usd: [20, 90], ending: 'retail' },
  school: { mcc: '5943', usd: [8, 40], ending: 'retail' },
  games: { mcc: '5816', usd: [5, 25], ending: 'retail' },
  sports: { mcc: '5941', usd: [25, 110], ending: 'retail' },
  delivery: { mcc: '5411', usd: [30, 80], ending: 'exact' },
  taxi: { mcc: '4121', usd: [9, 30], ending: 'exact' },
  gym: { mcc: '7997', usd: [30, 60], ending: 'whole' },
  books: { mcc: '5942', usd: [9, 30], ending: 'retail' },
};

/** What the agent writes for each need, in the family's language: [full, terse]; {who} is the person. */
const SAYS: Readonly<Record<Need, Readonly<Record<FamilyLang, readonly [string, string]>>>> = {
  groceries: {
    en: ['Weekly groceries for the family, the usual list.', 'Weekly groceries'],
    es: ['Compra semanal del super para la familia, lista de siempre.', 'Compra semanal'],
    de: ['Wocheneinkauf fuer die Familie, die uebliche Liste.', 'Wocheneinkauf'],
    pl: ['Cotygodniowe zakupy spozywcze dla rodziny, stala lista.', 'Zakupy tygodniowe'],
    fr: ['Courses de la semaine pour la famille, la liste habituelle.', 'Courses'],
  },
  pharmacy: {
    en: ['Prescription refill for {who}, repeat prescription.', '{who} pharmacy'],
    es: ['Receta de {who} en la farmacia, tratamiento habitual.', 'Farmacia {who}'],
    de: ['Rezept fuer {who} aus der Apotheke, Dauermedikation.', 'Apotheke {who}'],
    pl: ['Leki na recepte dla {who}, stale leczenie.', 'Apteka {who}'],
    fr: ['Ordonnance de {who} a la pharmacie, traitement habituel.', 'Pharmacie {who}'],
  },
  clothes: {
    en: ['New shoes for {who}, the old ones are too small.', '{who} shoes'],
    es: ['Zapatos nuevos para {who}, los viejos le quedan pequenos.', 'Ropa {who}'],
    de: ['Neue Schuhe fuer {who}, die alten sind zu klein.', 'Kleidung {who}'],
    pl: ['Nowe buty dla {who}, stare sa za male.', 'Ubrania {who}'],
    fr: ['Nouvelles chaussures pour {who}, les anciennes sont trop petites.', 'Vetements {who}'],
  },
  school: {
    en: ["School supplies from {who}'s list for next term.", '{who} school list'],
    es: ['Material escolar de {who} para el trimestre.', 'Material escolar'],
    de: ['Schulsachen fuer {who} laut Liste der Lehrerin.', 'Schulsachen'],
    pl: ['Przybory szkolne dla {who} wedlug listy.', 'Przybory szkolne'],
    fr: ['Fournitures scolaires pour {who}, liste de la maitresse.', 'Fournitures'],
  },
  games: {
    en: ["{who}'s game top-up from the agreed pocket money.", '{who} game credit'],
    es: ['Recarga del juego de {who}, de su paga.', 'Recarga juego'],
    de: ['Spielguthaben fuer {who}, vom Taschengeld.', 'Spielguthaben'],
    pl: ['Doladowanie gry dla {who} z kieszonkowego.', 'Doladowanie gry'],
    fr: ['Recharge du jeu de {who}, sur son argent de poche.', 'Recharge jeu'],
  },
  sports: {
    en: ["{who}'s football kit for the club season.", '{who} football kit'],
    es: ['Equipacion del club de {who}.', 'Equipacion {who}'],
    de: ['Vereinstrikot und Schienbeinschoner fuer {who}.', 'Sportsachen {who}'],
    pl: ['Stroj klubowy dla {who}.', 'Stroj {who}'],
    fr: ['Tenue du club de foot de {who}.', 'Tenue foot'],
  },
  delivery: {
    en: ["Groceries delivered to {who}'s flat, her usual order.", '{who} groceries'],
    es: ['Compra a domicilio para {who}, su pedido de siempre.', 'Compra {who}'],
    de: ['Lebensmittel-Lieferung fuer {who}, die uebliche Bestellung.', 'Lieferung {who}'],
    pl: ['Zakupy z dostawa dla {who}, zwykle zamowienie.', 'Zakupy {who}'],
    fr: ['Courses livrees chez {who}, sa commande habituelle.', 'Courses {who}'],
  },
  taxi: {
    en: ['Taxi for {who} to the clinic appointment.', 'Taxi {who}'],
    es: ['Taxi para {who} al centro de salud.', 'Taxi {who}'],
    de: ['Taxi fuer {who} zum Arzttermin.', 'Taxi {who}'],
    pl: ['Taksowka dla {who} do przychodni.', 'Taksowka {who}'],
    fr: ["Taxi pour {who} jusqu'a la clinique.", 'Taxi {who}'],
  },
  gym: {
    en: ["{who}'s gym membership, monthly.", '{who} gym'],
    es: ['Cuota mensual del gimnasio de {who}.', 'Gimnasio'],
    de: ['Monatsbeitrag Fitnessstudio fuer {who}.', 'Fitnessstudio'],
    pl: ['Karnet na silownie dla {who}.', 'Silownia'],
    fr: ['Abonnement mensuel a la salle de {who}.', 'Salle de sport'],
  },
  books: {
    en: ['Book for {who}, from the reading group list.', 'Book for {who}'],
    es: ['Libro para {who}, del club de lectura.', 'Libro'],
    de: ['Buch fuer {who}, aus dem Lesekreis.', 'Buch'],
    pl: ['Ksiazka dla {who} z listy klubu.', 'Ksiazka'],
    fr: ['Livre pour {who}, club de lecture.', 'Livre'],
  },
};

const SHOP_NAMES: Readonly<Record<Need, Readonly<Record<FamilyLang, readonly string[]>>>> = {
  groceries: {
    en: ['Greenleaf Market', 'Harvest Basket', 'Cornerstone Foods'],
    es: ['Supermercado Alba', 'Mercado del Sol'],
    de: ['Frischmarkt Nord', 'Markthalle Sieben'],
    pl: ['Delikatesy Pod Debem', 'Market Zielony'],
    fr: ['Marche Plus', 'Epicerie Verte'],
  },
  pharmacy: {
    en: ['Wellway Pharmacy', 'Boots & Barker Chemist'],
    es: ['Farmacia Santa Ana', 'Farmacia del Carmen'],
    de: ['Loewen-Apotheke', 'Stadt-Apotheke'],
    pl: ['Apteka Pod Orlem', 'Apteka Zdrowie'],
    fr: ['Pharmacie du Centre', 'Pharmacie des Lilas'],
  },
  clothes: {
    en: ['Little Threads', 'Kidstop Clothing'],
    es: ['Moda Infantil Pipo', 'Zapateria Lola'],
    de: ['Kinderladen Kunterbunt', 'Schuhhaus Brandt'],
    pl: ['Smyk Moda', 'Obuwie Mali'],
    fr: ['Petit Bateau Boutique', 'Chaussures Lili'],
  },
  school: {
    en: ['Paper Trail Stationers'],
    es: ['Papeleria Arcoiris'],
    de: ['Schreibwaren Koenig'],
    pl: ['Papiernik Szkolny'],
    fr: ['Papeterie du College'],
  },
  games: {
    en: ['Pixelplay Store'],
    es: ['Pixelplay Store'],
    de: ['Pixelplay Store'],
    pl: ['Pixelplay Store'],
    fr: ['Pixelplay Store'],
  },
  sports: {
    en: ['Goalpost Sports'],
    es: ['Deportes Rivera'],
    de: ['Sport Schuster'],
    pl: ['Sklep Sportowy Gol'],
    fr: ['Sport 2000 Quartier'],
  },
  delivery: {
    en: ['Doorstep Grocer'],
    es: ['Super a Casa'],
    de: ['Lieferladen'],
    pl: ['Zakupy do Domu'],
    fr: ['Courses a Domicile'],
  },
  taxi: { en: ['City Cabs'], es: ['Radio Taxi'], de: ['Taxi Zentrale'], pl: ['Super Taxi'], fr: ['Taxi Bleu'] },
  gym: {
    en: ['Ironworks Gym'],
    es: ['Gimnasio Fuerza'],
    de: ['Kraftwerk Fitness'],
    pl: ['Silownia Forma'],
    fr: ['Salle Energie'],
  },
  books: {
    en: ['Chapter & Verse Books'],
    es: ['Libreria La Hoja'],
    de: ['Buchhandlung Seite'],
    pl: ['Ksiegarnia Strona'],
    fr: ['Librairie Le Marque-Page'],
  },
};

const NAMES: Readonly<Record<FamilyLang, { child: string; teen: string; elder: string; partner: string }>> = {
  en: { child: 'Maya', teen: 'Leo', elder: 'Grandma Ruth', partner: 'Sam' },
  es: { child: 'Lucia', teen: 'Mateo', elder: 'Abuela Carmen', partner: 'Javier' },
  de: { child: 'Lena', teen: 'Jonas', elder: 'Oma Helga', partner: 'Tobias' },
  pl: { child: 'Zosia', teen: 'Kuba', elder: 'Babcia Halina', partner: 'Marek' },
  fr: { child: 'Chloe', teen: 'Hugo', elder: 'Mamie Odette', partner: 'Julien' },
};

const ELDER_COUNTRY: Readonly<Record<string, readonly string[]>> = {
  GBR: ['ESP', 'IRL', 'GBR'],
  USA: ['MEX', 'USA', 'CAN'],
  ESP: ['ESP', 'FRA'],
  MEX: ['MEX', 'USA'],
  DEU: ['AUT', 'DEU', 'POL'],
  POL: ['POL', 'DEU'],
  FRA: ['FRA', 'BEL', 'PRT'],
};

function familyLang(lang: Lang): FamilyLang {
  return lang === 'es' || lang === 'de' || lang === 'pl' || lang === 'fr' ? lang : 'en';
}

export function delegate(rng: Prng): HonestPlan {
  return rng.chance(0.7) ? family(rng) : team(rng);
}

function family(rng: Prng): HonestPlan {
  const home = pickHome(rng, ['GBR', 'USA', 'ESP', 'MEX', 'DEU', 'POL', 'FRA']);
  const style = pickStyle(rng);
  const tz = home.tz;
  const lang = familyLang(home.lang);
  const names = NAMES[lang];
  const elderHome = countryOf(rng.pick(ELDER_COUNTRY[home.code] ?? [home.code]));
  const elderLang = familyLang(elderHome.lang);
  const drafts: Draft[] = [];
  const shops = new Map<string, string>();
  const buy = (day: number, need: Need, who: string, where: Country, shopLang: FamilyLang, hour?: number): void => {
    const n = NEEDS[need];
    const key = `${need}|${where.code}`;
    let shop = shops.get(key);
    if (shop === undefined) {
      shop = rng.pick(SHOP_NAMES[need][shopLang]);
      shops.set(key, shop);
    }
    const [full, terse] = SAYS[need][lang];
    drafts.push({
      atMs: localTime(day, hour ?? wakingHour(rng), where.tz),
      minor: toMinor(rng, rng.range(n.usd[0], n.usd[1]), where.currency, n.ending),
      currency: where.currency,
      merchant: merchant(shop, n.mcc, need === 'games' ? 'USA' : where.code),
      intentType: 'purchase',
      taskReference: `${slug(who)}/${need}`,
      reasoning: withAlarmingWords(rng, say(rng, style, full.replace('{who}', who), terse.replace('{who}', who))),
      sessionId: sessionId(rng),
    });
  };
  const hasTeen = rng.chance(0.7);
  const hasElder = rng.chance(0.8);
  const gymDay = rng.int(1, 27);
  for (let day = 0; day < DAYS; day++) {
    const wd = day % 7;
    if (wd === 5 || (wd === 2 && rng.chance(0.5))) buy(day, 'groceries', 'family', home, lang);
    if (rng.chance(1 / 14)) buy(day, 'pharmacy', rng.pick([names.partner, names.child]), home, lang);
    if (rng.chance(1 / 16)) buy(day, 'clothes', names.child, home, lang);
    if (rng.chance(1 / 25)) buy(day, 'school', names.child, home, lang);
    if (hasTeen && rng.chance(1 / 9)) buy(day, 'games', names.teen, home, lang, rng.range(16, 22));
    if (hasTeen && rng.chance(1 / 30)) buy(day, 'sports', names.teen, home, lang);
    if (rng.chance(1 / 16)) buy(day, 'books', names.partner, home, lang);
    if (new Date(localTime(day, 12, 0)).getUTCDate() === gymDay) buy(day, 'gym', names.partner, home, lang, 7.5);
    if (hasElder && wd === 1) buy(day, 'delivery', names.elder, elderHome, elderLang, rng.range(9, 12));
    if (hasElder && rng.chance(1 / 18)) buy(day, 'pharmacy', names.elder, elderHome, elderLang);
    if (hasElder && rng.chance(1 / 14)) buy(day, 'taxi', names.elder, elderHome, elderLang, rng.range(8, 15));
  }
  drafts.sort(byTime);
  return { profile: { home, tz, lang, style, capabilities: ['PURCHASE'] }, drafts };
}

interface Colleague {
  readonly name: string;
  readonly where: Country;
}

const TEAM_BUYS: readonly {
  readonly mcc: string;
  readonly usd: readonly [number, number];
  readonly shop: (c: Colleague) => string;
  readonly says: (c: Colleague) => readonly [string, string];
  readonly weight: number;
}[] = [
  {
    mcc: '7399',
    usd: [18, 45],
    shop: (c) => `Hivedesk Coworking ${c.where.cities[0]?.name ?? ''}`.trim(),
    says: (c) => [`Coworking day pass for ${c.name} in ${c.where.cities[0]?.name}.`, `Desk pass ${c.name}`],
    weight: 4,
  },
  {
    mcc: '4215',
    usd: [12, 70],
    shop: () => 'Parcelwing Courier',
    says: (c) => [`Courier: sending the test device to ${c.name}.`, `Courier to ${c.name}`],
    weight: 2,
  },
  {
    mcc: '5732',
    usd: [40, 380],
    shop: (c) => (c.where.code === 'IND' ? 'Circuitbay Electronics' : 'Voltaire Electronics'),
    says: (c) => [`Monitor and dock for ${c.name}, approved equipment list.`, `Equipment ${c.name}`],
    weight: 1,
  },
  {
    mcc: '5812',
    usd: [20, 140],
    shop: (c) => `${c.where.cities[0]?.name ?? ''} ${['Noodle Bar', 'Kitchen', 'Canteen'][c.name.length % 3]}`.trim(),
    says: (c) => [`Team lunch with ${c.name} after the planning session.`, `Lunch ${c.name}`],
    weight: 2,
  },
  {
    mcc: '8699',
    usd: [120, 650],
    shop: () => 'DevSummit Registrations',
    says: (c) => [`Conference ticket for ${c.name}, early-bird price, manager approved.`, `Conference ${c.name}`],
    weight: 0.4,
  },
  {
    mcc: '5942',
    usd: [15, 55],
    shop: () => 'Chapter & Verse Books',
    says: (c) => [`Book for ${c.name} from the team learning budget.`, `Book ${c.name}`],
    weight: 1,
  },
];

function team(rng: Prng): HonestPlan {
  const home = countryOf('USA');
  const style = pickStyle(rng);
  const colleagues: Colleague[] = [
    { name: 'Priya', where: home },
    { name: 'Marcus', where: home },
    { name: 'Katrin', where: countryOf('DEU') },
    { name: 'Ananya', where: countryOf('IND') },
    { name: 'Tom', where: countryOf('GBR') },
  ].slice(0, rng.int(3, 5));
  const drafts: Draft[] = [];
  for (let day = 0; day < DAYS; day++) {
    if (!isWorkday(day)) continue;
    for (const c of colleagues) {
      if (!rng.chance(0.22)) continue;
      const b = rng.weighted(TEAM_BUYS.map((x) => [x, x.weight] as const));
      const [full, terse] = b.says(c);
      drafts.push({
        atMs: localTime(day, workingHour(rng), c.where.tz),
        minor: toMinor(rng, rng.range(b.usd[0], b.usd[1]), c.where.currency, 'exact'),
        currency: c.where.currency,
        merchant: merchant(b.shop(c), b.mcc, c.where.code),
        intentType: 'purchase',
        taskReference: `team/${slug(c.name)}/${b.mcc}`,
        reasoning: withAlarmingWords(rng, say(rng, style, full, terse)),
        sessionId: sessionId(rng),
      });
    }
  }
  drafts.sort(byTime);
  return { profile: { home, tz: home.tz, lang: 'en', style, capabilities: ['PURCHASE'] }, drafts };
}
