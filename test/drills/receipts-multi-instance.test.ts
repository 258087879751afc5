// Decision receipts with two instances on one database (issue 17): one receipt key for both,
// and a rotation made through one instance reaches the other. The next key is published by
// every instance before any instance signs with it (lead time > the 15 s reload), so every
// receipt issued during the rotation verifies against the JWKS of either instance.
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app/app.js';
import { joinInstance } from '../fixtures/drills/instances.js';
import { deleteStream, ownStream } from '../fixtures/drills/nats-stream.js';
import { authorize, authorizeBody, type EngineFixture, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const NATS = ownStream('rcptmi');
const LEAD_SECONDS = 20;
let a: TestServer;
let b: RunningApp;
let fx: EngineFixture;

beforeAll(async () => {
  a = await startTestServer(NATS);
  b = await joinInstance(a, {
    RATE_LIMIT_REQUESTS_PER_SECOND: '0',
    RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '0',
    ...NATS,
  });
  fx = await setup(a, {
    limits: { max_amount_per_transaction: '20.00', max_daily_amount: '100000.00', currency: 'USD' },
  });
  await relaxRateGates(a, fx.apiKey);
}, 60_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await deleteStream(NATS.NATS_STREAM);
});

async function jwks(server: { url: string }): Promise<JSONWebKeySet> {
  const res = await request<JSONWebKeySet>(server, 'GET', '/.well-known/jwks.json');
  expect(res.status).toBe(200);
  return res.body;
}

async function receiptVia(server: { url: string }): Promise<string> {
  const res = await authorize(server, fx.apiKey, authorizeBody(fx.agentId, { amount: 10 }));
  expect(res.status, res.text).toBe(200);
  expect(typeof res.body.receipt).toBe('string');
  return res.body.receipt as string;
}

const receiptKids = (set: JSONWebKeySet) => set.keys.map((k) => k.kid as string).filter((k) => k.startsWith('rk_'));

describe('receipts on several instances', () => {
  it('share one key, and a rotation is published everywhere before anyone signs with it', async () => {
    const [ka, kb] = [receiptKids(await jwks(a)), receiptKids(await jwks(b))];
    expect(ka).toHaveLength(1);
    expect(kb).toEqual(ka);
    const oldKid = ka[0] as string;

    const rotated = await request<{ kid: string; signs_from: string }>(a, 'POST', '/admin/v1/receipt-keys/rotate', {
      adminKey: a.adminKey,
      body: { lead_seconds: LEAD_SECONDS },
    });
    expect(rotated.status, rotated.text).toBe(201);
    const newKid = rotated.body.kid;
    const signsFrom = Date.parse(rotated.body.signs_from);

    // Until the new key signs everywhere (its start plus one reload), every receipt from either
    // instance verifies against the other instance's current JWKS.
    const until = signsFrom + 17_000;
    const seen = new Set<string>();
    while (Date.now() < until) {
      for (const [signer, other] of [
        [a, b],
        [b, a],
      ] as const) {
        const receipt = await receiptVia(signer);
        const kid = decodeProtectedHeader(receipt).kid as string;
        seen.add(kid);
        if (Date.now() < signsFrom - 1_000) expect(kid).toBe(oldKid);
        await expect(compactVerify(receipt, createLocalJWKSet(await jwks(other)))).resolves.toBeTruthy();
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(seen).toEqual(new Set([oldKid, newKid]));
    // Both now sign with the new key, and both still publish the old one (its retention).
    for (const s of [a, b]) {
      expect(decodeProtectedHeader(await receiptVia(s)).kid).toBe(newKid);
      expect(receiptKids(await jwks(s)).sort()).toEqual([oldKid, newKid].sort());
    }
  }, 90_000);
});
