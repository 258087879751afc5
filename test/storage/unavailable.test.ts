// The one classifier of database availability (src/storage/unavailable.ts), and what the shard
// workers' breaker counts (src/shard/faults.ts isUnavailable): connection and socket failures
// and a database refusing work are outages; an error in a statement is not; the breaker also
// counts a driver failure without a code, never a missed deadline.
import { describe, expect, it } from 'vitest';
import { DEADLINE } from '../../src/errors/deadline.js';
import { isUnavailable } from '../../src/shard/faults.js';
import { isDatabaseUnavailable } from '../../src/storage/unavailable.js';

const err = (code?: string) => Object.assign(new Error('x'), code === undefined ? {} : { code });

describe('isDatabaseUnavailable', () => {
  it('is true for connection, socket and refusing-work errors', () => {
    for (const code of [
      'CONNECT_TIMEOUT',
      'CONNECTION_CLOSED',
      'CONNECTION_ENDED',
      'CONNECTION_DESTROYED',
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'EHOSTUNREACH',
      '08006',
      '53300',
      '57P01',
      '57014',
      '3D000',
    ]) {
      expect(isDatabaseUnavailable(err(code)), code).toBe(true);
    }
  });

  it('is false for statement errors, row faults, Node argument errors and errors without a code', () => {
    for (const code of ['22P02', '23505', '42P01', 'P0001', 'AS001', 'ERR_INVALID_ARG_TYPE', DEADLINE, undefined]) {
      expect(isDatabaseUnavailable(err(code)), String(code)).toBe(false);
    }
  });
});

describe("the breaker's count", () => {
  it('is the classifier, plus a driver failure without a code, never a missed deadline', () => {
    expect(isUnavailable(err('ECONNRESET'))).toBe(true);
    expect(isUnavailable(err('23505'))).toBe(false);
    expect(isUnavailable(err(undefined))).toBe(true);
    expect(isUnavailable(err(DEADLINE))).toBe(false);
  });
});
