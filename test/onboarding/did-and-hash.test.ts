// Unit tests of the pure pieces: did:key encoding and the canonical JSON behind mandate_hash.
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  base58btc,
  base58btcDecode,
  didMethod,
  ed25519DidKey,
  ed25519FromDidKey,
  generateDidKey,
} from '../../src/domain/did.js';
import { canonicalJson, type MandateTerms, mandateHash } from '../../src/domain/mandate-hash.js';

describe('did:key', () => {
  it('encodes base58btc like the Bitcoin alphabet (leading zero bytes become 1s)', () => {
    expect(base58btc(Uint8Array.from([0, 0, 1]))).toBe('112');
    expect(base58btc(new TextEncoder().encode('hello world'))).toBe('StV1DL6CwTryKyV');
    const bytes = Uint8Array.from([0, 237, 1, 255, 3]);
    expect(base58btcDecode(base58btc(bytes))).toEqual(bytes);
    expect(base58btcDecode('0OIl')).toBeNull();
  });

  it('matches the did:key test vector of the W3C CCG spec', () => {
    // https://w3c-ccg.github.io/did-method-key/ Ed25519 example: the multibase value decodes to
    // 0xed01 followed by a 32-byte key, and re-encodes to the same DID.
    const did = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
    const key = ed25519FromDidKey(did);
    expect(key?.length).toBe(32);
    expect(ed25519DidKey(key as Uint8Array)).toBe(did);
  });

  it('generates did:keys whose key verifies signatures of the matching private key', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }).subarray(-32));
    const did = ed25519DidKey(raw);
    expect(did.startsWith('did:key:z6Mk')).toBe(true);
    const decoded = ed25519FromDidKey(did) as Uint8Array;
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(decoded)]);
    const msg = Buffer.from('mandate');
    expect(
      verify(null, msg, createPublicKey({ key: spki, format: 'der', type: 'spki' }), sign(null, msg, privateKey)),
    ).toBe(true);
    const fresh = generateDidKey();
    expect(fresh).not.toBe(generateDidKey());
    expect(ed25519FromDidKey(fresh)?.length).toBe(32);
  });

  it('parses DID methods and refuses what is not a DID', () => {
    expect(didMethod('did:web:example.com:agents:7')).toBe('web');
    expect(didMethod('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK')).toBe('key');
    expect(didMethod('did:Web:example.com')).toBeNull();
    expect(didMethod('did:web:')).toBeNull();
    expect(didMethod('urn:uuid:1234')).toBeNull();
    expect(didMethod('did:web:exa mple')).toBeNull();
    // Segment by segment: a long id of many empty or short segments is judged, not backtracked over.
    expect(didMethod(`did:a:${'a:'.repeat(1000)}b`)).toBe('a');
    expect(didMethod(`did:a:${'a:'.repeat(1000)}!`)).toBeNull();
    expect(didMethod(`did:a:${'a:'.repeat(1000)}`)).toBeNull();
    expect(didMethod('did:web:example.com%3A8443:x')).toBe('web');
    expect(didMethod('did:web:bad%4')).toBeNull();
  });
});

describe('mandate_hash', () => {
  it('writes canonical JSON with sorted keys and no whitespace', () => {
    expect(canonicalJson({ b: [2, { d: 1, c: 'x' }], a: null, e: undefined })).toBe(
      '{"a":null,"b":[2,{"c":"x","d":1}]}',
    );
    expect(canonicalJson({ a: Number.POSITIVE_INFINITY })).toBe('{"a":null}');
  });

  it('depends on the terms and not on key order', () => {
    const terms: MandateTerms = {
      agent_id: 'agt_1',
      principal_id: 'prn_1',
      rails: ['card'],
      limits: { currency: 'USD', max_amount_per_transaction: '10.00', max_daily_amount: '20.00' },
      allowed_mccs: null,
      allowed_countries: ['USA'],
      crypto: null,
      valid_from: '2025-01-01T00:00:00.000Z',
      valid_until: '2026-01-01T00:00:00.000Z',
    };
    const reordered = Object.fromEntries(Object.entries(terms).reverse()) as unknown as MandateTerms;
    expect(mandateHash(reordered)).toBe(mandateHash(terms));
    expect(mandateHash(terms)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(mandateHash({ ...terms, limits: { ...terms.limits, max_daily_amount: '20.01' } })).not.toBe(
      mandateHash(terms),
    );
  });
});
