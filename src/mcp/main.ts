// npm run mcp: the MCP server of one agent (docs/mcp.md), over stdio by default, or over
// streamable HTTP with `--http <port>` (`--host <address>`, default 127.0.0.1). It reads the
// service's address from ASAS_URL and the agent key from ASAS_AGENT_KEY, and learns its agent
// from the key; with `--http` and no ASAS_AGENT_KEY each request presents its own agent key. stdout is the protocol's on stdio: everything else goes to stderr.
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AsasApiError } from '../../packages/client/src/index.js';
import { AgentApi } from './agent-api.js';
import { type McpHttpServer, startMcpHttp } from './http.js';
import { createAgentMcpServer } from './server.js';

function fail(message: string): never {
  process.stderr.write(`asas mcp: ${message}\n`);
  process.exit(1);
}

function httpPort(given: string): number {
  const port = Number(given);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--http needs a port, got "${given}"`);
  return port;
}

function stopOnSignal(http: McpHttpServer): void {
  const stop = () => void http.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { http: { type: 'string' }, host: { type: 'string' } },
    allowPositionals: false,
  });
  const baseUrl = process.env.ASAS_URL;
  const apiKey = process.env.ASAS_AGENT_KEY;
  if (baseUrl === undefined || baseUrl === '') fail('set ASAS_URL to the service address, e.g. http://127.0.0.1:3000');
  if ((apiKey === undefined || apiKey === '') && values.http !== undefined) {
    // Keyed: every request presents its own agent key (Authorization: Bearer).
    const http = await startMcpHttp({ baseUrl }, httpPort(values.http), values.host ?? '127.0.0.1');
    process.stderr.write(`asas mcp: each request's agent key, streamable HTTP at ${http.url}\n`);
    stopOnSignal(http);
    return;
  }
  if (apiKey === undefined || apiKey === '')
    fail('set ASAS_AGENT_KEY to an agent key (POST /api/v1/agents/{agent_id}/keys)');
  let api: AgentApi;
  try {
    api = await AgentApi.connect({ baseUrl, apiKey });
  } catch (err) {
    if (err instanceof AsasApiError)
      fail(`the key is not an agent key the service accepts (${err.status} ${err.code})`);
    fail(`cannot reach ${baseUrl}: ${(err as Error).message}`);
  }
  if (values.http !== undefined) {
    const http = await startMcpHttp(api, httpPort(values.http), values.host ?? '127.0.0.1');
    process.stderr.write(`asas mcp: agent ${api.agentId}, streamable HTTP at ${http.url}\n`);
    stopOnSignal(http);
    return;
  }
  await createAgentMcpServer(api).connect(new StdioServerTransport());
  process.stderr.write(`asas mcp: agent ${api.agentId}, on stdio\n`);
}

main().catch((err: unknown) => fail((err as Error).stack ?? String(err)));
