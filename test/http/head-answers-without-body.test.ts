// Regression (issue 11): no route takes HEAD, and its 404/405 answers carried the envelope as a
// body. A client reads no body after a HEAD answer (RFC 9110 9.3.2), so those bytes were read as
// the start of the next response on the keep-alive connection. Now: the status and headers of
// the envelope, and no body.
import { afterAll, describe, expect, it } from 'vitest';
import { rawExchange } from '../fixtures/raw-http.js';
import { request, startTestServer } from '../fixtures/server.js';

const server = await startTestServer();
afterAll(async () => {
  await server.close();
});

describe('HEAD answers carry no body, so the keep-alive connection stays in step', () => {
  for (const [path, status] of [
    ['/health', 405],
    ['/nope', 404],
  ] as const) {
    it(`HEAD ${path} then GET /health on one connection`, async () => {
      const ex = await rawExchange(
        server.url,
        `HEAD ${path} HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n`,
        { waitMs: 1500, expect: 2 },
      );
      const [first, ...rest] = ex.text.split('\r\n\r\n');
      expect(first, ex.text).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(first, ex.text).toMatch(/\r\nx-request-id: req_/);
      // What follows the HEAD answer's headers is the GET answer, not an envelope body.
      expect(rest.join('\r\n\r\n'), ex.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(ex.text).toContain('{"status":"ok"}');
    });
  }

  it('GET on the same paths still answers the envelope body', async () => {
    expect((await request(server, 'GET', '/nope')).body.error).toBe('route_not_found');
  });
});
