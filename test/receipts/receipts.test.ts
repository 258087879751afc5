// Signed decision receipts over HTTP on real PostgreSQL: every /authorize response carries a
// compact JWS that a merchant verifies offline with jose against /.well-known/jwks.json; a
// changed payload or signature byte fails; an idempotent replay returns the same receipt; and
// after a key rotation, receipts of the old key verify while it is published and stop verifying
// once its retention has passed.
import { compactVerify, createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, query, setup } from '../fixtures/engine-setup.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let fx: EngineFixture;

beforeAll(async () => {
  server = await startTestServer();
  fx = await setup(server, {
    limits: { max_amount_per_transaction: '20.00', max_daily_amount: '1000.00', currency: 'USD' },
  });
});
afterAll(async () => {
  await server?.close();
});

const decoder = new TextDecoder();

async function jwks(): Promise<JSONWebKeySet> {
  const res = await request<JSONWebKeySet>(server, 'GET', '/.well-known/jwks.json');
  expect(res.status).toBe(200);
  return res.body;
}

/** The receipt with one base64url character of a part (1 payload, 2 signature) changed. */
function flip(jws: string, part: 1 | 2): string {
  const parts = jws.split('.');
  const s = parts[part] as string;
  const i = Math.floor(s.length / 2);
  parts[part] = `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
  return parts.join('.');
}

async function decide(over: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const res = await authorize(server, fx.apiKey, authorizeBody(fx.agentId, over));
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('decision receipts', () => {
  it('verify with createRemoteJWKSet over the published JWKS, payload matching the decision', async () => {
    const res = await decide({ amount: 10, merchant_id: 'mer_corner_42' });
    expect(res.decision).toBe('APPROVE');
    const receipt = res.receipt as string;
    expect(receipt.split('.')).toHaveLength(3);
    const keySet = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await compactVerify(receipt, keySet, { algorithms: ['EdDSA'] });
    expect(protectedHeader).toEqual({ alg: 'EdDSA', kid: expect.stringMatching(/^rk_/), typ: 'asas-receipt+jwt' });
    const claims = JSON.parse(decoder.decode(payload));
    expect(claims).toEqual({
      authorization_id: res.authorization_id,
      agent_id: fx.agentId,
      mandate_id: res.mandate_id,
      amount: '10.00',
      currency: 'USD',
      merchant: 'mer_corner_42',
      decision: 'APPROVE',
      iat: Math.floor(Date.parse(res.timestamp as string) / 1000),
    });
    expect(Object.keys(claims)).toEqual([
      'authorization_id',
      'agent_id',
      'mandate_id',
      'amount',
      'currency',
      'merchant',
      'decision',
      'iat',
    ]);
  });

  it('attest declines too, and the merchant is the merchant_name when no merchant_id is given', async () => {
    const res = await decide({ amount: '25.5' });
    expect(res.decision).toBe('DECLINE');
    const { payload } = await compactVerify(res.receipt as string, createLocalJWKSet(await jwks()));
    expect(JSON.parse(decoder.decode(payload))).toMatchObject({
      authorization_id: res.authorization_id,
      decision: 'DECLINE',
      amount: '25.50',
      merchant: 'Corner Grocery',
    });
  });

  it('fail to verify when a payload or a signature byte is changed', async () => {
    const res = await decide({ amount: 10 });
    const keySet = createLocalJWKSet(await jwks());
    const receipt = res.receipt as string;
    await expect(compactVerify(receipt, keySet)).resolves.toBeTruthy();
    await expect(compactVerify(flip(receipt, 1), keySet)).rejects.toThrow();
    await expect(compactVerify(flip(receipt, 2), keySet)).rejects.toThrow();
    // An amount rewritten in the payload (re-encoded, the signature kept) fails as well.
    const [h, p, s] = receipt.split('.') as [string, string, string];
    const forged = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
    forged.amount = '1000.00';
    const forgedPayload = Buffer.from(JSON.stringify(forged)).toString('base64url');
    await expect(compactVerify(`${h}.${forgedPayload}.${s}`, keySet)).rejects.toThrow(/signature/i);
  });

  it('an idempotent replay returns the same receipt, byte for byte', async () => {
    const body = authorizeBody(fx.agentId, { amount: 10, idempotency_key: `receipt-replay-${Date.now()}` });
    const first = await authorize(server, fx.apiKey, body);
    const again = await authorize(server, fx.apiKey, body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(typeof first.body.receipt).toBe('string');
    expect(again.body.receipt).toBe(first.body.receipt);
    // It is part of the stored response.
    const [row] = await query(
      server,
      'live',
      (sql) =>
        sql<{ receipt: string }[]>`select response->>'receipt' as receipt from authorization_responses
        where authorization_id = ${first.body.authorization_id as string}`,
    );
    expect(row?.receipt).toBe(first.body.receipt);
  });

  it('survive a key rotation: old receipts verify while their key is published, and not after', async () => {
    const before = await decide({ amount: 10 });
    const oldKid = decodeProtectedHeader(before.receipt as string).kid as string;

    const rotated = await request<{
      kid: string;
      signs_from: string;
      retired: string[];
      retired_published_until: string;
    }>(server, 'POST', '/admin/v1/receipt-keys/rotate', {
      adminKey: server.adminKey,
      body: { lead_seconds: 0, retention_days: 30 },
    });
    expect(rotated.status, rotated.text).toBe(201);
    expect(rotated.body.kid).toMatch(/^rk_/);
    expect(rotated.body.retired).toEqual([oldKid]);
    const retention = Date.parse(rotated.body.retired_published_until) - Date.parse(rotated.body.signs_from);
    expect(retention).toBe(30 * 86_400_000);

    const after = await decide({ amount: 10 });
    expect(decodeProtectedHeader(after.receipt as string).kid).toBe(rotated.body.kid);
    const published = await jwks();
    const kids = published.keys.map((k) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([oldKid, rotated.body.kid]));
    // Token keys are published beside them, unchanged.
    expect(kids.some((k) => k?.startsWith('sk_'))).toBe(true);
    const keySet = createLocalJWKSet(published);
    await expect(compactVerify(before.receipt as string, keySet)).resolves.toBeTruthy();
    await expect(compactVerify(after.receipt as string, keySet)).resolves.toBeTruthy();

    // The old key's retention ends in a second; the next rotation reloads the key set.
    await query(
      server,
      'live',
      (sql) => sql`update receipt_keys set published_until = now() + interval '1 second' where kid = ${oldKid}`,
    );
    const again = await request(server, 'POST', '/admin/v1/receipt-keys/rotate', {
      adminKey: server.adminKey,
      body: { lead_seconds: 0 },
    });
    expect(again.status, again.text).toBe(201);
    await new Promise((r) => setTimeout(r, 1_200));
    const later = await jwks();
    expect(later.keys.map((k) => k.kid)).not.toContain(oldKid);
    await expect(compactVerify(before.receipt as string, createLocalJWKSet(later))).rejects.toThrow();
    // The key rotated out second is still within its retention: its receipts still verify.
    await expect(compactVerify(after.receipt as string, createLocalJWKSet(later))).resolves.toBeTruthy();
  });

  it('rejects a rotation body out of range with the error envelope', async () => {
    const res = await request(server, 'POST', '/admin/v1/receipt-keys/rotate', {
      adminKey: server.adminKey,
      body: { retention_days: 0 },
    });
    const env = expectEnvelope(res, 422, 'validation_error');
    expect(env.details?.map((d) => d.field)).toEqual(['retention_days']);
  });
});

describe('npm run admin -- rotate-receipt-key', () => {
  it('rotates through the operator plane and prints the new key', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { fileURLToPath } = await import('node:url');
    const cli = fileURLToPath(new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/admin/cli.js`, import.meta.url));
    const env = { PATH: process.env.PATH ?? '', ADMIN_KEY: server.adminKey };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [cli, 'rotate-receipt-key', '--lead-seconds', '0', '--retention-days', '7', '--url', server.url, '--json'],
      { env },
    );
    const out = JSON.parse(stdout) as { kid: string; retired: string[] };
    expect(out.kid).toMatch(/^rk_/);
    expect(out.retired.length).toBeGreaterThan(0);
    const res = await decide({ amount: 10 });
    expect(decodeProtectedHeader(res.receipt as string).kid).toBe(out.kid);
  });
});
