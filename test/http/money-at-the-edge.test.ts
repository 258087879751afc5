// Money at the edge: a JSON-number amount is read from the text the client wrote, never through
// a binary float (1e-7 used to round into an approvable amount), and an amount carries at most
// its currency's ISO 4217 minor units (USD 2, JPY 0, BHD 3), on /authorize and on every mandate
// limit of both planes. Over HTTP on the real service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBody, type EngineFixture, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import { mandateBody, onboardBody } from '../fixtures/onboarding.js';
import { expectEnvelope, type HttpResult, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let usd: EngineFixture;
let jpy: EngineFixture;
let bhd: EngineFixture;

beforeAll(async () => {
  server = await startTestServer();
  usd = await setup(server, {
    limits: { max_amount_per_transaction: '250.00', max_daily_amount: '100000.00', currency: 'USD' },
  });
  jpy = await setup(server, {
    limits: { max_amount_per_transaction: '30000', max_daily_amount: '1000000', currency: 'JPY' },
  });
  bhd = await setup(server, {
    limits: { max_amount_per_transaction: '100.125', max_daily_amount: '1000.000', currency: 'BHD' },
  });
  for (const f of [usd, jpy, bhd]) await relaxRateGates(server, f.apiKey);
});
afterAll(async () => {
  await server?.close();
});

/** POST /authorize with `amount` spliced into the JSON text exactly as given (e.g. 1e-7). */
function authorizeRaw(f: EngineFixture, amountText: string, currency: string): Promise<HttpResult> {
  const body = JSON.stringify(authorizeBody(f.agentId, { amount: '__AMOUNT__', currency }));
  return request(server, 'POST', '/api/v1/authorize', {
    apiKey: f.apiKey,
    raw: body.replace('"__AMOUNT__"', amountText),
    headers: { 'content-type': 'application/json' },
  });
}

function expectAmountRefused(res: HttpResult, field = 'amount'): string {
  const env = expectEnvelope(res, 422, 'validation_error');
  const detail = (env.details as { field: string; message: string }[] | undefined)?.find((d) => d.field === field);
  expect(detail, res.text).toBeDefined();
  return detail?.message ?? '';
}

describe('POST /authorize amount', () => {
  it('refuses 1e-7 USD (a JSON number below the currency minor unit) instead of approving it', async () => {
    const message = expectAmountRefused(await authorizeRaw(usd, '1e-7', 'USD'));
    expect(message).toMatch(/at most 2 decimal places for USD/);
  });

  it('reads exponent notation exactly: 1E2 and 1.5e1 are 100 and 15', async () => {
    for (const [text, value] of [
      ['1E2', 100],
      ['1.5e1', 15],
      ['2500e-2', 25],
    ] as const) {
      const res = await authorizeRaw(usd, text, 'USD');
      expect(res.status, res.text).toBe(200);
      expect(res.body.decision, res.text).toBe('APPROVE');
      expect(res.body.amount).toBe(value);
    }
  });

  it('reads a JSON number from its source digits, not its float (0.1000000000000000055 is not 0.1)', async () => {
    expectAmountRefused(await authorizeRaw(usd, '0.1000000000000000055511151231257827', 'USD'));
    const res = await authorizeRaw(usd, '0.10', 'USD');
    expect(res.status, res.text).toBe(200);
    expect(res.body.amount).toBe(0.1);
  });

  it('refuses 10.123 USD as a number and as a string, accepts 10.12', async () => {
    expectAmountRefused(await authorizeRaw(usd, '10.123', 'USD'));
    expectAmountRefused(await authorizeRaw(usd, '"10.123"', 'USD'));
    expect((await authorizeRaw(usd, '10.12', 'USD')).body.decision).toBe('APPROVE');
  });

  it('refuses 10.50 JPY (JPY has no minor units) as a number and as a string, accepts 1050', async () => {
    const message = expectAmountRefused(await authorizeRaw(jpy, '10.50', 'JPY'));
    expect(message).toMatch(/whole number: JPY has no minor units/);
    expectAmountRefused(await authorizeRaw(jpy, '"10.50"', 'JPY'));
    expectAmountRefused(await authorizeRaw(jpy, '1e-1', 'JPY'));
    const ok = await authorizeRaw(jpy, '1050', 'JPY');
    expect(ok.body.decision, ok.text).toBe('APPROVE');
    expect(ok.body.amount).toBe(1050);
  });

  it('accepts three decimal places for BHD and refuses four', async () => {
    const ok = await authorizeRaw(bhd, '10.125', 'BHD');
    expect(ok.body.decision, ok.text).toBe('APPROVE');
    expect(ok.body.amount).toBe(10.125);
    expectAmountRefused(await authorizeRaw(bhd, '"10.1255"', 'BHD'));
  });

  it('refuses an exponent no amount can have with 422, never a 5xx', async () => {
    expectAmountRefused(await authorizeRaw(usd, '1e-99', 'USD'));
    expectAmountRefused(await authorizeRaw(usd, '1e999', 'USD'));
    expectAmountRefused(
      await authorizeRaw(usd, '0.000000000000000000000000000000000000000000000000000000000000000000001e70', 'USD'),
    );
  });
});

describe('mandate limits', () => {
  it('onboarding plane: POST /agents/{id}/mandates refuses 10.123 USD, 10.50 JPY and 1e-7, naming the field', async () => {
    const path = `/api/v1/agents/${usd.agentId}/mandates`;
    const cases: [string, string, string][] = [
      ['10.123', 'USD', 'limits.max_amount_per_transaction'],
      ['10.50', 'JPY', 'limits.max_amount_per_transaction'],
      ['1e-7', 'USD', 'limits.max_amount_per_transaction'],
    ];
    for (const [amount, currency, field] of cases) {
      const body = JSON.stringify(
        mandateBody({ limits: { max_amount_per_transaction: '__A__', max_daily_amount: '5000', currency } }),
      ).replace('"__A__"', amount);
      const res = await request(server, 'POST', path, {
        apiKey: usd.client.liveKey,
        raw: body,
        headers: { 'content-type': 'application/json' },
      });
      expectAmountRefused(res, field);
    }
    const ok = await request(server, 'POST', path, {
      apiKey: usd.client.liveKey,
      raw: JSON.stringify(
        mandateBody({ limits: { max_amount_per_transaction: '__A__', max_daily_amount: '5000', currency: 'BHD' } }),
      ).replace('"__A__"', '10.125'),
      headers: { 'content-type': 'application/json' },
    });
    expect(ok.status, ok.text).toBe(201);
    expect((ok.body.limits as Record<string, unknown>).max_amount_per_transaction).toBe(10.125);
  });

  it('onboarding plane: POST /onboard refuses a number limit below the minor unit, naming mandate.limits', async () => {
    const body = JSON.stringify(
      onboardBody(usd.client.programId, {
        mandate: mandateBody({
          limits: { max_amount_per_transaction: '__A__', max_daily_amount: 50, currency: 'USD' },
        }),
      }),
    ).replace('"__A__"', '1e-7');
    const res = await request(server, 'POST', '/api/v1/onboard', {
      apiKey: usd.client.liveKey,
      raw: body,
      headers: { 'content-type': 'application/json' },
    });
    expectAmountRefused(res, 'mandate.limits.max_amount_per_transaction');
  });

  it('runtime plane: POST /mandates holds every limit to the currency minor units', async () => {
    const base = {
      agent_id: jpy.agentId,
      valid_until: new Date(Date.now() + 86_400_000).toISOString(),
      max_amount_per_transaction: '__A__',
      max_daily_amount: '__D__',
      currency: 'JPY',
    };
    const send = (a: string, d: string, currency = 'JPY') =>
      request(server, 'POST', '/api/v1/mandates', {
        apiKey: jpy.apiKey,
        raw: JSON.stringify({ ...base, currency })
          .replace('"__A__"', a)
          .replace('"__D__"', d),
        headers: { 'content-type': 'application/json' },
      });
    expectAmountRefused(await send('100.5', '1000'), 'max_amount_per_transaction');
    expectAmountRefused(await send('100', '"1000.0"'), 'max_daily_amount');
    expectAmountRefused(await send('1e-7', '1000', 'USD'), 'max_amount_per_transaction');
    const ok = await send('1E3', '5000');
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.max_amount_per_transaction).toBe(1000);
  });
});
