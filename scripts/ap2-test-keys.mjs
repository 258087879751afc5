#!/usr/bin/env node
// Test keys and AP2 Payment Mandates for trying the portable mandates by hand (README "Portable
// mandates (AP2)", docs/ap2.md). Never for production: the private keys are written in clear.
//
//   node scripts/ap2-test-keys.mjs init <dir>
//       an issuer key (ES256, kid test-issuer-<random>) and an agent key (Ed25519), in <dir>
//   node scripts/ap2-test-keys.mjs issuer-jwks <dir>
//       the body of PUT /api/v1/principals/{principal_id}/ap2-issuer-keys
//   node scripts/ap2-test-keys.mjs agent <dir> <principal_id> [display_name]
//       the body of POST /api/v1/agents: the agent's public key and its registration proof
//   node scripts/ap2-test-keys.mjs open <dir> [constraints-json]
//       an open Payment Mandate (vct mandate.payment.open.1) for the agent key, valid 30 days
//   node scripts/ap2-test-keys.mjs close <dir> <open> <amount-minor-units> <payee_id> [transaction_id]
//       the chain open~~closed: a closed Payment Mandate (vct mandate.payment.1) signed by the agent key
//
// Uses the SD-JWT libraries the service uses (@sd-jwt/core, @sd-jwt/crypto-nodejs).
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDJwtInstance } from '@sd-jwt/core';
import { digest, ES256, generateSalt } from '@sd-jwt/crypto-nodejs';

const [command, dir, ...rest] = process.argv.slice(2);
const usage = () => {
  process.stderr.write(
    'usage: ap2-test-keys.mjs init|issuer-jwks|agent|open|close <dir> ... (see the head of this file)\n',
  );
  process.exit(2);
};
if (command === undefined || dir === undefined) usage();

const read = (name) => JSON.parse(readFileSync(join(dir, name), 'utf8'));
const print = (v) => process.stdout.write(`${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
const hashOf = (token) =>
  createHash('sha256')
    .update(token.endsWith('~') ? token : `${token}~`, 'ascii')
    .digest('base64url');

const DEFAULT_CONSTRAINTS = [
  { type: 'payment.amount_range', currency: 'USD', max: 5000, min: 500 },
  { type: 'payment.budget', max: 60.0, currency: 'USD' },
  {
    type: 'payment.allowed_payees',
    allowed: [
      { id: 'merchant_1', name: 'Demo Merchant' },
      { id: 'merchant_2', name: 'Other Merchant' },
    ],
  },
  { type: 'payment.agent_recurrence', frequency: 'ON_DEMAND', max_occurrences: 5 },
  { type: 'payment.reference', conditional_transaction_id: 'checkout-reference-1' },
];

async function main() {
  switch (command) {
    case 'init': {
      mkdirSync(dir, { recursive: true });
      const issuer = await ES256.generateKeyPair();
      // A kid of its own: a Principal's kid never names two keys (rotation takes a new kid).
      const kid = `test-issuer-${randomBytes(4).toString('hex')}`;
      writeFileSync(join(dir, 'issuer.private.jwk.json'), JSON.stringify(issuer.privateKey), { mode: 0o600 });
      writeFileSync(join(dir, 'issuer.public.jwk.json'), JSON.stringify({ ...issuer.publicKey, kid, alg: 'ES256' }));
      const agent = generateKeyPairSync('ed25519');
      writeFileSync(join(dir, 'agent.private.jwk.json'), JSON.stringify(agent.privateKey.export({ format: 'jwk' })), {
        mode: 0o600,
      });
      const { x } = agent.publicKey.export({ format: 'jwk' });
      writeFileSync(join(dir, 'agent.public.jwk.json'), JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x }));
      print(`wrote the issuer key (kid ${kid}) and the agent key to ${dir}`);
      return;
    }
    case 'issuer-jwks':
      print({ keys: [read('issuer.public.jwk.json')] });
      return;
    case 'agent': {
      const [principalId, name = 'AP2 shopping agent'] = rest;
      if (principalId === undefined) usage();
      const key = createPrivateKey({ key: read('agent.private.jwk.json'), format: 'jwk' });
      const h = Buffer.from(JSON.stringify({ alg: 'EdDSA' })).toString('base64url');
      const p = Buffer.from(
        JSON.stringify({ purpose: 'agent_registration', principal_id: principalId, display_name: name }),
      ).toString('base64url');
      const proof = `${h}.${p}.${sign(null, Buffer.from(`${h}.${p}`), key).toString('base64url')}`;
      print({
        display_name: name,
        capabilities: ['PURCHASE'],
        public_key_jwk: read('agent.public.jwk.json'),
        registration_proof: proof,
      });
      return;
    }
    case 'open': {
      const constraints = rest[0] === undefined ? DEFAULT_CONSTRAINTS : JSON.parse(rest[0]);
      const issuer = read('issuer.public.jwk.json');
      const sd = new SDJwtInstance({
        signer: await ES256.getSigner(read('issuer.private.jwk.json')),
        signAlg: 'ES256',
        hasher: digest,
        hashAlg: 'sha-256',
        saltGenerator: generateSalt,
      });
      const now = Math.floor(Date.now() / 1000);
      const content = {
        vct: 'mandate.payment.open.1',
        constraints,
        cnf: { jwk: read('agent.public.jwk.json') },
        iat: now,
        exp: now + 30 * 86_400,
      };
      print(
        await sd.issue(
          { delegate_payload: [content] },
          { delegate_payload: { _sd: [0] } },
          {
            header: { kid: issuer.kid, typ: 'dc+sd-jwt' },
          },
        ),
      );
      return;
    }
    case 'close': {
      const [open, amount, payee, tx = `tx-${randomBytes(6).toString('hex')}`] = rest;
      if (open === undefined || amount === undefined || payee === undefined) usage();
      const key = createPrivateKey({ key: read('agent.private.jwk.json'), format: 'jwk' });
      const sd = new SDJwtInstance({
        signer: (data) => sign(null, Buffer.from(data, 'ascii'), key).toString('base64url'),
        signAlg: 'EdDSA',
        hasher: digest,
        hashAlg: 'sha-256',
        saltGenerator: generateSalt,
      });
      const closed = await sd.issue(
        {
          delegate_payload: [
            {
              vct: 'mandate.payment.1',
              transaction_id: tx,
              payee: { id: payee, name: payee },
              payment_amount: { amount: Number(amount), currency: 'USD' },
              payment_instrument: { id: 'stub', type: 'card', description: 'Card 4242' },
            },
          ],
          iat: Math.floor(Date.now() / 1000),
          aud: 'agent-spending-authorization',
          nonce: randomBytes(12).toString('base64url'),
          sd_hash: hashOf(open),
        },
        { delegate_payload: { _sd: [0] } },
        { header: { typ: 'kb+sd-jwt' } },
      );
      print(`${open.endsWith('~') ? open.slice(0, -1) : open}~~${closed}`);
      return;
    }
    default:
      usage();
  }
}

await main();
