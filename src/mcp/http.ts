// The MCP server over streamable HTTP (docs/mcp.md): a small node:http listener, POST /mcp,
// stateless (a new MCP server and transport for each request, answered as JSON). Two modes:
// - one agent (`npm run -s mcp -- --http`, with ASAS_AGENT_KEY): whoever reaches it acts as that
//   agent, so it listens on the loopback address unless told otherwise and refuses a Host header
//   that is not its own (no DNS rebinding from a web page);
// - keyed (the service's MCP_HTTP, or `--http` without ASAS_AGENT_KEY): every request presents
//   its agent key (`Authorization: Bearer`) and acts for that key's agent only; nothing is ambient,
//   so any Host is served. A key that is not an agent key is 401.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { LRUCache } from 'lru-cache';
import { AsasApiError } from '../../packages/client/src/index.js';
import { AgentApi } from './agent-api.js';
import { type AgentMcpOptions, createAgentMcpServer } from './server.js';

export const MCP_PATH = '/mcp';

export interface McpHttpServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Where a request's agent comes from: one agent for the listener, or each request's own key. */
export type AgentSource = AgentApi | { readonly baseUrl: string };

function answer(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Keyed mode: the agent of each presented key, asked of the service once a minute at most (a
 * revoked key is refused by the service on the next tool call anyway). Keyed by the key's hash.
 */
function agentsByKey(baseUrl: string): (apiKey: string) => Promise<AgentApi | null> {
  const cache = new LRUCache<string, AgentApi>({ max: 10_000, ttl: 60_000 });
  return async (apiKey) => {
    const id = createHash('sha256').update(apiKey).digest('base64url');
    const known = cache.get(id);
    if (known !== undefined) return known;
    try {
      const api = await AgentApi.connect({ baseUrl, apiKey });
      cache.set(id, api);
      return api;
    } catch (err) {
      if (err instanceof AsasApiError && err.status < 500) return null;
      throw err;
    }
  };
}

function bearer(req: IncomingMessage): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m === null ? null : (m[1] as string);
}

export async function startMcpHttp(
  source: AgentSource,
  port: number,
  host = '127.0.0.1',
  options: AgentMcpOptions = {},
): Promise<McpHttpServer> {
  let allowedHosts: ReadonlySet<string> = new Set();
  const keyed = source instanceof AgentApi ? null : agentsByKey(source.baseUrl);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== MCP_PATH) return answer(res, 404, 'Not found: the MCP endpoint is POST /mcp.');
    if (keyed === null && !allowedHosts.has(req.headers.host ?? '')) return answer(res, 403, 'Host not allowed.');
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return answer(res, 405, 'Method not allowed: this server is stateless, POST only.');
    }
    let api: AgentApi;
    if (keyed === null) api = source as AgentApi;
    else {
      const key = bearer(req);
      const found = key === null ? null : await keyed(key);
      if (found === null)
        return answer(
          res,
          401,
          'Present an agent key: Authorization: Bearer <key> (POST /api/v1/agents/{agent_id}/keys).',
          {
            'www-authenticate': 'Bearer',
          },
        );
      api = found;
    }
    const server = createAgentMcpServer(api, options);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const http: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) answer(res, 500, 'Internal error.');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = new Set([`${host}:${bound}`, `localhost:${bound}`, `127.0.0.1:${bound}`, `[::1]:${bound}`]);
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}${MCP_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
