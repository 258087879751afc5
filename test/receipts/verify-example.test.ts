// The README's receipt verifier (examples/verify-receipt.mjs) run as a merchant runs it: online
// against /.well-known/jwks.json and offline against a saved copy; an altered receipt fails.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, setup } from '../fixtures/engine-setup.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const run = promisify(execFile);
const EXAMPLE = fileURLToPath(new URL('../../examples/verify-receipt.mjs', import.meta.url));
let server: TestServer;
let fx: EngineFixture;
const dir = mkdtempSync(join(tmpdir(), 'asas-receipt-'));

beforeAll(async () => {
  server = await startTestServer();
  fx = await setup(server, {
    limits: { max_amount_per_transaction: '20.00', max_daily_amount: '1000.00', currency: 'USD' },
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function verify(receipt: string, source: string): Promise<{ code: number; out: Record<string, unknown> }> {
  try {
    const { stdout } = await run(process.execPath, [EXAMPLE, receipt, source]);
    return { code: 0, out: JSON.parse(stdout) };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: JSON.parse(e.stdout) };
  }
}

describe('examples/verify-receipt.mjs', () => {
  it('verifies a real receipt online and offline, and rejects an altered one', async () => {
    const res = await authorize(server, fx.apiKey, authorizeBody(fx.agentId, { amount: '12.5', merchant_id: 'mer_7' }));
    expect(res.status).toBe(200);
    const receipt = res.body.receipt as string;

    const online = await verify(receipt, `${server.url}/.well-known/jwks.json`);
    expect(online.code).toBe(0);
    expect(online.out).toMatchObject({
      valid: true,
      authorization_id: res.body.authorization_id,
      agent_id: fx.agentId,
      amount: '12.50',
      currency: 'USD',
      merchant: 'mer_7',
      decision: res.body.decision,
    });

    const file = join(dir, 'jwks.json');
    writeFileSync(file, (await request(server, 'GET', '/.well-known/jwks.json')).text);
    const offline = await verify(receipt, file);
    expect(offline.code).toBe(0);
    expect(offline.out.authorization_id).toBe(res.body.authorization_id);

    const [h, p, s] = receipt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
    const altered = `${h}.${Buffer.from(JSON.stringify({ ...claims, decision: 'APPROVE', amount: '19.99' })).toString('base64url')}.${s}`;
    const refused = await verify(altered, file);
    expect(refused.code).toBe(1);
    expect(refused.out.valid).toBe(false);
  });
});
