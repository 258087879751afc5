import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('HTTP edge', () => {
  it('answers /health with a request id', async () => {
    const res = await request(server, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
  });

  it('answers /ready when the databases are reachable', async () => {
    const res = await request(server, 'GET', '/ready');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ready');
  });

  it('answers an unknown route with the 404 envelope', async () => {
    const res = await request(server, 'GET', '/api/v1/nope');
    const env = expectEnvelope(res, 404, 'route_not_found');
    expect(env.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers a known path under the wrong method with 405 and Allow', async () => {
    const res = await request(server, 'DELETE', '/health');
    expectEnvelope(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET');
  });

  it('refuses a body over the limit with 413 in the envelope', async () => {
    const res = await request(server, 'POST', '/health', { raw: 'x'.repeat(1_100_000) });
    expectEnvelope(res, 413, 'payload_too_large');
  });

  it('serves the OpenAPI 3.1 document', async () => {
    const res = await request<{ openapi: string; paths: Record<string, unknown> }>(
      server,
      'GET',
      '/api/v1/openapi.json',
    );
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toContain('/health');
  });
});
