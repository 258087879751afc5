// Prompt-injection detection in the intent text (docs/decision-engine.md "Prompt injection").
//
// 1. Decode what is embedded: percent-encoding, HTML entities, base64 runs (the decoded text is
//    scanned as well as the original).
// 2. Normalise: NFKC (full-width and compatibility forms), strip zero-width and bidi controls,
//    lower case, strip Latin diacritics; every run of non-letters becomes one space ("words").
// 3. Scan the words with directive patterns in many languages (word-boundary aware: a pattern
//    starts at a word start), and the "skeleton" (confusables folded to Latin, leetspeak digits
//    to letters, everything but letters removed, so split letters join up) with the same
//    patterns without their spaces.
// 4. Claims against the authorizer's controls in words rather than fixed phrases
//    (injection-claims.ts), and the text once more in the forms a model would be asked to undo
//    (letters spelled out, written backwards, ROT13 that says so).
// Only whether (and which pattern family) matched is returned: the matched text never leaves
// this module, so a caller cannot learn which wording was caught.
import { addressesTheAuthorizer } from './injection-address.js';
import { claimsAgainstControls, REVERSED_HINT, rawClaimsAgainstControls } from './injection-claims.js';

// Built from code points: a literal class would mix combining characters (U+034F) into it.
const ZERO_WIDTH_BIDI = new RegExp(
  `[${[
    [0xad, 0xad],
    [0x34f, 0x34f],
    [0x61c, 0x61c],
    [0x115f, 0x1160],
    [0x17b4, 0x17b5],
    [0x180e, 0x180e],
    [0x200b, 0x200f],
    [0x202a, 0x202e],
    [0x2060, 0x206f],
    [0xfe00, 0xfe0f],
    [0xfeff, 0xfeff],
  ]
    .map(([a, b]) => `\\u{${(a as number).toString(16)}}-\\u{${(b as number).toString(16)}}`)
    .join('')}]`,
  'gu',
);
const COMBINING = /[\u0300-\u036f]/g;
const NON_WORD = /[^\p{L}\p{N}]+/gu;
// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII test
const ASCII = /^[\x00-\x7f]*$/;
const PERCENT = /%[0-9a-f]{2}/i;
const ENTITY = /&(#x[0-9a-f]+|#\d+|[a-z]+);/gi;
const BASE64_RUN = /[A-Za-z0-9+/]{16,}={0,2}/g;
/** The same without '/': a run glued to a path ("po-19/line-4/aWdub3Jl...") decodes from its own start. */
const BASE64_SEGMENT = /(?<=\/)[A-Za-z0-9+]{16,}={0,2}/g;
// "Operating system: Windows 11" names a product, not a speaker.
// The optional word and its spaces are one group: `\s*(word)?\s*` let two space runs split one
// run in every way, quadratic in its length (183 ms of shard CPU for "system" and 4,000 spaces).
const MARKER =
  /(^|[\s[<({|])(?<!operating\s)(system|sys|admin|administrator|root|developer|assistant|operator)\s*(?:(prompt|message|override|note|instruction)\s*)?[:\]>|]\s*\S/;
const CHAT_TOKENS =
  /<\|?(im_start|im_end|system|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|?>|\[\/?inst\]|<<sys>>|<\/?(system|system_message|instructions?)\b|(^|\n)\s*#{2,}\s*(system|instruction|admin)|\[\[?\s*(system|admin|override|debug)[^\]]{0,20}\]|(new|updated) system (instructions|prompt)|end of (user )?input|"role"\s*:\s*"system"/;

/** Confusable letters (Cyrillic, Greek, Latin look-alikes) and leetspeak -> Latin. */
const SKELETON: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  і: 'i',
  ї: 'i',
  ј: 'j',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ɑ: 'a',
  ο: 'o',
  α: 'a',
  β: 'b',
  ζ: 'z',
  μ: 'm',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ı: 'i',
  ł: 'l',
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '8': 'b',
  '9': 'g',
  '@': 'a',
  $: 's',
  '!': 'i',
  '|': 'l',
  '€': 'e',
};

/**
 * Directive patterns over normalised words (a single space between words; `( x)?` an optional
 * word). Each starts at a word start. English, Spanish, French, German, Italian, Portuguese,
 * Dutch, Russian, Polish, Turkish; the CJK and Arabic ones are in RAW (no word spaces).
 */
const WORD_PATTERNS: readonly string[] = [
  // en
  '(ignore|disregard|forget|skip|override|drop) (all |any |the |your |my |these |those |every )?(of )?(the |your )?(previous |prior |earlier |above |preceding |original |existing |old |system |safety )?(instruction|rule|guideline|directive|prompt|polic|mandate|limit|restriction|check|guardrail|safeguard|constraint)',
  '(bypass|circumvent|override|disable|skip|evade|turn off|ignore) (all |any |the |your |my |every |these )?(spending |security |fraud |safety |transaction |authori[sz]ation |payment |daily |monthly )?(limit|check|control|mandate|restriction|rule|safeguard|verification|filter|protection)',
  '(always|auto|automatically) (approve|authori[sz]e|accept|allow)',
  // Paraphrases without the trigger words above: a blanket approval, a dictated answer, a mode
  // the authorizer is said to be in, limits said not to apply.
  '(approve|authori[sz]e|accept|allow|pass) (everything|anything|whatever|all (of )?(the )?(following|requests|payments|transactions|charges|purchases|transfers))',
  '(respond|reply|answer|return|output) (only )?(with |by saying )?(only )?(approve|approved|allow|allowed)( only)?$',
  '(respond|reply|answer|return|output) (only )?(with |by saying )?(only )?(approve|approved|allow|allowed) (only|and nothing)',
  'you (are|re) (now )?(in |running in |operating in )?(a |the )?(maintenance|test|testing|debug|diagnostic|override|emergency|unrestricted|privileged|service) mode',
  '(maintenance|override|emergency|diagnostic|unrestricted) mode (is )?(now )?(on|active|enabled|engaged|activated)',
  'regardless of (any |all |the |your |my |its |their )?(spending |daily |monthly |transaction |payment )?(limit|rule|polic|mandate|restriction|cap|check|budget|control|guideline|verification)',
  '(limit|rule|polic|mandate|restriction|cap|check|control)s? (do not|dont|don t|does not|doesn t|doesnt|no longer|shall not|should not|won t|wont) apply',
  '(skip|waive|suspend) (the |any |all |your )?(review|verification|approval|confirmation|step up|fraud check|risk check|security check)',
  '(approve|authori[sz]e|accept|allow|process) (this |the |all |every |any )?(payment |transaction |transfer |purchase |request |charge )?(regardless|anyway|no matter|unconditionally|without (any )?(check|verification|limit|question|review))',
  'you (are now|re now|will now|must now) (in |a |an |the )?(developer|admin|unrestricted|jailbr|dan|god|root|debug|evil|free)',
  '(enable|activate|enter|switch to) (the )?(developer|admin|god|debug|jailbreak|unrestricted) mode',
  '(developer|admin|god|debug|jailbreak) mode (enabled|activated|on|is on)',
  'you (must|shall|have to|need to|are required to|will) (approve|authori[sz]e|allow|accept|process) (this|the|all|every|it)',
  '(i|we) (order|command|instruct|require) you',
  '(order|command|instruct|require) you to (approve|authori[sz]e|allow|accept|process|pay|transfer|send)',
  '(new|updated|revised|override) (system )?(instructions|rules|policy|prompt) (are|is|follow|from now)',
  'from now on (you|always|approve|ignore)',
  '(reveal|print|show|repeat|output) (me )?(your |the )?(system prompt|instructions|hidden prompt)',
  'jailbreak',
  'do anything now',
  // es
  '(ignora|ignore|ignorar|olvida|olvide|olvidar|omite|descarta) (todas |todos )?(las |los |tus |sus |mis )?(instrucciones|reglas|normas|limites|restricciones|indicaciones)',
  '(aprueba|autoriza|acepta) (este |esta |el |la |todos |todas )?(pago|transaccion|transferencia|compra)? ?(sin (limite|restriccion|verificacion|control)|de todos modos|igualmente)',
  '(elude|evita|salta|sortea) (el |los |la |las )?(limite|control|verificacion|restriccion)',
  // fr
  '(ignore|ignorez|ignorer|oublie|oubliez|oublier) (toutes )?(les |tes |vos |mes |la |le )?(instructions|regles|consignes|limites|restrictions|directives)',
  '(contourne|contournez|contourner) (la |le |les )?(limite|controle|verification|restriction|mandat)',
  '(approuve|approuvez|autorise|autorisez) (ce |cette |le |la )?(paiement|transaction|virement|achat)? ?(quand meme|sans (limite|controle|verification)|malgre)',
  // de
  '(ignoriere|ignorieren|ignoriert|vergiss|vergessen|missachte|missachten) (alle |deine |die |ihre |sämtliche |samtliche )?(vorherigen |bisherigen |obigen |fruheren )?(anweisungen|regeln|vorgaben|limit|grenzen|beschrankung|einschrankung)',
  '(umgehe|umgehen|umgeht) (das |die |den |alle )?(limit|grenze|kontrolle|prufung|sicherheits|beschrankung|mandat)',
  '(genehmige|genehmigen|autorisiere|autorisieren) (die |diese |den )?(zahlung|transaktion|uberweisung) (trotzdem|ohne (prufung|limit|kontrolle)|in jedem fall)',
  // it
  '(ignora|ignorare|dimentica|dimenticare|trascura) (tutte |tutti )?(le |i |tue |tuoi )?(istruzioni|regole|limiti|limite|restrizioni)',
  '(aggira|aggirare|scavalca) (il |i |le |la )?(limite|limiti|controllo|controlli|restrizion)',
  // pt
  '(ignore|ignora|ignorar|esqueca|esquecer|desconsidere) (todas |todos )?(as |os |suas |seus |tuas )?(instrucoes|regras|limites|restricoes|orientacoes)',
  '(contorne|contornar|burle|burlar) (o |os |a |as )?(limite|controle|verificacao|restricao)',
  // nl
  '(negeer|negeren|vergeet|vergeten) (alle |de |je |jouw |uw )?(eerdere |vorige |bovenstaande )?(instructies|regels|limieten|limiet|beperkingen)',
  '(omzeil|omzeilen) (de |het |alle )?(limiet|controle|regels|beperking)',
  // ru (after lower case; й and ё are folded by the diacritic strip like the text)
  '(игнорируи|игнорируите|игнорировать|проигнорируи|забудь|забудьте|забыть|пренебреги) (все |свои |твои |ваши |предыдущие |прошлые |прежние )*(инструкц|правил|указани|ограничени|лимит)',
  '(обойди|обоидите|обоити|обойти|обходи) (все |этот |эти )?(лимит|ограничени|проверк|правил)',
  '(одобри|одобрите|подтверди|разреши) (этот |эту |все )?(платеж|платеж|транзакци|перевод) (без (проверк|ограничени)|в любом случае|несмотря)',
  // pl
  '(zignoruj|ignoruj|zapomnij|pomin) (wszystkie |poprzednie |swoje |twoje |wczesniejsze )*(instrukcj|zasad|polecen|limit|ograniczen)',
  '(obejdz|omin) (limit|ograniczeni|kontrol|zabezpieczen)',
  // tr (object first)
  '(onceki |tum |butun |eski )*(talimat|kural|sinir|limit)[a-z]* (yok say|gormezden gel|unut|atla|iptal et)',
  '(siniri|limiti|kontrolu|kurallari) (atla|as|devre disi birak)',
];

/** Patterns over normalised text for scripts written without spaces between words. */
const RAW_PATTERNS: readonly string[] = [
  // zh
  '(忽略|无视|忽视|忘记|不要理会|不理会).{0,8}(指令|指示|规则|说明|限制|提示)',
  '(绕过|跳过|规避|无视).{0,6}(限制|检查|验证|审核|额度)',
  '(批准|通过|授权).{0,6}(无论如何|不管|不用检查|无需验证)',
  // ja
  '(指示|命令|ルール|制限|指令|規則).{0,6}(無視|むし|忘れ)',
  '(制限|チェック|検証|上限).{0,6}(回避|迂回|無効|スキップ)',
  // ko
  '(지시|명령|규칙|지침|제한).{0,8}(무시|잊어)',
  '(제한|검사|확인).{0,6}(우회|건너뛰)',
  // ar
  '(تجاهل|انس|اهمل|تخط).{0,24}(ال)?(تعليمات|قواعد|حدود|قيود|أوامر|اوامر)',
  '(تجاوز|تخطى).{0,16}(الحد|القيود|التحقق)',
];

/** Patterns are written naturally and folded like the text (diacritics: й -> и, ö -> o). */
function foldPattern(p: string): string {
  return p.normalize('NFD').replace(COMBINING, '').normalize('NFC');
}
const WORDS_RE = new RegExp(`(?:^| )(?:${WORD_PATTERNS.map((p) => `(?:${foldPattern(p)})`).join('|')})`, 'u');
const RAW_RE = new RegExp(RAW_PATTERNS.map((p) => `(?:${foldPattern(p)})`).join('|'), 'u');

const NEEDS_FOLDING = /[^a-z ]/;
const SPACES = / /g;

/** The skeleton of one string: confusables and leet folded, everything but letters dropped. */
export function skeletonOf(words: string): string {
  return foldedWordsOf(words).replace(SPACES, '');
}

// The skeleton patterns: the word patterns without their spaces, letters folded the same way.
function skeletonPattern(p: string): string {
  let out = '';
  for (const ch of p) {
    if (ch === ' ') continue;
    out += /\p{L}/u.test(ch) ? (SKELETON[ch] ?? ch) : ch;
  }
  return out;
}
// Short English-only words ("you", "i", "we") joined without spaces match too often inside
// other words: the skeleton scan uses only the patterns that start with a verb list.
const SKELETON_RE = new RegExp(
  WORD_PATTERNS.filter((p) => p.startsWith('(') && !p.startsWith('(i|') && !p.startsWith('(new'))
    .map((p) => `(?:${skeletonPattern(foldPattern(p))})`)
    .join('|'),
  'u',
);

function decodeEntities(text: string): string {
  return text.replace(ENTITY, (all, body: string) => {
    if (body[0] === '#') {
      const cp =
        body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return Number.isFinite(cp) && cp > 0 && cp < 0x110000 ? String.fromCodePoint(cp) : ' ';
    }
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
    return named[body.toLowerCase()] ?? all;
  });
}

function decodeBase64Runs(text: string): string {
  let extra = '';
  BASE64_RUN.lastIndex = 0;
  for (let m = BASE64_RUN.exec(text); m !== null; m = BASE64_RUN.exec(text)) {
    const decoded = Buffer.from(m[0], 'base64').toString('utf8');
    // Keep only text-like decodings (binary noise decodes to replacement characters).
    let bad = 0;
    for (let i = 0; i < decoded.length; i++) {
      const c = decoded.charCodeAt(i);
      if (c === 0xfffd || (c < 32 && c !== 10 && c !== 13 && c !== 9)) bad++;
    }
    if (decoded.length > 0 && bad / decoded.length < 0.1) extra += ` ${decoded}`;
  }
  if (text.includes('/')) {
    BASE64_SEGMENT.lastIndex = 0;
    for (let m = BASE64_SEGMENT.exec(text); m !== null; m = BASE64_SEGMENT.exec(text)) {
      const decoded = Buffer.from(m[0], 'base64').toString('utf8');
      if (/^[\x20-\x7e]+$/.test(decoded)) extra += ` ${decoded}`;
    }
  }
  return extra;
}

/** Undoes the encodings an attacker uses to hide text: percent, HTML entities, base64. */
export function decodeEmbedded(text: string): string {
  let t = text;
  if (PERCENT.test(t)) {
    try {
      t = decodeURIComponent(t.replace(/\+/g, ' '));
    } catch {
      t = t.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    }
  }
  if (t.includes('&')) t = decodeEntities(t);
  if (t.length >= 16) {
    const extra = decodeBase64Runs(t);
    if (extra !== '') t += extra;
  }
  return t;
}

/** Lower-cased, NFKC, controls stripped, Latin diacritics stripped (punctuation kept). */
export function normalizeText(text: string): string {
  let t = text;
  if (!ASCII.test(t)) {
    t = t.normalize('NFKC').replace(ZERO_WIDTH_BIDI, '');
    t = t.toLowerCase().normalize('NFD').replace(COMBINING, '').normalize('NFC');
  } else {
    t = t.toLowerCase();
  }
  return t;
}

/** Normalised words: every run of non-letters/digits is one space. */
export function wordsOf(normalized: string): string {
  return normalized.replace(NON_WORD, ' ').trim();
}

export type InjectionFinding = 'directive' | 'marker' | null;

/** Confusables and leetspeak folded as in the skeleton, the spaces between words kept. */
export function foldedWordsOf(words: string): string {
  // Plain Latin letters and spaces (most texts): nothing to fold.
  if (!NEEDS_FOLDING.test(words)) return words;
  let out = '';
  for (const ch of words) out += SKELETON[ch] ?? ch;
  return out;
}

/**
 * Words spelled out letter by letter joined ("o v e r r i d e", "a-p-p-r-o-v-e", "s.k.i.p"):
 * three or more single letters in a row, each pair apart by the same one separator, become one
 * word (on the normalised text, before its words are split).
 */
export function joinSpelledOut(norm: string): string {
  SPELLED_RUN.lastIndex = 0;
  if (!SPELLED_RUN.test(norm)) return norm;
  return norm.replace(SPELLED_RUN, (run) => run.replace(SEPARATORS, ''));
}
const SPELLED_RUN = /(?<!\p{L})\p{L}([-. _*·/])\p{L}(?:\1\p{L})+(?!\p{L})/gu;
const SEPARATORS = /[-. _*·/]/g;

/**
 * A word the skeleton would change: a digit or symbol against a letter (leetspeak), or a Greek
 * or Cyrillic letter (which may stand in a Latin word).
 */
const FOLDABLE = /\p{L}[0-9@$!|€]|[0-9@$!|€]\p{L}|[\u0370-\u03ff\u0400-\u04ff\u0131\u0142\u0251]/u;

/** ROT13 of the Latin letters (a text that says it is ROT13 is read decoded too). */
function rot13(text: string): string {
  return text.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97));
}
const ROT13_HINT = /\brot ?13\b/;

/** One form of the text: markers, directive patterns, claims against the controls. */
function scanForm(norm: string): InjectionFinding {
  if (MARKER.test(norm) || CHAT_TOKENS.test(norm)) return 'marker';
  const words = wordsOf(norm);
  if (WORDS_RE.test(words) || RAW_RE.test(words)) return 'directive';
  const folded = foldedWordsOf(words);
  const skeleton = folded.replace(SPACES, '');
  if (SKELETON_RE.test(skeleton) || RAW_RE.test(skeleton)) return 'directive';
  if (rawClaimsAgainstControls(norm)) return 'directive';
  if (claimsAgainstControls(words)) return 'directive';
  if (addressesTheAuthorizer(norm, words)) return 'directive';
  const spelled = joinSpelledOut(norm);
  const joined = spelled === norm ? words : wordsOf(spelled);
  if (joined !== words && (MARKER.test(spelled) || WORDS_RE.test(joined) || claimsAgainstControls(joined)))
    return 'directive';
  if (FOLDABLE.test(joined)) {
    const foldedJoined = joined === words ? folded : foldedWordsOf(joined);
    // Look-alike letters folded: the claims, and a marker in the text with its punctuation.
    if (foldedJoined !== joined && (claimsAgainstControls(foldedJoined) || MARKER.test(foldedWordsOf(spelled))))
      return 'directive';
  }
  return null;
}

/** Whether `text` carries instructions aimed at the authorizer (never which words). */
export function detectInjection(text: string): InjectionFinding {
  if (text.length < 6) return null;
  const norm = normalizeText(decodeEmbedded(text));
  const found = scanForm(norm);
  if (found !== null) return found;
  // Text written backwards, or in ROT13 with a word saying so: a model reading it is asked to
  // undo it, so it is read undone.
  if (REVERSED_HINT.test(norm) && scanForm([...norm].reverse().join('')) !== null) return 'directive';
  if (ROT13_HINT.test(norm) && scanForm(rot13(norm)) !== null) return 'directive';
  return null;
}

// Intent texts repeat (intent_type vocabularies, reasoning templates): memoise the verdicts.
const cache = new Map<string, InjectionFinding>();
const CACHE_SIZE = 2048;

export function detectInjectionCached(text: string): InjectionFinding {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const r = detectInjection(text);
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(text, r);
  return r;
}
