// Drill: clients that send a body slowly, stop half-way or disconnect before the answer do
// not hold resources: the in-flight count (asas_http_requests_in_flight, which counts the
// scrape itself) returns to 1 and the server keeps answering other clients meanwhile.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizeSetup, authorizeBody, authorizeSetup } from '../fixtures/authorize-setup.js';
import { sleep } from '../fixtures/drills/instances.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let setup: AuthorizeSetup;
let port: number;

beforeAll(async () => {
  server = await startTestServer();
  setup = await authorizeSetup(server);
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.close();
});

async function inFlight(): Promise<number> {
  const res = await request(server, 'GET', '/metrics', { adminKey: server.adminKey });
  const m = /^asas_http_requests_in_flight (\d+)$/m.exec(res.text);
  if (m === null) throw new Error(`no in-flight gauge in: ${res.text.slice(0, 200)}`);
  return Number(m[1]);
}

async function settlesTo(n: number): Promise<void> {
  const deadline = Date.now() + 5000;
  let v = await inFlight();
  while (v !== n && Date.now() < deadline) {
    await sleep(50);
    v = await inFlight();
  }
  expect(v).toBe(n);
}

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });
}

function head(length: number): string {
  return `POST /api/v1/authorize HTTP/1.1\r\nhost: x\r\nx-api-key: ${setup.principalKey}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;
}

async function decides(): Promise<void> {
  const res = await request(server, 'POST', '/api/v1/authorize', {
    apiKey: setup.principalKey,
    body: authorizeBody(setup.agentId),
  });
  expect(res.status).toBe(200);
  expect(typeof res.body.decision).toBe('string');
}

describe('drill: slow and vanishing clients', () => {
  it('a body trickling in holds one request slot only while it lasts', async () => {
    await settlesTo(1);
    const body = JSON.stringify(authorizeBody(setup.agentId));
    const s = await open();
    s.write(head(body.length));
    for (let i = 0; i < 10; i++) {
      s.write(body[i] as string);
      await sleep(50);
    }
    expect(await inFlight()).toBe(2);
    // Other clients are served meanwhile.
    expect((await request(server, 'GET', '/health')).status).toBe(200);
    await decides();
    s.destroy();
    await settlesTo(1);
  });

  it('a client that stops half-way through the body and disconnects frees its slot', async () => {
    const sockets: Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const s = await open();
      s.write(`${head(500)}{"agent_id":`);
      sockets.push(s);
    }
    await sleep(100);
    expect(await inFlight()).toBe(21);
    await decides();
    for (const s of sockets) s.destroy();
    await settlesTo(1);
  });

  it('a client that disconnects before its answer leaves nothing behind and the server keeps deciding', async () => {
    const body = JSON.stringify(authorizeBody(setup.agentId));
    for (let i = 0; i < 20; i++) {
      const s = await open();
      s.write(head(Buffer.byteLength(body)) + body);
      s.destroy();
    }
    await settlesTo(1);
    await decides();
  });

  it('a client that sends half a request line and vanishes does not count as a request', async () => {
    const s = await open();
    s.write('POST /api/v1/auth');
    await sleep(50);
    s.destroy();
    await settlesTo(1);
    expect((await request(server, 'GET', '/health')).status).toBe(200);
  });
});
