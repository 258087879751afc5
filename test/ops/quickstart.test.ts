// scripts/quickstart.sh, the README's walkthrough, run as a user runs it against a started
// server: it must onboard and then print one APPROVE, one DECLINE, one STEP_UP and the
// confirmed re-send, and leave nothing behind in the working directory.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/quickstart.sh', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const AP2_DOC = fileURLToPath(new URL('../../docs/ap2.md', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
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
      /^export BASE=(\S+) PRINCIPAL_ID=prn_\w+ PRINCIPAL_KEY=(mdt_test_\w+) AGENT_ID=(agt_\w+) MANDATE_ID=(mnd_\w+) CLIENT_KEY=mdt_test_\w+$/.exec(
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

    // The README's other commands that run to an end, as printed: the agent key the MCP server
    // holds (the server itself is spawned by test/mcp/mcp.test.ts), and the Principal's
    // confirmation channel of the step-up section.
    const agentKeyLine = blocks.find((b) => b.startsWith('AGENT_KEY=$(curl'))?.split('\n')[0];
    const channel = blocks.find((b) => b.includes('/confirmation-channel'));
    expect(agentKeyLine, 'the README issues an agent key').toBeDefined();
    expect(channel, 'the README sets the confirmation channel').toBeDefined();
    // The Principal's own key, as the operator issues it (the quickstart's is the Client's).
    const principalId = /PRINCIPAL_ID=(prn_\w+)/.exec(lines[7] ?? '')?.[1] as string;
    const own = await request(server, 'POST', `/admin/v1/principals/${principalId}/credentials`, {
      adminKey: server.adminKey,
      body: { environment: 'sandbox' },
    });
    expect(own.status, own.text).toBe(201);
    const { stdout: more } = await promisify(execFile)(
      'bash',
      ['-e', '-c', `${lines[7]}\n${agentKeyLine}\necho "agent key: \${AGENT_KEY:0:9}"\n${channel}`],
      { cwd, env: { PATH: process.env.PATH, PRINCIPAL_OWN_KEY: own.body.api_key as string }, timeout: 30_000 },
    );
    const [keyLine, channelAnswer] = more.trim().split('\n');
    expect(keyLine).toBe('agent key: mdt_test_');
    expect(JSON.parse(channelAnswer as string)).toMatchObject({ email: 'pat@example.com' });
    expect(readdirSync(cwd)).toEqual([]);

    // docs/ap2.md's walk-through, as pasted after that line: its one sh block, in bash, in a
    // directory of its own that sees the project's scripts/ and node_modules/ (it writes files).
    const walk = /## Walk-through\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readFileSync(AP2_DOC, 'utf8'))?.[1];
    expect(walk, 'docs/ap2.md has its walk-through as an sh block').toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'asas-ap2-walk-'));
    try {
      for (const name of ['scripts', 'node_modules']) symlinkSync(join(ROOT, name), join(dir, name));
      const { stdout: walked } = await promisify(execFile)('bash', ['-e', '-c', `${lines[7]}\n${walk}`], {
        cwd: dir,
        env: { PATH: process.env.PATH },
        timeout: 60_000,
      });
      const out = walked.trim().split('\n');
      expect(out[0], walked).toMatch(/^wrote the issuer key \(kid [\w-]+\) and the agent key to ap2-keys$/);
      expect(out[1]).toMatch(/^"[\w-]+"$/);
      expect(JSON.parse(out[2] as string)).toMatchObject({
        min_amount_per_transaction: 5,
        max_amount_per_transaction: 50,
        max_total_amount: 60,
        allowed_payees: ['merchant_1', 'merchant_2'],
      });
      expect(JSON.parse(out[3] as string)).toMatchObject({ decision: 'APPROVE', consumed: true });
      expect(JSON.parse(out[4] as string)).toEqual({ error: 'ap2_mandate_already_consumed', status: 409 });
      expect(JSON.parse(out[5] as string)).toEqual({ decision: 'DECLINE', reason_codes: ['total_limit_exceeded'] });
      expect(JSON.parse(out[6] as string)).toEqual({ decision: 'APPROVE', reason_codes: ['approved'] });
      expect(JSON.parse(out[7] as string)).toMatchObject({ kind: 'closed', status: 'CONSUMED' });
      // The statement, verified offline with jose against the JWKS, the sandbox issuer pinned (the
      // quickstart's keys are the sandbox's): the whole budget used.
      const statement = out.slice(8).join('\n');
      expect(statement).toMatch(/^sandbox /);
      expect(statement).toContain("limit: '60.00'");
      expect(statement).toContain("used: '60.00'");
      expect(statement).toContain("remaining: '0.00'");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
