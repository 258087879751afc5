// Merchant-name mimicry: a merchant the agent never paid whose name imitates one it did, one
// word changed by a look-alike letter, a digit for a letter, one letter added, dropped, changed
// or two swapped ("Cornerstone oFods", "G1tloom", "Chaapter & Verse Books", Cyrillic letters in
// a Latin name). Store codes do not count ("Acme 12" and "Acme 13", "Shop 4d6e" and "Shop 4d6a"
// are one name), and short words are not judged ("Amazon UK" and "Amazon US" are two honest
// shops).
import { normalizeText, skeletonOf, wordsOf } from './injection.js';

/**
 * Words an imitation adds around a known name to look like its billing, support or web page
 * ("Figma Billing", "Secure-PayPal", "Notion Payments Inc", "netflix.co", "Figma Zahlungen",
 * "MyFigma"), in the languages of injection.ts: the known name with them at a merchant the agent
 * never paid is an imitation. Its ".com" is not one of them (a card descriptor's "NETFLIX.COM" is
 * the merchant's own), nor is a branch or product word ("Marriott Berlin", "Uber Eats").
 * DECORATION is these lure words and SHOP_WORDS.
 */
const LURE_WORDS: readonly string[] = [
  // en
  'billing',
  'payment',
  'payments',
  'pay',
  'invoice',
  'invoices',
  'checkout',
  'renewal',
  'renew',
  'subscription',
  'secure',
  'security',
  'verify',
  'verification',
  'official',
  'support',
  'help',
  'helpdesk',
  'refund',
  'refunds',
  'account',
  'acct',
  'login',
  'portal',
  // de, es, fr, it, pt, nl, sv, pl, tr
  'zahlung',
  'zahlungen',
  'rechnung',
  'rechnungsservice',
  'abrechnung',
  'sicher',
  'offiziell',
  'pago',
  'pagos',
  'facturacion',
  'oficial',
  'reembolso',
  'reembolsos',
  'paiement',
  'paiements',
  'facturation',
  'officiel',
  'remboursement',
  'pagamento',
  'pagamenti',
  'pagamentos',
  'fatturazione',
  'faturamento',
  'abonnement',
  'betaling',
  'betalingen',
  'betalning',
  'betalningar',
  'platnosci',
  'platnosc',
  'rozliczenia',
  'odeme',
];
/** Shop and web words of DECORATION: a brand's own products carry them too ("Google Play Store"). */
const SHOP_WORDS: readonly string[] = [
  'online',
  'store',
  'shop',
  'my',
  'get',
  'go',
  'e',
  // web suffixes of a look-alike site
  'co',
  'net',
  'top',
  'site',
  'app',
  'club',
  'info',
  'xyz',
  'link',
  'live',
];
const DECORATION: ReadonlySet<string> = new Set([...LURE_WORDS, ...SHOP_WORDS]);
const LURES: ReadonlySet<string> = new Set(LURE_WORDS);
/**
 * Whether a name carries a DECORATION word that lures (billing, refunds, verification, support,
 * ...), not only shop and web words: only such a name may keep other words beside the known one
 * and imitate it (knownWithin).
 */
function lures(words: readonly string[]): boolean {
  for (const raw of words) if (LURES.has(skeletonOf(raw))) return true;
  return false;
}
/** Words allowed around a known name without making it an imitation alone: legal forms, "com", country codes. */
const NEUTRAL: ReadonlySet<string> = new Set([
  'inc',
  'ltd',
  'llc',
  'gmbh',
  'corp',
  'plc',
  'limited',
  'sa',
  'bv',
  'ag',
  'com',
  'services',
  'service',
  'the',
]);
/** A glued decoration ("githubpayments", "payuber", "myfigma"): these at a word's start or end. */
const GLUED_PREFIXES: readonly string[] = ['secure', 'official', 'pay', 'my', 'get', 'go'];
const GLUED_SUFFIXES: readonly string[] = [
  'payments',
  'payment',
  'billing',
  'online',
  'refunds',
  'refund',
  'support',
  'secure',
  'verify',
  'official',
  'store',
  'pay',
];
/** Letters the name left once its decoration is taken off must have. */
const MIN_CORE = 4;

/** Whether `w` is a word of one of the known names. */
function isKnownWord(w: string, known: ReadonlyMap<string, readonly string[]>): boolean {
  for (const k of known.values()) if (k.includes(w)) return true;
  return false;
}

/**
 * A word without the decoration glued to it ("githubpayments", "payuber", "myfigma"), or the word
 * itself when nothing is glued to it or it is a known name's word as it stands ("google" is not
 * "go" + "ogle", "easypay" not "easy" + "pay"). The known names are searched only when an affix
 * matched.
 */
function unglued(w: string, known: ReadonlyMap<string, readonly string[]>): string {
  let rest = w;
  for (const x of GLUED_SUFFIXES)
    if (w.length - x.length >= MIN_CORE && w.endsWith(x)) {
      rest = w.slice(0, w.length - x.length);
      break;
    }
  let prefix = 0;
  for (const p of GLUED_PREFIXES)
    if (rest.length - p.length >= MIN_CORE && rest.startsWith(p)) {
      prefix = p.length;
      break;
    }
  if (rest === w && prefix === 0) return w;
  if (isKnownWord(w, known)) return w;
  if (rest !== w && isKnownWord(rest, known)) return rest;
  return rest.slice(prefix);
}

/**
 * The words of a name without the decoration around it (DECORATION, NEUTRAL, country codes of two
 * letters, glued prefixes and suffixes), or null when it carries no DECORATION word.
 */
function undecorated(words: readonly string[], known: ReadonlyMap<string, readonly string[]>): string[] | null {
  const core: string[] = [];
  let decorated = false;
  for (const raw of words) {
    const w = skeletonOf(raw);
    if (DECORATION.has(w)) {
      decorated = true;
      continue;
    }
    if (NEUTRAL.has(w) || (w.length === 2 && core.length > 0)) continue;
    const rest = unglued(w, known);
    if (rest !== w) decorated = true;
    core.push(rest);
  }
  if (!decorated) return null;
  let letters = 0;
  for (const w of core) letters += w.length;
  return letters >= MIN_CORE ? core : null;
}

/** Look-alike letter pairs of Latin script: "rn" for "m", "vv" for "w", "cl" for "d". */
function foldPairs(word: string): string {
  return word.includes('rn') || word.includes('vv') || word.includes('cl')
    ? word.replace(/rn/g, 'm').replace(/vv/g, 'w').replace(/cl/g, 'd')
    : word;
}

/** Letters a name must have for its spacing and punctuation alone to make an imitation. */
const MIN_COMPACT = 6;

/** Whether `key` (words joined by spaces) holds exactly the letters of `compact`, without allocating. */
function sameLetters(compact: string, key: string): boolean {
  let i = 0;
  for (let j = 0; j < key.length; j++) {
    const c = key.charCodeAt(j);
    if (c === 32) continue;
    if (i >= compact.length || compact.charCodeAt(i) !== c) return false;
    i++;
  }
  return i === compact.length;
}

/** Words shorter than this are not judged (country codes, initials). */
const MIN_WORD = 4;

/**
 * Whether a word is a code rather than a name: at least half of it digits ("1234", "4d6e", "12b").
 * Store, unit and branch codes do not count, whatever their letters; a digit standing in for a
 * letter ("G1tloom") leaves a word a name.
 */
function isCode(word: string): boolean {
  let digits = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
  }
  return digits * 2 >= word.length;
}

/** The words of a merchant name as it is compared: normalised, store and branch codes dropped. */
export function nameWords(name: string | null): string[] {
  if (name === null || name === '') return [];
  const words = wordsOf(normalizeText(name));
  if (words === '') return [];
  return words.split(' ').filter((w) => !isCode(w));
}

/** Names as the agent's state keeps them (AgentState.knownNames: nameWords, keyed by the words joined by a space). */
export function knownNamesOf(names: readonly string[]): Map<string, readonly string[]> {
  const known = new Map<string, readonly string[]>();
  for (const name of names) {
    const words = nameWords(name);
    known.set(words.join(' '), words);
  }
  return known;
}

/**
 * Whether `a` and `b` are at most one edit apart (one letter inserted, deleted or replaced, or
 * two adjacent letters swapped: the optimal-string-alignment distance).
 */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) {
    // One replacement, or one swap of neighbours.
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  // One insertion into the shorter one.
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Whether word `x` imitates word `y`: not the same word, yet alike once folded or one edit apart. */
function imitates(x: string, y: string): boolean {
  if (x === y || x.length < MIN_WORD || y.length < MIN_WORD) return false;
  const a = skeletonOf(x);
  const b = skeletonOf(y);
  if (a === b || foldPairs(a) === foldPairs(b) || a.replace(/l/g, 'i') === b.replace(/l/g, 'i')) return true;
  // A short name one letter from another is as often another business ("Zoom" and "Loom", "Aldi"
  // and "Aldo"): only a doubled or dropped double letter, two letters swapped or a look-alike
  // letter ("l" and "I", "1") imitate it.
  if (Math.min(a.length, b.length) <= SHORT_NAME) return doubledOrSwapped(a, b);
  return oneEditApart(a, b) || oneEditApart(foldPairs(a), foldPairs(b));
}

/** Names this short or shorter are judged by doubledOrSwapped only. */
const SHORT_NAME = 5;

/** Whether `a` and `b` differ by one letter doubled (or a double undone) or two neighbours swapped. */
function doubledOrSwapped(a: string, b: string): boolean {
  if (a.length === b.length) {
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  if (long.length !== short.length + 1) return false;
  let i = 0;
  while (i < short.length && long[i] === short[i]) i++;
  // long[i] is the extra letter: a double of its neighbour.
  return long.slice(i + 1) === short.slice(i) && (long[i] === long[i - 1] || long[i] === long[i + 1]);
}

/**
 * Whether the name `words` (nameWords) imitates one of `known` (the names of merchants the agent
 * paid): the same number of words, all the same but one, and that one imitates its counterpart;
 * the same letters split into other words; or any of these, or the known name itself, once the
 * decoration an imitation adds is taken off ("Atlasian Billing", "Secure-PayPal",
 * "netflix.co"). A name the agent paid under is never a lookalike.
 */
export function imitatesKnown(words: readonly string[], known: ReadonlyMap<string, readonly string[]>): boolean {
  if (words.length === 0 || known.size === 0 || known.has(words.join(' '))) return false;
  if (imitatesOne(words, known) || disguisedWithin(words, known)) return true;
  const core = undecorated(words, known);
  if (core === null) return false;
  return (
    known.has(core.join(' ')) ||
    knownSkeleton(core, known) ||
    imitatesOne(core, known) ||
    (lures(words) && knownWithin(core, known))
  );
}

/** A known name's words but its legal forms, "com" and the like (NEUTRAL). */
function withoutNeutral(k: readonly string[]): readonly string[] {
  return k.filter((w) => !NEUTRAL.has(w));
}

/** Whether `words` folded are a known name folded (digits, look-alike letters). */
function knownSkeleton(words: readonly string[], known: ReadonlyMap<string, readonly string[]>): boolean {
  const compact = foldPairs(skeletonOf(words.join('')));
  for (const k of known.values()) {
    const kc = withoutNeutral(k).join('');
    if (kc.length >= MIN_CORE && foldPairs(skeletonOf(kc)) === compact) return true;
  }
  return false;
}

/**
 * Whether `words` from `start` on hold the known name `k`, each word as it is or imitated (one
 * imitated word, or several whose letters only look alike: "AMAZ0N WEB SERV1CES").
 */
function holdsImitated(words: readonly string[], start: number, k: readonly string[]): boolean {
  for (let i = 0; i < k.length; i++) {
    const w = words[start + i] as string;
    const y = k[i] as string;
    // Words whose lengths are this far apart imitate nothing, whatever their letters.
    if (w !== y && (Math.abs(w.length - y.length) > 2 || !imitates(w, y))) return false;
  }
  return true;
}

/**
 * Whether a known name (its words but the NEUTRAL ones, MIN_CORE letters or more) stands, as it
 * is or imitated, among the undecorated words of a name that lures: a card descriptor's
 * processor prefix or a trailing word kept beside it ("SQ *AMAZON-REFUND", "AIRBNB* SECURE-PAY HOLD",
 * "Spotfiy Premium Zahlung").
 */
function knownWithin(core: readonly string[], known: ReadonlyMap<string, readonly string[]>): boolean {
  for (const k of known.values()) {
    const kc = withoutNeutral(k);
    if (kc.length === 0 || kc.length >= core.length || kc.join('').length < MIN_CORE) continue;
    for (let s = 0; s + kc.length <= core.length; s++) if (holdsImitated(core, s, kc)) return true;
  }
  return false;
}

/** A word folded: look-alike letters and digits to the letters they stand for, "rn" to "m". */
function folded(w: string): string {
  return foldPairs(skeletonOf(w));
}

/**
 * Whether a known name (MIN_COMPACT letters or more) stands among other words with some of its
 * letters disguised (digits, other scripts, "rn"), as a processor's descriptor may carry it
 * ("PAYPAL *NETFL1X"): the disguise alone makes it an imitation, with or without a lure word. The
 * same name undisguised beside other words is the merchant's own descriptor ("PAYPAL *NETFLIX").
 */
function disguisedWithin(words: readonly string[], known: ReadonlyMap<string, readonly string[]>): boolean {
  // Most names have no disguised letter: found without building the folded words.
  if (words.every((w) => folded(w) === w)) return false;
  const folds = words.map(folded);
  for (const k of known.values()) {
    if (k.length >= words.length || k.join('').length < MIN_COMPACT) continue;
    const kf = k.map(folded);
    for (let s = 0; s + k.length <= words.length; s++) {
      let same = true;
      let disguised = false;
      for (let i = 0; i < k.length && same; i++) {
        if (words[s + i] === k[i]) continue;
        if (folds[s + i] === kf[i]) disguised = true;
        else same = false;
      }
      if (same && disguised) return true;
    }
  }
  return false;
}

function imitatesOne(words: readonly string[], known: ReadonlyMap<string, readonly string[]>): boolean {
  const compact = words.join('');
  for (const [key, k] of known) {
    // The same letters split otherwise ("Booksho.porg" for "Bookshop.org").
    if (compact.length >= MIN_COMPACT && sameLetters(compact, key)) return true;
    if (k.length === words.length && holdsImitated(words, 0, k)) return true;
  }
  return false;
}
