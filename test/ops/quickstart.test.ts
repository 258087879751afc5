// scripts/quickstart.sh, the README's walkthrough, run as a user runs it against a started
// server: it must onboard and then print one APPROVE, one DECLINE, one STEP_UP and the
// confirmed re-send, and leave nothing behind in the working directory.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../fixtures/server.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/quickstart.sh', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
let server: TestServer;
let cwd: string;

beforeAll(async () => {
  server = await startTestServer();
  cwd = mkdtempSync(join(tmpdir(), 'asas-quickstart-'));
});
afterAll(async () => {
  await server?.close();
  if (cwd !== undefined) rmSync(cwd, { recursive: true, force: true });
});

describe('scripts/quickstart.sh', () => {
  it('onboards, then gets APPROVE, DECLINE and STEP_UP, and the confirmed STEP_UP is approved', async () => {
    const { stdout } = await promisify(execFile)('bash', [SCRIPT], {
      cwd,
      env: { PATH: process.env.PATH, BASE: server.url, ADMIN_KEY: server.adminKey },
      timeout: 60_000,
    });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^onboarded principal prn_\S+ with agent agt_\S+$/);
    expect(lines.slice(1, 5)).toEqual([
      'approve: APPROVE approved',
      'decline: DECLINE mcc_not_allowed',
      'step_up: STEP_UP risk_score_elevated',
      'confirmed: APPROVE step_up_confirmed',
    ]);
    expect(lines[5]).toBe('');
    expect(lines[6]).toBe("to try the README's examples, paste this line into your shell:");
    const exported =
      /^export BASE=(\S+) PRINCIPAL_ID=prn_\w+ PRINCIPAL_KEY=(mdt_test_\w+) AGENT_ID=(agt_\w+) MANDATE_ID=(mnd_\w+)$/.exec(
        lines[7] ?? '',
      );
    expect(exported, lines[7]).not.toBeNull();
    expect(lines).toHaveLength(8);
    expect(readdirSync(cwd)).toEqual([]);

    // The printed values work as the README uses them: its first authorization, run as printed
    // (the curl block of README.md, in bash, with the exported values), is approved under the
    // mandate (the thresholds are back to their defaults: 42.50 is not stepped up), and the
    // answer has every field of the README's sample answer (which shows some of them).
    const [, base, , agentId, mandateId] = exported as RegExpExecArray;
    expect(base).toBe(server.url);
    const readme = readFileSync(README, 'utf8');
    const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => m[2] as string);
    const curl = blocks.find((b) => b.startsWith('curl -s -X POST $BASE/api/v1/authorize'));
    expect(curl, 'the README has the first authorization as a curl block').toBeDefined();
    const sample = JSON.parse(blocks[blocks.indexOf(curl as string) + 1] as string) as Record<string, unknown>;
    const { stdout: answered } = await promisify(execFile)('bash', ['-c', `${lines[7]}\n${curl}`], {
      cwd,
      env: { PATH: process.env.PATH },
      timeout: 30_000,
    });
    const decision = JSON.parse(answered) as Record<string, unknown>;
    expect(decision).toMatchObject({
      decision: 'APPROVE',
      reason_codes: ['approved'],
      agent_id: agentId,
      mandate_id: mandateId,
    });
    expect(Object.keys(decision)).toEqual(expect.arrayContaining(Object.keys(sample)));
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('stops with the error envelope when a call fails', async () => {
    const run = promisify(execFile)('bash', [SCRIPT], {
      cwd,
      env: { PATH: process.env.PATH, BASE: server.url, ADMIN_KEY: 'not-the-admin-key' },
      timeout: 60_000,
    });
    await expect(run).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('answered 403') });
  });
});
