// The client against the real service over HTTP: an authorization with the key the client made
// up, its replay when the first answer is lost on the way back, typed errors, and access tokens
// the client mints itself.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AsasApiError, createAsasClient, unwrap } from '@asas/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/fixtures/server.js';
import { groceries, type OnboardedPrincipal, onboardThroughClient } from './fixtures.js';

let server: TestServer;
let principal: OnboardedPrincipal;

beforeAll(async () => {
  server = await startTestServer();
  principal = await onboardThroughClient(server);
});
afterAll(async () => {
  await server?.close();
});

/** An answer without processing_time_ms: a replay reports its own time, the rest is the recorded answer. */
function recorded(answer: object | undefined): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...answer };
  delete copy.processing_time_ms;
  return copy;
}

interface Forwarded {
  readonly body: string;
  readonly status: number;
}

/**
 * A real HTTP proxy to the service that forwards the first POST /api/v1/authorize and then
 * drops the connection instead of answering, as a network that loses the answer does; every
 * other request goes through.
 */
async function lossyProxy(upstream: string): Promise<{ url: string; lost: Forwarded[]; close(): Promise<void> }> {
  const lost: Forwarded[] = [];
  const read = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });
  const proxy: Server = createServer(async (req, res) => {
    const body = await read(req);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers.set(k, v);
    }
    const answer = await fetch(upstream + req.url, {
      method: req.method,
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const text = await answer.text();
    if (req.method === 'POST' && req.url === '/api/v1/authorize' && lost.length === 0) {
      lost.push({ body: text, status: answer.status });
      req.socket.destroy();
      return;
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'content-encoding') out[k] = v;
    });
    res.writeHead(answer.status, out).end(text);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    lost,
    close: () => new Promise((r) => proxy.close(() => r())),
  };
}

describe('the client against the service', () => {
  it('authorizes with an idempotency key of its own making; the answer lost on the way is replayed, the same', async () => {
    const proxy = await lossyProxy(server.url);
    try {
      const asas = createAsasClient({
        baseUrl: proxy.url,
        apiKey: principal.principalKey,
        retry: { baseDelayMs: 10 },
      });
      const { data, response } = await asas.POST('/api/v1/authorize', { body: groceries(principal.agentId) });
      expect(proxy.lost).toHaveLength(1);
      const first = JSON.parse(proxy.lost[0]!.body) as Record<string, unknown>;
      expect(proxy.lost[0]!.status).toBe(200);
      expect(first).toMatchObject({ decision: 'APPROVE', reason_codes: ['approved'] });
      // The client sent the same request again with the key it had put in the body: the service
      // answered the recorded decision, receipt and all, and recorded nothing new.
      expect(response.status).toBe(200);
      expect(response.headers.get('idempotent-replayed')).toBe('true');
      expect(recorded(data)).toEqual(recorded(first));
      const log = unwrap(
        await principal.asas.GET('/api/v1/authorize/log/agent/{agent_id}', {
          params: { path: { agent_id: principal.agentId } },
        }),
      );
      expect(log.items.filter((i) => i.id === first.authorization_id)).toHaveLength(1);
      expect(log.items).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('keeps an idempotency key the caller gives: the same key answers the same decision', async () => {
    const key = `order-${Date.now()}`;
    const body = groceries(principal.agentId, { idempotency_key: key, merchant_id: 'mer_42' });
    const first = await principal.asas.POST('/api/v1/authorize', { body });
    const again = await principal.asas.POST('/api/v1/authorize', { body });
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(recorded(again.data)).toEqual(recorded(first.data));
    expect(first.data?.decision).toBe('APPROVE');
  });

  it('gives each authorization without a key a new one', async () => {
    const a = unwrap(await principal.asas.POST('/api/v1/authorize', { body: groceries(principal.agentId) }));
    const b = unwrap(await principal.asas.POST('/api/v1/authorize', { body: groceries(principal.agentId) }));
    expect(a.authorization_id).not.toBe(b.authorization_id);
  });

  it('turns a 4xx answer into a typed error: its code, status, request id and field errors', async () => {
    const refused = await principal.asas.POST('/api/v1/authorize', {
      body: { ...groceries(principal.agentId), amount: '-1' },
    });
    expect(refused.response.status).toBe(422);
    expect(refused.error).toMatchObject({ error: 'validation_error', status: 422 });
    let thrown: unknown;
    try {
      unwrap(refused);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AsasApiError);
    const e = thrown as AsasApiError;
    expect(e.code).toBe('validation_error');
    expect(e.status).toBe(422);
    expect(e.requestId).toMatch(/^req_/);
    expect(e.errors.map((f) => f.field)).toContain('amount');

    const missing = await principal.asas.GET('/api/v1/agents/{agent_id}', {
      params: { path: { agent_id: 'agt_doesnotexist' } },
    });
    expect(() => unwrap(missing)).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/not_found$/), status: 404 }),
    );

    const stranger = createAsasClient({ baseUrl: server.url, apiKey: 'mdt_test_notakey' });
    const denied = await stranger.GET('/api/v1/agents/{agent_id}', {
      params: { path: { agent_id: principal.agentId } },
    });
    expect(() => unwrap(denied)).toThrow(expect.objectContaining({ code: 'unauthorized', status: 401 }));
  });

  it('mints an access token from the Principal key and sends it as a Bearer token', async () => {
    const sent: Request[] = [];
    const asas = createAsasClient({
      baseUrl: server.url,
      clientCredentials: { principalId: principal.principalId, apiKey: principal.principalKey },
      fetch: (request) => {
        sent.push(request);
        return fetch(request);
      },
    });
    const agent = unwrap(
      await asas.GET('/api/v1/agents/{agent_id}', { params: { path: { agent_id: principal.agentId } } }),
    );
    expect(agent.id).toBe(principal.agentId);
    const mandate = unwrap(
      await asas.GET('/api/v1/mandates/{mandate_id}', { params: { path: { mandate_id: principal.mandateId } } }),
    );
    expect(mandate.id).toBe(principal.mandateId);
    // One token, minted once, then used by both calls; no API key on them.
    expect(sent.map((r) => new URL(r.url).pathname)).toEqual([
      '/oauth/token',
      `/api/v1/agents/${principal.agentId}`,
      `/api/v1/mandates/${principal.mandateId}`,
    ]);
    const bearer = sent[1]!.headers.get('authorization');
    expect(bearer).toMatch(/^Bearer ey/);
    expect(sent[2]!.headers.get('authorization')).toBe(bearer);
    expect(sent[1]!.headers.get('x-api-key')).toBeNull();
  });
});
