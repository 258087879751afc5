// Merchant-name mimicry: a merchant the agent never paid whose name imitates one it did, one
// word changed by a look-alike letter, a digit for a letter, one letter added, dropped, changed
// or two swapped ("Cornerstone oFods", "G1tloom", "Chaapter & Verse Books", Cyrillic letters in
// a Latin name). Store codes do not count ("Acme 12" and "Acme 13", "Shop 4d6e" and "Shop 4d6a"
// are one name), and short words are not judged ("Amazon UK" and "Amazon US" are two honest
// shops).
import { normalizeText, skeletonOf, wordsOf } from './injection.js';

/**
 * Words a payment page adds to a merchant's name: the known name with one of them appended
 * ("Figma Billing", "Chewy Payments") at a merchant the agent never paid is an imitation.
 */
const PAYMENT_WORDS: ReadonlySet<string> = new Set([
  'billing',
  'payment',
  'payments',
  'pay',
  'invoice',
  'invoices',
  'checkout',
  'renewal',
  'subscription',
  'secure',
  'verify',
]);
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
  return oneEditApart(skeletonOf(x), skeletonOf(y));
}

/**
 * Whether the name `words` (nameWords) imitates one of `known` (the names of merchants the agent
 * paid): the same number of words, all the same but one, and that one imitates its counterpart;
 * the same letters split into other words; or the known name with a payment word appended
 * (PAYMENT_WORDS). A name the agent paid under is never a lookalike.
 */
export function imitatesKnown(words: readonly string[], known: ReadonlyMap<string, readonly string[]>): boolean {
  if (words.length === 0 || known.size === 0 || known.has(words.join(' '))) return false;
  const compact = words.join('');
  const last = words[words.length - 1] as string;
  const suffixed = words.length > 1 && PAYMENT_WORDS.has(last);
  for (const [key, k] of known) {
    // The same letters split otherwise ("Booksho.porg" for "Bookshop.org").
    if (compact.length >= MIN_COMPACT && sameLetters(compact, key)) return true;
    // The known name with a payment word appended.
    if (suffixed && k.length === words.length - 1 && k.every((w, i) => w === words[i])) return true;
    if (k.length !== words.length) continue;
    let differing = -1;
    for (let i = 0; i < k.length; i++) {
      if (k[i] === words[i]) continue;
      if (differing !== -1) {
        differing = -2;
        break;
      }
      differing = i;
    }
    if (differing >= 0 && imitates(words[differing] as string, k[differing] as string)) return true;
  }
  return false;
}
