// Secrets at rest (issue 11): the token-signing private key and webhook signing secrets are
// stored sealed under SECRETS_KEY (AES-256-GCM, docs/secrets.md), never in plaintext; tokens
// still verify and webhooks are still signed so that a receiver's check passes.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, insertOutbox } from '../fixtures/outbox.js';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { keyIdOf, newSecretsKey, openEnvelope, signedWith } from '../fixtures/secrets.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn, type TestSql } from '../fixtures/test-db.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

const KEY = newSecretsKey();
let server: TestServer;
let receiver: Receiver;
let live: TestSql;
let clientId: string;
let principalId: string;
let principalKey: string;

beforeAll(async () => {
  server = await startTestServer({ SECRETS_KEY: KEY });
  receiver = await startReceiver();
  live = sqlOn(server, 'live');
  clientId = (await provisionClient(server)).clientId;
  principalId = await insertPrincipalRow(server, 'live', clientId);
  principalKey = (await issuePrincipalKey(server, principalId, 'live')).apiKey;
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

describe('secrets at rest', () => {
  it('stores a webhook signing secret sealed, and signs deliveries and tests with it', async () => {
    const created = await request(server, 'POST', '/api/v1/webhooks', {
      apiKey: principalKey,
      body: { url: `${receiver.url}/hook`, event_types: ['*'] },
    });
    expect(created.status).toBe(201);
    const id = (created.body.webhook as { id: string }).id;
    const secret = created.body.signing_secret as string;
    expect(secret).toMatch(/^whsec_/);

    const [row] = await live<Record<string, unknown>[]>`select * from webhooks where id = ${id}`;
    expect(row?.secret).toBeNull();
    const sealed = row?.secret_sealed as string;
    expect(sealed.startsWith(`asas1.${keyIdOf(KEY)}.`)).toBe(true);
    const text = JSON.stringify(row);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice('whsec_'.length));
    // The documented format opens with the key and the row's additional data, and only so.
    expect(openEnvelope(sealed, KEY, `webhooks.secret:${id}`).toString('utf8')).toBe(secret);
    expect(() => openEnvelope(sealed, KEY, 'webhooks.secret:wh_other')).toThrow();

    // A delivery from the outbox, through the dispatcher.
    const event = envelope('gate.fired', { agent_id: 'agt_1', gate: 'mandate_exceeded', decision: 'DECLINE' });
    await insertOutbox(server.dbUrls.live, clientId, principalId, [event]);
    const [delivered] = await receiver.waitFor(1, 10_000, (r) => r.body.includes(event.event_id));
    expect(delivered !== undefined && signedWith(delivered, secret)).toBe(true);
    expect(delivered !== undefined && signedWith(delivered, 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=')).toBe(
      false,
    );

    // The test endpoint signs the same way.
    const tested = await request(server, 'POST', `/api/v1/webhooks/${id}/test`, { apiKey: principalKey });
    expect(tested.status).toBe(200);
    const testEventId = tested.body.event_id as string;
    const [sample] = await receiver.waitFor(1, 10_000, (r) => r.body.includes(testEventId));
    expect(sample !== undefined && signedWith(sample, secret)).toBe(true);
  });

  it('stores the receipt signing key sealed, and publishes its public half', async () => {
    const keys = await live<{ kid: string; private_key_sealed: string }[]>`
      select kid, private_key_sealed from receipt_keys`;
    expect(keys.length).toBe(1);
    const k = keys[0] as (typeof keys)[number];
    expect(k.private_key_sealed.startsWith(`asas1.${keyIdOf(KEY)}.`)).toBe(true);
    const der = openEnvelope(k.private_key_sealed, KEY, `receipt_keys.private_key:${k.kid}`);
    const publicX = (
      createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' }) as {
        x: string;
      }
    ).x;
    const jwks = await request<{ keys: { kid: string; x: string }[] }>(server, 'GET', '/.well-known/jwks.json');
    expect(jwks.body.keys).toContainEqual(expect.objectContaining({ kid: k.kid, x: publicX }));
  });

  it('stores the token signing key sealed, and tokens verify', async () => {
    const keys = await live<{ kid: string; private_key_pkcs8: Buffer | null; private_key_sealed: string }[]>`
      select kid, private_key_pkcs8, private_key_sealed from signing_keys`;
    expect(keys.length).toBe(1);
    const k = keys[0] as (typeof keys)[number];
    expect(k.private_key_pkcs8).toBeNull();
    expect(k.private_key_sealed.startsWith(`asas1.${keyIdOf(KEY)}.`)).toBe(true);
    const der = openEnvelope(k.private_key_sealed, KEY, `signing_keys.private_key:${k.kid}`);
    const publicX = (
      createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' }) as {
        x: string;
      }
    ).x;
    const jwks = await request<{ keys: { kid: string; x: string }[] }>(server, 'GET', '/.well-known/jwks.json');
    // Token keys (sk_) beside the receipt keys (rk_, issue 17).
    expect(jwks.body.keys.filter((j) => j.kid.startsWith('sk_'))).toEqual([
      expect.objectContaining({ kid: k.kid, x: publicX }),
    ]);

    const token = await request<{ access_token: string }>(server, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: principalId, client_secret: principalKey },
    });
    expect(token.status).toBe(200);
    const me = await request(server, 'GET', `/api/v1/principals/${principalId}`, { bearer: token.body.access_token });
    expect(me.status).toBe(200);
  });
});
