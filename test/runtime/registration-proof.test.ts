import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkRegistrationProof, type Ed25519Jwk } from '../../src/runtime/registration-proof.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const jwk = publicKey.export({ format: 'jwk' }) as unknown as Ed25519Jwk;
const expectation = { principalId: 'prn_a', displayName: 'Agent', did: null };

function jws(header: unknown, payload: unknown, key = privateKey): string {
  const h = Buffer.from(JSON.stringify(header)).toString('base64url');
  const p = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${h}.${p}.${sign(null, Buffer.from(`${h}.${p}`), key).toString('base64url')}`;
}

const payload = { purpose: 'agent_registration', principal_id: 'prn_a', display_name: 'Agent' };

describe('checkRegistrationProof', () => {
  it('accepts an EdDSA JWS over the documented payload', () => {
    expect(checkRegistrationProof(jwk, jws({ alg: 'EdDSA' }, payload), expectation)).toBeNull();
    const did = 'did:web:example.com';
    expect(checkRegistrationProof(jwk, jws({ alg: 'EdDSA' }, { ...payload, did }), { ...expectation, did })).toBeNull();
  });

  it('names what is wrong with a proof that does not hold', () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    const cases: [string, RegExp][] = [
      [jws({ alg: 'EdDSA' }, payload, other), /signature/],
      [jws({ alg: 'HS256' }, payload), /alg/],
      [jws({ alg: 'EdDSA' }, { ...payload, purpose: 'login' }), /purpose/],
      [jws({ alg: 'EdDSA' }, { ...payload, principal_id: 'prn_b' }), /principal_id/],
      [jws({ alg: 'EdDSA' }, { ...payload, display_name: 'Other' }), /display_name/],
      [jws({ alg: 'EdDSA' }, 'just a string'), /payload/],
      ['a.b', /compact JWS/],
      ['a.b.c=', /compact JWS/],
    ];
    for (const [proof, why] of cases) expect(checkRegistrationProof(jwk, proof, expectation)).toMatch(why);
    const withDid = jws({ alg: 'EdDSA' }, payload);
    expect(checkRegistrationProof(jwk, withDid, { ...expectation, did: 'did:web:x' })).toMatch(/did/);
  });

  it('refuses a tampered payload even with a valid signature elsewhere', () => {
    const good = jws({ alg: 'EdDSA' }, payload);
    const [h, , s] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, display_name: 'Agent', extra: 1 })).toString('base64url');
    expect(checkRegistrationProof(jwk, `${h}.${forged}.${s}`, expectation)).toMatch(/signature/);
  });
});
