import { describe, expect, it } from 'vitest';
import { agent, DAY, decide, eventTypes, mandate, request, T0 } from '../fixtures/decision-core.js';

describe('mandate gates', () => {
  it('approves a request inside every limit and reports the running totals', () => {
    const s = agent();
    const { res, ev } = decide(s, request({ amount: '12.5' }));
    expect(res.decision).toBe('APPROVE');
    expect(res.reason_codes).toEqual(['approved']);
    expect(res.gates_fired).toEqual([]);
    expect(res.mandate_id).toBe('mnd_test');
    expect(res.amount).toBe(12.5);
    expect(res.daily_amount_used).toBe(12.5);
    expect(res.daily_count_used).toBe(1);
    expect(ev.audit.decision).toBe('APPROVE');
    expect(ev.audit.amount).toBe('12.5');
    expect(eventTypes(ev)).toEqual([]);
  });

  it('fills a 0.30 daily cap exactly with 0.10 + 0.20 and declines a further 0.01', () => {
    const s = agent({ mandates: [mandate({ perTransaction: '1', daily: '0.30' })] });
    expect(decide(s, request({ amount: '0.1' }), T0).res.decision).toBe('APPROVE');
    const second = decide(s, request({ amount: '0.2' }), T0 + 60_000).res;
    expect(second.decision).toBe('APPROVE');
    expect(second.daily_amount_used).toBe(0.3);
    const third = decide(s, request({ amount: '0.01' }), T0 + 120_000);
    expect(third.res.decision).toBe('DECLINE');
    expect(third.res.gates_fired).toEqual(['mandate_exceeded']);
    expect(third.res.reason_codes).toEqual(['daily_limit_exceeded']);
    expect(third.res.daily_amount_used).toBe(0.3);
    expect(eventTypes(third.ev)).toEqual(['gate.fired', 'authorization.decline']);
    expect(third.ev.events[0]?.data).toMatchObject({ gate: 'mandate_exceeded', decision: 'DECLINE', amount: '0.01' });
  });

  it('resets the daily cap at 00:00 UTC', () => {
    const s = agent({ mandates: [mandate({ daily: '50' })] });
    expect(decide(s, request({ amount: '50' }), T0).res.decision).toBe('APPROVE');
    expect(decide(s, request({ amount: '1' }), T0 + 60_000).res.reason_codes).toEqual(['daily_limit_exceeded']);
    const tomorrow = Date.UTC(2025, 4, 15, 0, 0, 1);
    const res = decide(s, request({ amount: '1' }), tomorrow).res;
    expect(res.decision).toBe('APPROVE');
    expect(res.daily_amount_used).toBe(1);
  });

  it('declines over the monthly cap across days of one month', () => {
    const s = agent({ mandates: [mandate({ daily: '100', monthly: '150' })] });
    expect(decide(s, request({ amount: '100' }), T0).res.decision).toBe('APPROVE');
    const next = decide(s, request({ amount: '60' }), T0 + DAY).res;
    expect(next.decision).toBe('DECLINE');
    expect(next.reason_codes).toEqual(['monthly_limit_exceeded']);
    expect(decide(s, request({ amount: '50' }), T0 + DAY + 60_000).res.decision).toBe('APPROVE');
  });

  it('declines over the per-transaction limit and approves exactly at it', () => {
    const s = agent({ mandates: [mandate({ perTransaction: '100.00' })] });
    const over = decide(s, request({ amount: '100.01' })).res;
    expect(over.decision).toBe('DECLINE');
    expect(over.reason_codes).toEqual(['per_transaction_limit_exceeded']);
    expect(String(over.reason_detail)).toContain('100.01 USD');
    expect(decide(s, request({ amount: '100' }), T0 + 1000).res.decision).toBe('APPROVE');
  });

  it('applies blocked and allowed MCCs', () => {
    const blocked = agent({ mandates: [mandate({ blockedMccs: ['7995'] })] });
    expect(decide(blocked, request({ mcc: '7995' })).res).toMatchObject({
      decision: 'DECLINE',
      gates_fired: ['mcc_blocked'],
      reason_codes: ['mcc_blocked'],
    });
    expect(decide(blocked, request({ mcc: '5411' }), T0 + 1000).res.decision).toBe('APPROVE');

    const allowed = agent({ mandates: [mandate({ allowedMccs: ['5411'] })] });
    expect(decide(allowed, request({ mcc: '5812' })).res.reason_codes).toEqual(['mcc_not_allowed']);
    expect(decide(allowed, request({ mcc: null }), T0 + 1000).res.reason_codes).toEqual(['mcc_not_allowed']);
    expect(decide(allowed, request({ mcc: '5411' }), T0 + 2000).res.decision).toBe('APPROVE');
  });

  it('applies blocked and allowed countries given in alpha-2 or alpha-3 on the mandate', () => {
    const blocked = agent({ mandates: [mandate({ blockedCountries: ['RU'] })] });
    expect(decide(blocked, request({ country: 'RUS' })).res).toMatchObject({
      decision: 'DECLINE',
      gates_fired: ['country_blocked'],
      reason_codes: ['country_blocked'],
    });
    expect(decide(blocked, request({ country: 'FRA' }), T0 + 1000).res.decision).toBe('APPROVE');

    const allowed = agent({ mandates: [mandate({ allowedCountries: ['USA', 'CA'] })] });
    expect(decide(allowed, request({ country: 'CAN' })).res.decision).toBe('APPROVE');
    expect(decide(allowed, request({ country: 'DEU' }), T0 + 1000).res.reason_codes).toEqual(['country_not_allowed']);
  });

  it('declines an expired mandate with mandate_expired', () => {
    const s = agent({ mandates: [mandate({ validUntilMs: T0 - 1 })] });
    const res = decide(s, request()).res;
    expect(res).toMatchObject({
      decision: 'DECLINE',
      gates_fired: ['mandate_expired'],
      reason_codes: ['mandate_expired'],
    });
    expect(res.mandate_id).toBe('mnd_test');
  });

  it('prefers a valid mandate over an expired one', () => {
    const s = agent({
      mandates: [mandate({ id: 'mnd_old', validUntilMs: T0 - 1 }), mandate({ id: 'mnd_new', createdAtMs: T0 - DAY })],
    });
    expect(decide(s, request()).res).toMatchObject({ decision: 'APPROVE', mandate_id: 'mnd_new' });
  });

  it('declines another currency with currency_mismatch (no conversion)', () => {
    const s = agent({ mandates: [mandate({ currency: 'EUR' })] });
    const res = decide(s, request({ currency: 'USD' })).res;
    expect(res).toMatchObject({
      decision: 'DECLINE',
      reason_codes: ['currency_mismatch'],
      gates_fired: ['currency_mismatch'],
    });
    expect(decide(s, request({ currency: 'EUR' }), T0 + 1000).res.decision).toBe('APPROVE');
  });

  it('declines an agent without an active mandate', () => {
    const s = agent({ mandates: [] });
    const res = decide(s, request()).res;
    expect(res).toMatchObject({ decision: 'DECLINE', reason_codes: ['no_active_mandate'], mandate_id: null });
    expect(res.recommendations).toEqual(['Create a mandate for the agent with POST /mandates.']);
  });

  it('declines a suspended or revoked agent with agent_inactive before anything else', () => {
    for (const status of ['SUSPENDED', 'REVOKED']) {
      const s = agent({ status, mandates: [] });
      expect(decide(s, request()).res).toMatchObject({
        decision: 'DECLINE',
        reason_codes: ['agent_inactive'],
        gates_fired: ['agent_inactive'],
        risk_score: null,
      });
    }
  });

  it('checks the crypto rail: rail coverage, chains, assets and counterparties', () => {
    const cardOnly = agent();
    const crypto = { chain: 'base', asset: 'USDC', counterparty: '0xabc' };
    expect(decide(cardOnly, request({ rail: 'CRYPTO', crypto })).res.reason_codes).toEqual(['rail_not_permitted']);

    const s = agent({
      mandates: [
        mandate({
          rails: ['card', 'crypto'],
          allowedChains: ['Base'],
          allowedAssets: ['usdc'],
          allowedCounterparties: ['0xabc'],
        }),
      ],
    });
    expect(decide(s, request({ rail: 'CRYPTO', crypto })).res.decision).toBe('APPROVE');
    expect(decide(s, request({ rail: 'CRYPTO', crypto: { ...crypto, chain: 'solana' } }), T0 + 1000).res).toMatchObject(
      {
        decision: 'DECLINE',
        reason_codes: ['chain_not_allowed'],
        gates_fired: ['crypto_blocked'],
      },
    );
    expect(
      decide(s, request({ rail: 'CRYPTO', crypto: { ...crypto, asset: 'ETH' } }), T0 + 2000).res.reason_codes,
    ).toEqual(['asset_not_allowed']);
    expect(
      decide(s, request({ rail: 'CRYPTO', crypto: { ...crypto, counterparty: '0xdef' } }), T0 + 3000).res.reason_codes,
    ).toEqual(['counterparty_not_allowed']);
  });

  it('applies the onboarding crypto block max_transfer as a per-transfer cap', () => {
    const s = agent({
      mandates: [mandate({ rails: ['crypto'], crypto: { chains: ['base'], assets: ['USDC'], max_transfer: '25' } })],
    });
    const crypto = { chain: 'base', asset: 'USDC' };
    expect(decide(s, request({ rail: 'CRYPTO', crypto, amount: '25' })).res.decision).toBe('APPROVE');
    expect(decide(s, request({ rail: 'CRYPTO', crypto, amount: '25.01' }), T0 + 1000).res.reason_codes).toEqual([
      'crypto_max_transfer_exceeded',
    ]);
  });
});
