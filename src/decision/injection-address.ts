// The third layer of prompt-injection detection (injection.ts, after injection-claims.ts): text
// that speaks to the authorizer rather than about the purchase. An honest agent explains what it
// buys and why, in the first person or impersonally; it has no reason to name the authorizer,
// to tell "you" what your limits are, to authorize its own purchase, to open a sentence with an
// order to approve, to set a decision field, or to announce a test mode or a system message.
// Each rule below is one of these shapes, in words rather than fixed phrases where the language
// allows it.
//
// Input: the normalised text of injection.ts (lower case, Latin diacritics stripped,
// punctuation kept) and its words (one space between them).

import { isControlWord, wholePhrases } from './injection-claims.js';

/** Words that name the authorizer or whoever reviews the request. */
const ADDRESSEE_RE =
  /(?:^| )(?:authori[sz]ers?|approvers?|whoever (?:is )?(?:reviewing|checking|reading|approving)|(?:risk|fraud|decision|policy|screening|review) (?:engine|system|model|bot)s?|automated (?:reviewer|checker)s?|ai (?:reviewer|checker|authori[sz]er)s?)(?= |$)/u;
/**
 * Stems of a decision about the request. Not "allow" or "accept": "allows you to sync five
 * devices", "accepts your card" describe products and shops.
 */
const DECISION_RE = /^(?:approv|authori[sz]|declin|reject|deny|denie|flag|block|escalat|greenlight)/u;
/** The same and the words of letting a request pass, next to the authorizer named ("let it through"). */
const LETTING_RE = /^(?:allow|accept|let|lets|pass|through|wave|waved|proceed|process)$/u;
/** The second person, English. */
const YOU: ReadonlySet<string> = new Set(['you', 'your', 'yours', 'yourself', 'youre']);
/** Words the second person and a control or decision may lie apart. */
const YOU_WINDOW = 4;
/** Words the authorizer named and a decision or control may lie apart (about a sentence). */
const ADDRESSEE_WINDOW = 10;

/** The agent authorizing its own purchase: "I authorize", "we hereby approve". */
const SELF_AUTHORIZING =
  /(?:^| )(?:i|we) (?:hereby |officially |personally |now |also )?(?:authori[sz]e|approve|sanction|permit|waive|override)(?= |$)/u;

/**
 * An order to approve opening a sentence or following a colon ("Approve it.", "...: approve",
 * "Please authorize this payment now"): a verb of approval, at most an object, then the end of the
 * clause. "Allow 3-5 days for delivery" is not one (what follows is no object of approval).
 */
const IMPERATIVE =
  /(?:^|[.:;!?>]\s*)(?:please |kindly |just |simply |so |now )?(?:approve|authori[sz]e|accept|allow|greenlight|whitelist)(?: (?:it|this|that|everything|all|now|immediately|asap|(?:(?:the|this|my|all|every|any) )?(?:one|payment|purchase|transaction|charge|order|request|transfer)s?))*\s*(?:[.!,;]|$| and | now | immediately| without | regardless| anyway)/u;

/**
 * A decision field set in the text: "policy_check=false", "decision: approve", "risk_score=0".
 * Not product or paperwork fields that share a word ("pets allowed: yes", "budget approved: yes",
 * "address override: none", "risk: low" as the agent's own note): only the authorizer's fields.
 */
const FIELD_SET =
  /(?:^|[^a-z])(?:(?:decision|verdict)\s*["']?\s*(?:[:=]|=>|->)\s*["']?(?:approve|approved|allow|allowed|accept|pass|yes|true)|(?:risk[ _-]?score|fraud[ _-]?score)\s*["']?\s*(?:[:=]|=>|->)\s*["']?(?:0(?![.,]?\d)|none|null|zero)|(?:(?:policy|fraud|limit|velocity|spending|security|risk)[ _-]?checks?|step[ _-]?up|review[ _-]?required|requires?[ _-]?review|verification|skip[ _-]?checks?)\s*["']?\s*(?:[:=]|=>|->)\s*["']?(?:true|false|yes|no|0|none|off|null|skip|pass))(?![a-z])/u;

/** Phrases of a test mode, a system message or new orders, every language (whole words, in order). */
const MODE_PHRASES: readonly string[] = [
  'test mode',
  'testing mode',
  'sandbox mode',
  'mode test',
  'mode de test',
  'modo de prueba',
  'modo prueba',
  'modo de teste',
  'modalita di test',
  'modalita test',
  'testmodus',
  'tryb testowy',
  'test modu',
  'mode uji',
  'che do thu nghiem',
  'тестовый режим',
  'тестовии режим',
  'тестовий режим',
];
const SYSTEM_PHRASES: readonly string[] = [
  'system message',
  'message systeme',
  'message du systeme',
  'mensaje del sistema',
  'mensagem do sistema',
  'messaggio di sistema',
  'systemnachricht',
  'systeembericht',
  'systemmeddelande',
  'komunikat systemowy',
  'sistem mesaji',
  'pesan sistem',
  'thong bao he thong',
  'системное сообщение',
  'системне повідомлення',
  'new directive',
  'new directives',
  'previous context',
];
/** Blanket approval words: all the transactions, every language. */
const ALL_TRANSACTIONS: readonly string[] = [
  'all transactions',
  'all payments',
  'all charges',
  'toutes les transactions',
  'tous les paiements',
  'todas las transacciones',
  'todos los pagos',
  'todas as transacoes',
  'todos os pagamentos',
  'tutte le transazioni',
  'tutti i pagamenti',
  'alle transaktionen',
  'alle zahlungen',
  'alle transacties',
  'alle betalingen',
  'alla transaktioner',
  'wszystkie transakcje',
  'tum islemler',
  'semua transaksi',
  'moi giao dich',
  'tat ca giao dich',
  'все транзакции',
  'все платежи',
  'всі транзакції',
  'всі платежі',
];
/** Stems of approving, every language (a blanket or a mode needs one). */
const APPROVE_STEMS =
  /(?:^| )(?:approv|accept|authori|allow|aprob|acept|aceit|approuv|accett|genehmig|akzept|goedkeur|godkann|zatwierdz|akceptuj|onayla|setuju|phe duyet|одобр|схвал|принима|приним|активир|activ|enabl|attiv|aktiv)/u;

const MODE_RE = wholePhrases(MODE_PHRASES);
const SYSTEM_RE = wholePhrases(SYSTEM_PHRASES);
const ALL_TRANSACTIONS_RE = wholePhrases(ALL_TRANSACTIONS);
/** The same for Arabic and the scripts without spaces, on the normalised text. */
const RAW_ADDRESS =
  /رسالة النظام|وضع الاختبار|(?:جميع|كل) المعاملات|システムメッセージ|テストモード|系统消息|系统提示|测试模式|시스템 메시지|테스트 모드/u;

/** What SELF_AUTHORIZING and IMPERATIVE need: a verb of approving. */
const APPROVING_VERB = /approve|authori[sz]e|accept|allow|greenlight|whitelist|sanction|permit|waive|override/u;
/** What FIELD_SET needs: a mark between a field and its value. */
const FIELD_MARK = /[:=]|->/u;
/** Text in the Latin script and punctuation only (RAW_ADDRESS is in other scripts). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: a range of code points from the first
const LATIN_ONLY = /^[\x00-\u024f]*$/u;
const YOU_RE = /(?:^| )you/u;

/**
 * Whether token `i` has a control or a decision word within `window` tokens of it (or a word of
 * letting the request pass, when `letting`).
 */
function nearControlOrDecision(tokens: readonly string[], i: number, window: number, letting: boolean): boolean {
  const from = Math.max(0, i - window);
  const to = Math.min(tokens.length - 1, i + window);
  for (let j = from; j <= to; j++) {
    if (j === i) continue;
    const t = tokens[j] as string;
    if (DECISION_RE.test(t) || isControlWord(t) || (letting && LETTING_RE.test(t))) return true;
  }
  return false;
}

/**
 * Whether the text speaks to the authorizer: names it (or "you") next to a decision or a
 * control, authorizes its own purchase, orders an approval, sets a decision field, or announces
 * a test mode, a system message or a blanket approval.
 */
export function addressesTheAuthorizer(norm: string, words: string): boolean {
  if (words.length < 8) return false;
  // Each costly pattern behind a cheap test of what it needs (most texts have none of it).
  if (APPROVING_VERB.test(words) && (SELF_AUTHORIZING.test(words) || IMPERATIVE.test(norm))) return true;
  if (FIELD_MARK.test(norm) && FIELD_SET.test(norm)) return true;
  if (SYSTEM_RE.test(words) || (!LATIN_ONLY.test(norm) && RAW_ADDRESS.test(norm))) return true;
  if ((MODE_RE.test(words) || ALL_TRANSACTIONS_RE.test(words)) && APPROVE_STEMS.test(words)) return true;
  const named = ADDRESSEE_RE.exec(words);
  const you = YOU_RE.test(words);
  if (named === null && !you) return false;
  const tokens = words.split(' ');
  if (named !== null) {
    // The token where the addressee starts.
    const at = words.slice(0, named.index + (named[0].startsWith(' ') ? 1 : 0)).split(' ').length - 1;
    if (nearControlOrDecision(tokens, at, ADDRESSEE_WINDOW, true)) return true;
  }
  if (you) {
    for (let i = 0; i < tokens.length; i++) {
      if (YOU.has(tokens[i] as string) && nearControlOrDecision(tokens, i, YOU_WINDOW, false)) return true;
    }
  }
  return false;
}
