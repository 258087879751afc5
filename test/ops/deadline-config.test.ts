// The outage bounds are configuration: a bad AUTHORIZE_DEADLINE_MS, REQUEST_DEADLINE_MS or
// DATABASE_CONNECT_TIMEOUT_MS stops start-up (exit 2) with one line naming the variable.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAIN_JS } from '../fixtures/server.js';

function start(env: Record<string, string>): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN_JS], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: r.status, stderr: r.stderr };
}

describe('answer deadline configuration', () => {
  for (const [name, value] of [
    ['AUTHORIZE_DEADLINE_MS', 'soon'],
    ['AUTHORIZE_DEADLINE_MS', '10'],
    ['REQUEST_DEADLINE_MS', '-5'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '0'],
  ] as const) {
    it(`refuses ${name}=${value} with one line naming it`, () => {
      const r = start({ [name]: value });
      expect(r.status).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(name);
    });
  }
});
