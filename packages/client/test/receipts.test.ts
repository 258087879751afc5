// Receipt verification (@asas/client/receipts) of a real decision's receipt: against the
// service's published keys and against a saved copy of them; an altered receipt, and an access
// token (signed by the same service, but not a receipt), fail.
import { unwrap } from '@asas/client';
import { createReceiptVerifier, ReceiptVerificationError } from '@asas/client/receipts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/fixtures/server.js';
import { groceries, type OnboardedPrincipal, onboardThroughClient } from './fixtures.js';

let server: TestServer;
let principal: OnboardedPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  principal = await onboardThroughClient(server);
});
afterAll(async () => {
  await server?.close();
});

describe('receipt verification', () => {
  it('verifies a real decision receipt online and offline; an altered one fails', async () => {
    const decision = unwrap(
      await principal.asas.POST('/api/v1/authorize', { body: groceries(principal.agentId, { merchant_id: 'mer_7' }) }),
    );
    expect(decision.decision).toBe('APPROVE');
    const receipt = decision.receipt as string;

    const online = await createReceiptVerifier({ baseUrl: server.url })(receipt);
    expect(online.kid).toMatch(/^rk_/);
    expect(online.claims).toEqual({
      authorization_id: decision.authorization_id,
      agent_id: principal.agentId,
      mandate_id: principal.mandateId,
      amount: '42.50',
      currency: 'USD',
      merchant: 'mer_7',
      decision: 'APPROVE',
      iat: Math.floor(Date.parse(decision.timestamp) / 1000),
    });

    const jwks = unwrap(await principal.asas.GET('/.well-known/jwks.json'));
    const offline = createReceiptVerifier({ jwks });
    expect((await offline(receipt)).claims.authorization_id).toBe(decision.authorization_id);

    const [header, payload, signature] = receipt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const altered = Buffer.from(JSON.stringify({ ...claims, amount: '4.25' })).toString('base64url');
    await expect(offline(`${header}.${altered}.${signature}`)).rejects.toBeInstanceOf(ReceiptVerificationError);
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BA' : 'AA'}`;
    await expect(offline(`${header}.${payload}.${flipped}`)).rejects.toBeInstanceOf(ReceiptVerificationError);
  });

  it('refuses an access token: signed by the service, but not a receipt', async () => {
    const token = unwrap(
      await principal.asas.POST('/oauth/token', {
        body: {
          grant_type: 'client_credentials',
          client_id: principal.principalId,
          client_secret: principal.principalKey,
        },
      }),
    );
    await expect(createReceiptVerifier({ baseUrl: server.url })(token.access_token)).rejects.toThrow(
      /not a decision receipt|does not verify/,
    );
  });
});
