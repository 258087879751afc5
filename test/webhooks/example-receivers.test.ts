// The README's webhook receivers (examples/webhook-receiver.mjs and examples/webhook_receiver.py)
// run as a user runs them: each verifies a real delivery of this service and rejects a forged one.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
let server: TestServer;
let key: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startTestServer();
  const client = await provisionClient(server);
  const prn = await insertPrincipalRow(server, 'live', client.clientId, client.programId);
  key = (await issuePrincipalKey(server, prn, 'live')).apiKey;
});
afterAll(async () => {
  for (const c of children) c.kill();
  await server?.close();
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts a receiver; resolves with a function that waits for a line matching a pattern. */
async function startReceiver(cmd: string, file: string, port: number, secret: string) {
  const child = spawn(cmd, [EXAMPLES + file], {
    env: { PATH: process.env.PATH, PORT: String(port), WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  const waiters: (() => void)[] = [];
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiters.splice(0)) w();
  });
  const waitFor = async (pattern: RegExp): Promise<string> => {
    const deadline = Date.now() + 20_000;
    while (!pattern.test(out)) {
      if (Date.now() > deadline) throw new Error(`receiver printed no ${pattern}: ${out}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 200);
      });
    }
    return out;
  };
  await waitFor(/listening/);
  return waitFor;
}

describe.each([
  ['node', 'webhook-receiver.mjs'],
  ['python3', 'webhook_receiver.py'],
])('examples receiver (%s)', (cmd, file) => {
  it('verifies a real delivery and rejects a forged one', async () => {
    const port = await freePort();
    const created = await request(server, 'POST', '/api/v1/webhooks', {
      apiKey: key,
      body: { url: `http://127.0.0.1:${port}/hooks`, event_types: ['gate.fired'] },
    });
    expect(created.status).toBe(201);
    const waitFor = await startReceiver(cmd, file, port, created.body.signing_secret as string);
    const webhookId = (created.body.webhook as { id: string }).id;
    const sent = await request(server, 'POST', `/api/v1/webhooks/${webhookId}/test`, { apiKey: key });
    expect(sent.status).toBe(200);
    expect(await waitFor(/verified gate\.fired evt_\S+/)).toMatch(/verified gate\.fired evt_\S+/);

    const now = Math.floor(Date.now() / 1000);
    const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(now),
        'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
      },
      body: JSON.stringify({ event_type: 'gate.fired', event_id: 'evt_forged', data: {} }),
    });
    expect(forged.status).toBe(400);
    expect(await waitFor(/rejected: bad signature/)).not.toContain('verified gate.fired evt_forged');
  });
});
