// How the edge (uws-pack 20.0.8, upstream uWebSockets.js v20.49) answers requests whose framing
// no HTTP client would send: a malformed request line, a list-valued Content-Length, and
// Content-Length together with Transfer-Encoding (RFC 9112 6.1, 6.3: a request smuggling vector).
// uWebSockets.js answers these itself, before any handler runs, with its own plain answer (not
// the JSON envelope, which no handler of ours gets to write). Recorded as it is: what matters is that nothing behind such a request is
// served as a second request and that no body is read by a length other than the one framing it.
import { afterAll, describe, expect, it } from 'vitest';
import { rawExchange } from '../fixtures/raw-http.js';
import { startTestServer } from '../fixtures/server.js';

const server = await startTestServer();
afterAll(async () => {
  await server.close();
});

const BODY = '{"name":"Framing Client"}';
const SMUGGLED = 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n';
const post = (lines: string[]) =>
  `POST /admin/v1/clients HTTP/1.1\r\nHost: x\r\nX-Admin-Key: ${server.adminKey}\r\n` +
  `Content-Type: application/json\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`;

/** Exactly one answer, `status`, from uWebSockets.js itself, then the connection closed. */
async function expectOneAnswerAndClosed(payload: string, status: number): Promise<void> {
  const ex = await rawExchange(server.url, payload + SMUGGLED, { waitMs: 3000 });
  expect(
    ex.responses.map((r) => r.status),
    ex.text,
  ).toEqual([status]);
  expect(ex.responses[0]?.headers.connection, ex.text).toBe('close');
  expect(ex.closed, 'the server closes the connection').toBe(true);
  // The request behind it is never served (a /health answer would be a second response).
  expect(ex.text).not.toContain('"status"');
}

describe('framing no client sends, as the edge answers it', () => {
  for (const [name, line] of [
    ['an unknown version', 'GET /health HTTP/9.9'],
    ['two spaces', 'GET  /health HTTP/1.1'],
    ['no target', 'GET HTTP/1.1'],
    ['garbage', 'NOT A REQUEST LINE AT ALL'],
  ] as const) {
    it(`a malformed request line (${name}): 505 from the parser, closed`, async () => {
      await expectOneAnswerAndClosed(`${line}\r\nHost: x\r\n\r\n`, 505);
    });
  }

  it('a request line with no version: nothing is served and nothing answered', async () => {
    const ex = await rawExchange(server.url, `GET /health\r\nHost: x\r\n\r\n${SMUGGLED}`, { waitMs: 1500 });
    expect(ex.responses, ex.text).toEqual([]);
    expect(ex.text).toBe('');
  });

  it('a list-valued Content-Length: 400 from the parser, closed, no Client created', async () => {
    const len = Buffer.byteLength(BODY);
    await expectOneAnswerAndClosed(post([`Content-Length: ${len}, ${len}`]) + BODY, 400);
  });

  it('Content-Length with Transfer-Encoding: chunked: 400 from the parser, closed, no Client created', async () => {
    const chunked = `${Buffer.byteLength(BODY).toString(16)}\r\n${BODY}\r\n0\r\n\r\n`;
    await expectOneAnswerAndClosed(post(['Content-Length: 4', 'Transfer-Encoding: chunked']) + chunked, 400);
  });

  it('created no Client', async () => {
    const res = await fetch(`${server.url}/admin/v1/clients?limit=100`, {
      headers: { 'X-Admin-Key': server.adminKey },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('Framing Client');
  });
});
