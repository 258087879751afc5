// mandate_hash and the idempotency fingerprints hash our canonical JSON (src/domain/mandate-hash.ts).
// On every JSON value it must be byte for byte the JSON Canonicalization Scheme (RFC 8785), as
// the `canonicalize` reference implementation writes it, so an integrator can recompute a hash
// with any JCS library.
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/domain/mandate-hash.js';

describe('canonical JSON', () => {
  it('is RFC 8785 (JCS) on every JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('is RFC 8785 on keys and strings outside the Basic Multilingual Plane and on -0', () => {
    const value = { '\u{1F600}': -0, é: 'a\u2028b', a: [1e21, 1e-7, 0.1], '\u00e9\u0301': null };
    expect(canonicalJson(value)).toBe(canonicalize(value));
  });
});
