import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mandateBody, onboardAgent } from '../fixtures/onboarding.js';
import { type ProvisionedClient, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn, type TestSql } from '../fixtures/test-db.js';

let server: TestServer;
let client: ProvisionedClient;
let other: ProvisionedClient;
let agentId: string;
let principalId: string;
let live: TestSql;

beforeAll(async () => {
  server = await startTestServer();
  client = await provisionClient(server);
  other = await provisionClient(server, { name: 'Other Client' });
  const o = await onboardAgent(server, client.liveKey, client.programId);
  agentId = o.agentId;
  principalId = o.principalId;
  live = sqlOn(server, 'live');
});
afterAll(async () => {
  await server?.close();
});

const postMandate = (body: unknown, key = client.liveKey, agent = agentId) =>
  request(server, 'POST', `/api/v1/agents/${agent}/mandates`, { apiKey: key, body });

/** The documented rule, written independently: sorted keys, no whitespace. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

describe('POST /agents/{agent_id}/mandates', () => {
  it('creates an ACTIVE card mandate with numeric amounts, alpha-3 countries and a verifiable hash', async () => {
    const res = await postMandate(
      mandateBody({
        limits: { max_amount_per_transaction: '250.10', max_daily_amount: 1000.2, currency: 'EUR' },
        allowed_mccs: ['5812', '5411'],
        allowed_countries: ['us', 'DEU', 'FR'],
      }),
    );
    expect(res.status).toBe(201);
    const m = res.body as Record<string, unknown>;
    expect(m).toMatchObject({
      agent_id: agentId,
      program_id: client.programId,
      status: 'ACTIVE',
      rails: ['card'],
      limits: { max_amount_per_transaction: 250.1, max_daily_amount: 1000.2, currency: 'EUR' },
      allowed_mccs: ['5411', '5812'],
      allowed_countries: ['DEU', 'FRA', 'USA'],
      crypto: null,
    });
    expect(m.id).toMatch(/^mnd_/);
    const validDays = (Date.parse(m.valid_until as string) - Date.parse(m.created_at as string)) / 86_400_000;
    expect(validDays).toBeGreaterThan(360);
    expect(validDays).toBeLessThan(370);

    const terms = {
      agent_id: agentId,
      principal_id: principalId,
      rails: ['card'],
      limits: { currency: 'EUR', max_amount_per_transaction: '250.10', max_daily_amount: '1000.20' },
      allowed_mccs: ['5411', '5812'],
      allowed_countries: ['DEU', 'FRA', 'USA'],
      crypto: null,
      valid_from: m.valid_from,
      valid_until: m.valid_until,
    };
    expect(m.mandate_hash).toBe(`sha256:${createHash('sha256').update(canonical(terms)).digest('hex')}`);

    // Stored exactly (NUMERIC) where the runtime plane and the decision engine read it.
    const [row] = await live`select principal_id, currency, max_amount_per_transaction::text as per_tx,
      max_daily_amount::text as daily, allowed_countries, rails, mandate_hash from mandates where id = ${m.id as string}`;
    expect(row).toEqual({
      principal_id: principalId,
      currency: 'EUR',
      per_tx: '250.1',
      daily: '1000.2',
      allowed_countries: ['DEU', 'FRA', 'USA'],
      rails: ['card'],
      mandate_hash: m.mandate_hash,
    });
  });

  it('creates a crypto mandate with its crypto block, copied into allowed_chains/assets', async () => {
    const res = await postMandate(
      mandateBody({
        rails: ['crypto', 'card'],
        crypto: { chains: ['base', 'ethereum'], assets: ['USDC'], max_transfer: '500.12345678' },
        valid_until: '2099-01-01T00:00:00Z',
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      rails: ['card', 'crypto'],
      crypto: { chains: ['base', 'ethereum'], assets: ['USDC'], max_transfer: 500.12345678 },
      valid_until: '2099-01-01T00:00:00.000Z',
    });
    const [row] =
      await live`select allowed_chains, allowed_assets, crypto from mandates where id = ${res.body.id as string}`;
    expect(row).toEqual({
      allowed_chains: ['base', 'ethereum'],
      allowed_assets: ['USDC'],
      crypto: { chains: ['base', 'ethereum'], assets: ['USDC'], max_transfer: '500.12345678' },
    });
  });

  it('requires the crypto block iff the crypto rail', async () => {
    const missing = expectEnvelope(await postMandate(mandateBody({ rails: ['crypto'] })), 422, 'validation_error');
    expect(missing.details?.[0]?.field).toBe('crypto');
    const extra = expectEnvelope(
      await postMandate(mandateBody({ rails: ['card'], crypto: { chains: ['base'], assets: ['USDC'] } })),
      422,
      'validation_error',
    );
    expect(extra.details?.[0]?.field).toBe('crypto');
  });

  it('refuses limits that are not > 0, an unknown currency, country or rail, and a past valid_until', async () => {
    const zero = expectEnvelope(
      await postMandate(
        mandateBody({ limits: { max_amount_per_transaction: '0.00', max_daily_amount: '0', currency: 'USD' } }),
      ),
      422,
      'validation_error',
    );
    expect(zero.details?.map((d) => d.field)).toEqual(['limits.max_amount_per_transaction', 'limits.max_daily_amount']);
    // A number <= 0 already fails the schema.
    expectEnvelope(
      await postMandate(
        mandateBody({ limits: { max_amount_per_transaction: -5, max_daily_amount: 10, currency: 'USD' } }),
      ),
      422,
      'validation_error',
    );
    const currency = expectEnvelope(
      await postMandate(
        mandateBody({ limits: { max_amount_per_transaction: 1, max_daily_amount: 2, currency: 'XYZ' } }),
      ),
      422,
      'validation_error',
    );
    expect(currency.details?.[0]?.field).toBe('limits.currency');
    const country = expectEnvelope(
      await postMandate(mandateBody({ allowed_countries: ['US', 'ZZ'] })),
      422,
      'validation_error',
    );
    expect(country.details?.[0]?.field).toBe('allowed_countries.1');
    expectEnvelope(await postMandate(mandateBody({ rails: ['wire'] })), 422, 'validation_error');
    const past = expectEnvelope(
      await postMandate(mandateBody({ valid_until: '2020-01-01T00:00:00Z' })),
      422,
      'validation_error',
    );
    expect(past.details?.[0]?.field).toBe('valid_until');
    expectEnvelope(await postMandate({ rails: ['card'] }), 422, 'validation_error');
  });

  it("answers 404 principal_not_found for another Client's agent or an unknown one", async () => {
    expectEnvelope(await postMandate(mandateBody(), other.liveKey), 404, 'principal_not_found');
    expectEnvelope(await postMandate(mandateBody(), client.liveKey, 'agt_unknown'), 404, 'principal_not_found');
    // The live agent does not exist in the sandbox database.
    expectEnvelope(await postMandate(mandateBody(), client.sandboxKey), 404, 'principal_not_found');
  });
});
