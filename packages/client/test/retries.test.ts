// Retries, against a real HTTP server started here that answers what each case needs (503 then
// 200, 429 with Retry-After, ...): safe and idempotent requests are sent again, honouring
// Retry-After; a request that is neither is sent once, whatever the answer.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAsasClient, unwrap } from '@asas/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly atMs: number;
}

type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

let server: Server;
let url: string;
let seen: Seen[] = [];
let answers: Answer[] = [];
const OK: Answer = { status: 200, body: { status: 'ok' } };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        atMs: performance.now(),
      });
      const answer = answers.shift() ?? OK;
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
        .end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  seen = [];
  answers = [];
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const unavailable = (retryAfter?: string): Answer => ({
  status: 503,
  ...(retryAfter === undefined ? {} : { headers: { 'retry-after': retryAfter } }),
  body: { error: 'service_unavailable', message: 'Try again.', status: 503, request_id: 'req_1' },
});

const client = () => createAsasClient({ baseUrl: url, apiKey: 'mdt_test_k', retry: { baseDelayMs: 5 } });

const authorizeBody = {
  agent_id: 'agt_1',
  amount: '10.00',
  intent_context: { intent_type: 'purchase', task_reference: 't-1' },
};

describe('retries', () => {
  it('sends a GET again after a 503, until it is answered', async () => {
    answers = [unavailable(), unavailable(), { status: 200, body: { status: 'ok' } }];
    const res = await client().GET('/health');
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ status: 'ok' });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /health', 'GET /health', 'GET /health']);
  });

  it('waits the Retry-After of a 429 before sending again', async () => {
    answers = [
      {
        status: 429,
        headers: { 'retry-after': '1' },
        body: { error: 'rate_limited', message: 'Slow down.', status: 429, request_id: 'req_2' },
      },
    ];
    const res = await client().GET('/api/v1/agents/{agent_id}', { params: { path: { agent_id: 'agt_1' } } });
    expect(res.response.status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.atMs - seen[0]!.atMs).toBeGreaterThanOrEqual(990);
  });

  it('gives up after the retries it is allowed and answers the last error', async () => {
    answers = [unavailable(), unavailable(), unavailable(), unavailable(), unavailable()];
    const res = await createAsasClient({ baseUrl: url, retry: { retries: 2, baseDelayMs: 1 } }).GET('/health');
    expect(res.response.status).toBe(503);
    expect(() => unwrap(res)).toThrow(expect.objectContaining({ code: 'service_unavailable', status: 503 }));
    expect(seen).toHaveLength(3);
  });

  it('answers at once when Retry-After asks for longer than it waits', async () => {
    answers = [unavailable('120')];
    const res = await createAsasClient({ baseUrl: url, retry: { maxDelayMs: 1000 } }).GET('/health');
    expect(res.response.status).toBe(503);
    expect(seen).toHaveLength(1);
  });

  it('sends POST /authorize again with the same idempotency_key it put in the body', async () => {
    answers = [unavailable('0')];
    const res = await client().POST('/api/v1/authorize', { body: authorizeBody });
    expect(res.response.status).toBe(200);
    expect(seen).toHaveLength(2);
    const keys = seen.map((s) => (JSON.parse(s.body) as { idempotency_key?: string }).idempotency_key);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(seen.every((s) => s.headers['x-api-key'] === 'mdt_test_k')).toBe(true);
  });

  it('sends an operation that takes an Idempotency-Key again under the same key, its own or the caller’s', async () => {
    answers = [unavailable('0')];
    await client().POST('/api/v1/authorizations/{authorization_id}/capture', {
      params: { path: { authorization_id: 'auth_1' } },
      body: { amount: '5.00' },
    });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);

    seen = [];
    answers = [unavailable('0')];
    await client().POST('/api/v1/authorizations/{authorization_id}/release', {
      params: { path: { authorization_id: 'auth_1' }, header: { 'Idempotency-Key': 'release-1' } },
    });
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['release-1', 'release-1']);
  });

  it('sends again a request whose first holder of the key is still running (409 idempotency_key_in_use)', async () => {
    answers = [
      {
        status: 409,
        headers: { 'retry-after': '0' },
        body: { error: 'idempotency_key_in_use', message: 'Still running.', status: 409, request_id: 'req_3' },
      },
    ];
    const res = await client().POST('/api/v1/mandates/{mandate_id}/revoke', {
      params: { path: { mandate_id: 'mnd_1' } },
      body: { reason: 'replaced' },
    });
    expect(res.response.status).toBe(200);
    expect(seen).toHaveLength(2);
  });

  it('never sends a request without an idempotency key twice: a 503 to POST /webhooks is the answer', async () => {
    answers = [unavailable('0')];
    const res = await client().POST('/api/v1/webhooks', {
      body: { url: 'https://example.com/hook', event_types: ['gate.fired'] },
    });
    expect(res.response.status).toBe(503);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('never sends again a request of an operation that ignores Idempotency-Key, even with one', async () => {
    answers = [unavailable('0')];
    const res = await client().PUT('/api/v1/thresholds', {
      body: { authorize_step_up_threshold: 0.5 },
      headers: { 'Idempotency-Key': 'mine' },
    });
    expect(res.response.status).toBe(503);
    expect(seen).toHaveLength(1);
  });

  it('does not send a credential to an operation that needs none', async () => {
    await client().GET('/api/v1/webhooks/events');
    expect(seen[0]!.headers['x-api-key']).toBeUndefined();
  });

  it('sends a GET again when the connection breaks, not a POST without a key', async () => {
    const flaky = createServer((req, res) => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: '', atMs: 0 });
      if (seen.length === 1) req.socket.destroy();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
    try {
      const asas = createAsasClient({ baseUrl: base, retry: { baseDelayMs: 1 } });
      expect((await asas.GET('/ready')).response.status).toBe(200);
      expect(seen).toHaveLength(2);
      seen = [];
      await expect(
        asas.POST('/api/v1/webhooks', { body: { url: 'https://example.com/hook', event_types: ['*'] } }),
      ).rejects.toThrow();
      expect(seen).toHaveLength(1);
    } finally {
      flaky.closeAllConnections();
      await new Promise((r) => flaky.close(r));
    }
  });
});
