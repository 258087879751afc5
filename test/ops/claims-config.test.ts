// The claim leases of the background work are configuration (docs/background-claims.md): a
// webhook claim lease not above WEBHOOK_TIMEOUT_MS could expire mid-attempt and let a second
// instance make the same retry slot, so it stops start-up (exit 2) with one line naming it;
// so does an outbox relay lease out of range.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAIN_JS } from '../fixtures/server.js';

function start(env: Record<string, string>): { status: number | null; lines: string[] } {
  const r = spawnSync(process.execPath, [MAIN_JS], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: r.status, lines: r.stderr.trim().split('\n') };
}

describe('claim lease configuration', () => {
  for (const [env, name] of [
    [{ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_CLAIM_LEASE_MS: '5000' }, 'WEBHOOK_CLAIM_LEASE_MS'],
    [{ WEBHOOK_CLAIM_LEASE_MS: '10000' }, 'WEBHOOK_CLAIM_LEASE_MS'],
    [{ WEBHOOK_CLAIM_LEASE_MS: 'long' }, 'WEBHOOK_CLAIM_LEASE_MS'],
    [{ OUTBOX_RELAY_LEASE_MS: '100' }, 'OUTBOX_RELAY_LEASE_MS'],
  ] as const) {
    it(`refuses ${JSON.stringify(env)} with one line naming ${name}`, () => {
      const r = start(env);
      expect(r.status).toBe(2);
      expect(r.lines).toHaveLength(1);
      expect(r.lines[0]).toMatch(new RegExp(`^configuration error: ${name}: `));
    });
  }
});
