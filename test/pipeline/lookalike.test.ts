import { describe, expect, it } from 'vitest';
import { imitatesKnown, knownNamesOf, nameWords, oneEditApart } from '../../src/decision/lookalike.js';
import { agent, decide, request, T0 } from '../fixtures/decision-core.js';

const known = (...names: string[]) => knownNamesOf(names);

describe('merchant lookalikes', () => {
  it('oneEditApart: one insertion, deletion, replacement or swap of neighbours, no more', () => {
    expect(oneEditApart('foods', 'foods')).toBe(true);
    expect(oneEditApart('ofods', 'foods')).toBe(true);
    expect(oneEditApart('chaapter', 'chapter')).toBe(true);
    expect(oneEditApart('chapter', 'chaptr')).toBe(true);
    expect(oneEditApart('gitloom', 'gitlaom')).toBe(true);
    expect(oneEditApart('gitloom', 'gtiloam')).toBe(false);
    expect(oneEditApart('books', 'boo')).toBe(false);
    expect(oneEditApart('london', 'paris')).toBe(false);
  });

  it('a name one look-alike word away from a paid merchant imitates it; store numbers, short words and other names do not', () => {
    const paid = known('Cornerstone Foods', 'Gitloom', 'Chapter & Verse Books', 'Amazon US', 'Walgreens #1234');
    expect(imitatesKnown(nameWords('Cornerstone oFods'), paid)).toBe(true);
    expect(imitatesKnown(nameWords('G1tloom'), paid)).toBe(true);
    expect(imitatesKnown(nameWords('Chaapter & Verse Books'), paid)).toBe(true);
    // Cyrillic о and е in a Latin name.
    expect(imitatesKnown(nameWords('Cornerstоne Fоods'), paid)).toBe(true); // both words, each imitated
    expect(imitatesKnown(nameWords('Cornerstоne Bakery'), paid)).toBe(false); // one imitated, one another word
    expect(imitatesKnown(nameWords('Cornerstone Fоods'), paid)).toBe(true);
    expect(imitatesKnown(nameWords('Cornerstone Foods'), paid)).toBe(false); // the name it paid
    expect(imitatesKnown(nameWords('CORNERSTONE   foods!'), paid)).toBe(false); // the same words
    expect(imitatesKnown(nameWords('Walgreens #1299'), paid)).toBe(false); // another store
    // Branch and unit codes are not names, whatever letters they hold.
    expect(imitatesKnown(nameWords('Shop 4d6a'), known('Shop 4d6e'))).toBe(false);
    expect(imitatesKnown(nameWords('Depot 12b'), known('Depot 12a'))).toBe(false);
    expect(imitatesKnown(nameWords('Amazon UK'), paid)).toBe(false); // short words are not judged
    expect(imitatesKnown(nameWords('Cornerstone Bakery'), paid)).toBe(false);
    // The paid name with a payment word appended imitates it; another word does not.
    expect(imitatesKnown(nameWords('Gitloom Billing'), paid)).toBe(true);
    expect(imitatesKnown(nameWords('Cornerstone Foods Payments'), paid)).toBe(true);
    expect(imitatesKnown(nameWords('Gitloom Studio'), paid)).toBe(false);
    expect(imitatesKnown(nameWords('Billing'), paid)).toBe(false);
    // The same letters split otherwise (a moved dot in a domain), long enough to judge.
    expect(imitatesKnown(nameWords('Bookshop.org'), known('Booksho.porg'))).toBe(true);
    expect(imitatesKnown(nameWords('Gitlo om'), paid)).toBe(true);
    expect(imitatesKnown(nameWords('Ama zonus'), known('Amazon US'))).toBe(true);
    expect(imitatesKnown(nameWords('A mz'), known('Am z'))).toBe(false);
    expect(imitatesKnown([], paid)).toBe(false);
  });

  it('steps up a new merchant named like one the agent paid, and learns only from approvals', () => {
    const s = agent();
    let at = T0;
    for (let i = 0; i < 3; i++) {
      at += 3_600_000;
      expect(decide(s, request({ merchantName: 'Cornerstone Foods', mcc: '5411' }), at).res.decision).toBe('APPROVE');
    }
    at += 3_600_000;
    const mimic = decide(s, request({ merchantName: 'Cornerstone oFods', mcc: '5411' }), at).res;
    expect(mimic).toMatchObject({ decision: 'STEP_UP', gates_fired: ['risk_score'] });
    expect(mimic.reason_codes).toContain('merchant_lookalike');
    at += 3_600_000;
    // The real one, a store number on it, and an unrelated new merchant go through.
    expect(decide(s, request({ merchantName: 'Cornerstone Foods', mcc: '5411' }), at).res.decision).toBe('APPROVE');
    at += 3_600_000;
    expect(decide(s, request({ merchantName: 'Cornerstone Foods 17', mcc: '5411' }), at).res.decision).toBe('APPROVE');
    at += 3_600_000;
    expect(decide(s, request({ merchantName: 'Harbor Grocers', mcc: '5411' }), at).res.decision).toBe('APPROVE');
    // A merchant id the agent paid under is known whatever its name.
    at += 3_600_000;
    expect(
      decide(s, request({ merchantId: 'mch_cf', merchantName: 'Cornerstone Foods', mcc: '5411' }), at).res.decision,
    ).toBe('APPROVE');
    at += 3_600_000;
    expect(
      decide(s, request({ merchantId: 'mch_cf', merchantName: 'Cornerstone Fods', mcc: '5411' }), at).res.reason_codes,
    ).not.toContain('merchant_lookalike');
  });
});
