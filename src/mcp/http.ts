// The MCP server over streamable HTTP (docs/mcp.md): a small node:http listener, POST /mcp,
// stateless (a new MCP server and transport for each request, answered as JSON), on the
// loopback address unless told otherwise. Whoever reaches it acts as the agent: keep it local.
// A Host header that is not this listener's is refused, so a web page cannot reach it through
// DNS rebinding.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AgentApi } from './agent-api.js';
import { type AgentMcpOptions, createAgentMcpServer } from './server.js';

export const MCP_PATH = '/mcp';

export interface McpHttpServer {
  readonly url: string;
  close(): Promise<void>;
}

function answer(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function startMcpHttp(
  api: AgentApi,
  port: number,
  host = '127.0.0.1',
  options: AgentMcpOptions = {},
): Promise<McpHttpServer> {
  let allowedHosts: ReadonlySet<string> = new Set();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== MCP_PATH) return answer(res, 404, 'Not found: the MCP endpoint is POST /mcp.');
    if (!allowedHosts.has(req.headers.host ?? '')) return answer(res, 403, 'Host not allowed.');
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return answer(res, 405, 'Method not allowed: this server is stateless, POST only.');
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
