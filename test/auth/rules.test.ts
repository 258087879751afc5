// Pure rules of authentication: key format and environment routing, scope prefixes, IP
// allowlist entries (v4, v6, CIDR).
import { describe, expect, it } from 'vitest';
import { allowlistModule, keysModule, scopesModule } from '../fixtures/auth-modules.js';

const { generateApiKey, keyEnvironment, hashKey } = keysModule;
const { normaliseScopes, parseScopes, scopeAllows } = scopesModule;
const { normaliseAllowlist, compileAllowlist, ipAllowed } = allowlistModule;

describe('API keys', () => {
  it('carries the environment in its prefix and at least 32 random base62 characters', () => {
    const live = generateApiKey('live');
    const test = generateApiKey('sandbox');
    expect(live).toMatch(/^mdt_live_[0-9A-Za-z]{32,}$/);
    expect(test).toMatch(/^mdt_test_[0-9A-Za-z]{32,}$/);
    expect(generateApiKey('live')).not.toBe(live);
  });

  it('routes by prefix: mdt_test_ sandbox, mdt_live_ live, legacy mdt_ live, anything else nothing', () => {
    expect(keyEnvironment('mdt_test_abc')).toBe('sandbox');
    expect(keyEnvironment('mdt_live_abc')).toBe('live');
    expect(keyEnvironment('mdt_abcdef')).toBe('live');
    expect(keyEnvironment('mdt_')).toBe(null);
    expect(keyEnvironment('mdt_test_')).toBe(null);
    expect(keyEnvironment('sk_live_abc')).toBe(null);
    expect(keyEnvironment('')).toBe(null);
    expect(keyEnvironment(`mdt_live_${'a'.repeat(1000)}`)).toBe(null);
  });

  it('hashes with SHA-256', () => {
    expect(hashKey('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('scopes', () => {
  it('empty or * means full access', () => {
    expect(parseScopes('')).toEqual([]);
    expect(parseScopes('*')).toEqual([]);
    expect(scopeAllows([], '/api/v1/anything')).toBe(true);
    expect(normaliseScopes(' ')).toBe('');
    expect(normaliseScopes('agents,*')).toBe('*');
  });

  it('allows a path under an allowed prefix only, on a segment boundary', () => {
    const s = parseScopes('agents, authorize');
    expect(scopeAllows(s, '/api/v1/agents')).toBe(true);
    expect(scopeAllows(s, '/api/v1/agents/agt_1/status')).toBe(true);
    expect(scopeAllows(s, '/api/v1/authorize/log/auth_1')).toBe(true);
    expect(scopeAllows(s, '/api/v1/agentsx')).toBe(false);
    expect(scopeAllows(s, '/api/v1/mandates/mnd_1')).toBe(false);
    expect(scopeAllows(s, '/api/v1/webhooks')).toBe(false);
  });

  it('puts /onboard under its own onboard scope, not under principals (strict prefixes)', () => {
    expect(scopeAllows(['principals'], '/api/v1/onboard')).toBe(false);
    expect(scopeAllows(['onboard'], '/api/v1/onboard')).toBe(true);
    expect(scopeAllows(['onboard'], '/api/v1/onboarding')).toBe(false);
    expect(scopeAllows(['onboard'], '/api/v1/principals')).toBe(false);
    expect(scopeAllows(['principals'], '/api/v1/principals/prn_1/agents')).toBe(true);
    expect(scopeAllows(['principals'], '/api/v1/principalsx')).toBe(false);
    expect(scopeAllows(['agents'], '/api/v1/onboard')).toBe(false);
    expect(scopeAllows([], '/api/v1/onboard')).toBe(true);
  });

  it('normalises at issue and rejects unknown scope names with validation_error', () => {
    expect(normaliseScopes('agents, agents ,authorize')).toBe('agents,authorize');
    expect(() => normaliseScopes('agents,payments')).toThrowError(/validation/);
  });
});

describe('IP allowlist', () => {
  it('accepts addresses and CIDRs of both families and rejects the rest', () => {
    expect(normaliseAllowlist(['203.0.113.7', '10.0.0.0/8', '2001:db8::/32', '::1'])).toEqual([
      '203.0.113.7',
      '10.0.0.0/8',
      '2001:db8::/32',
      '::1',
    ]);
    for (const bad of ['10.0.0.0/33', 'example.com', '1.2.3', '2001:db8::/129', '10.0.0.1/8/1', '']) {
      expect(() => normaliseAllowlist([bad])).toThrowError(/validation/);
    }
  });

  it('matches by address and subnet; an empty list allows any origin', () => {
    const list = compileAllowlist(['203.0.113.7', '10.0.0.0/8', '2001:db8::/32']);
    expect(ipAllowed(list, '203.0.113.7')).toBe(true);
    expect(ipAllowed(list, '203.0.113.8')).toBe(false);
    expect(ipAllowed(list, '10.200.1.1')).toBe(true);
    expect(ipAllowed(list, '::ffff:10.1.2.3')).toBe(true);
    expect(ipAllowed(list, '2001:db8:1::5')).toBe(true);
    expect(ipAllowed(list, '2001:db9::5')).toBe(false);
    expect(ipAllowed(list, 'not-an-ip')).toBe(false);
    expect(ipAllowed(compileAllowlist([]), '198.51.100.1')).toBe(true);
  });
});
