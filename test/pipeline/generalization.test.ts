// The gates of issue 26 one by one (docs/decision-engine.md Stage 2): the pace of a run against
// the agent's own and the request's content, the merchant's own level, a new kind of purchase
// judged against the mandate, a country paid in the currency the Principal granted for it, and a
// software vendor's billing country.
import { describe, expect, it } from 'vitest';
import { agent, decide, HOUR, mandate, request, T0 } from '../fixtures/decision-core.js';

/** `n` ordinary approvals an hour apart at a grocery in the USA, about `amount` each. */
function history(n: number, amount = 10, s = agent()) {
  for (let i = 0; i < n; i++) {
    const res = decide(
      s,
      request({ amount: String(amount + (i % 3)), merchantName: `Grocer ${i % 3}`, mcc: '5411' }),
      T0 + i * HOUR,
    ).res;
    expect(res.decision).toBe('APPROVE');
  }
  return s;
}

describe('gates that learn what is normal for the agent', () => {
  it('a run of cash-like purchases seconds apart steps up at the third; a basket of other goods does not', () => {
    const s = history(8);
    const at = T0 + 20 * HOUR;
    const card = (i: number) =>
      decide(s, request({ amount: '25', merchantName: 'PlayPoints Store', mcc: '5816' }), at + i * 12_000).res;
    expect(card(0).decision).toBe('APPROVE');
    expect(card(1).decision).toBe('APPROVE');
    const third = card(2);
    expect(third.decision).toBe('STEP_UP');
    expect(third.reason_codes).toEqual(['velocity_spike']);
    expect(third.gates_fired).toEqual(['risk_velocity']);

    const b = history(8);
    for (let i = 0; i < 6; i++) {
      const res = decide(b, request({ amount: '12', merchantName: `Seller ${i}`, mcc: '5945' }), at + i * 12_000).res;
      expect(res.decision, `basket item ${i}`).toBe('APPROVE');
    }
  });

  it("an amount near the last one approved at a merchant is that merchant's usual charge", () => {
    const s = history(5);
    expect(
      decide(s, request({ amount: '60', merchantName: 'Design Tool', mcc: '5734' }), T0 + 10 * HOUR).res.decision,
    ).toBe('APPROVE');
    const later = T0 + 40 * HOUR;
    expect(decide(s, request({ amount: '75', merchantName: 'Design Tool', mcc: '5734' }), later).res.decision).toBe(
      'APPROVE',
    );
    const other = decide(s, request({ amount: '75', merchantName: 'Other Tool', mcc: '5734' }), later + HOUR).res;
    expect(other.decision).toBe('STEP_UP');
    expect(other.reason_codes).toContain('amount_outlier');
  });

  it('a new kind of purchase is judged against the per-transaction limit, resaleable goods against the median', () => {
    const s = history(6, 40, agent({ mandates: [mandate({ perTransaction: '2000', daily: '10000' })] }));
    const at = T0 + 30 * HOUR;
    expect(decide(s, request({ amount: '600', merchantName: 'Harbor Venue', mcc: '7011' }), at).res.decision).toBe(
      'APPROVE',
    );
    const tv = decide(s, request({ amount: '600', merchantName: 'Best Buy', mcc: '5732' }), at + 7 * HOUR).res;
    expect(tv.decision).toBe('STEP_UP');
    expect(tv.reason_codes).toContain('amount_outlier');
    const near = decide(
      s,
      request({ amount: '1800', merchantName: 'Rosewood Catering', mcc: '5811' }),
      at + 14 * HOUR,
    ).res;
    expect(near.decision).toBe('STEP_UP');
    expect(near.reason_codes).toContain('amount_outlier');
  });

  it('a new country paid in its own currency under a mandate granted in it is not a jump; in the home currency it is', () => {
    const two = () => agent({ mandates: [mandate({ id: 'mnd_usd' }), mandate({ id: 'mnd_eur', currency: 'EUR' })] });
    const at = T0 + 30 * HOUR;
    const abroad = (currency: string) =>
      request({ amount: '25', currency, merchantName: 'Elektro Markt', mcc: '5732', country: 'DEU' });
    const home = history(10, 10, two());
    const usd = decide(home, abroad('USD'), at).res;
    expect(usd.decision).toBe('STEP_UP');
    expect(usd.reason_codes).toContain('country_jump');
    const granted = history(10, 10, two());
    const eur = decide(granted, abroad('EUR'), at).res;
    expect(eur.reason_codes).not.toContain('country_jump');
  });

  it('a software vendor abroad weighs less for an agent that already pays software: where it bills from is not where the agent is', () => {
    // Groceries and software in the USA, ~30 USD; then 105 USD abroad at a new merchant of a kind
    // the agent pays: a grocery in Germany is a jump, a software vendor there is not.
    const both = () => {
      const s = agent();
      for (let i = 0; i < 10; i++) {
        const software = i % 2 === 1;
        const res = decide(
          s,
          request({
            amount: String(30 + (i % 3)),
            merchantName: software ? `Code Host ${i % 3}` : `Grocer ${i % 3}`,
            mcc: software ? '7372' : '5411',
          }),
          T0 + i * HOUR,
        ).res;
        expect(res.decision).toBe('APPROVE');
      }
      return s;
    };
    const at = T0 + 30 * HOUR;
    const grocery = decide(
      both(),
      request({ amount: '105', merchantName: 'Rewe Online', mcc: '5411', country: 'DEU' }),
      at,
    ).res;
    expect(grocery.decision).toBe('STEP_UP');
    expect(grocery.reason_codes).toContain('country_jump');
    const vendor = decide(
      both(),
      request({ amount: '105', merchantName: 'Hetzner Online', mcc: '7372', country: 'DEU' }),
      at,
    ).res;
    expect(vendor.reason_codes).not.toContain('country_jump');
    expect(vendor.decision).toBe('APPROVE');
  });
});
