// A transaction that lost a race (deadlock, serialization failure, a lock not available) is
// answered 503 service_unavailable with Retry-After, not 500: the same request sent again
// succeeds (src/storage/unavailable.ts isTransientConflict). The breaker does not count it as the
// database away. Errors shaped as postgres.js throws them (an object with its SQLSTATE in `code`).
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { errorEnvelope } from '../../src/http/envelope.js';
import { isDatabaseUnavailable, isTransientConflict } from '../../src/storage/unavailable.js';

const log = pino({ level: 'silent' });

function pgError(code: string): Error {
  return Object.assign(new Error(`postgres error ${code}`), { code, severity: 'ERROR' });
}

describe('a transaction conflict', () => {
  it.each(['40001', '40P01', '55P03'])('SQLSTATE %s is a 503 with Retry-After, and not the database away', (code) => {
    const e = errorEnvelope(pgError(code), 'req_test', log);
    expect(e.status).toBe(503);
    expect(JSON.parse(e.body)).toMatchObject({ error: 'service_unavailable', status: 503, request_id: 'req_test' });
    expect(e.headers).toMatchObject({ 'retry-after': '1' });
    expect(isTransientConflict(pgError(code))).toBe(true);
    expect(isDatabaseUnavailable(pgError(code))).toBe(false);
  });

  it('other query errors stay a 500 internal_error (a bug to fix, not to retry)', () => {
    for (const code of ['23505', '42P01', '22001']) {
      expect(isTransientConflict(pgError(code))).toBe(false);
      const e = errorEnvelope(pgError(code), 'req_test', log);
      expect(e.status).toBe(500);
      expect(JSON.parse(e.body)).toMatchObject({ error: 'internal_error' });
    }
  });
});
