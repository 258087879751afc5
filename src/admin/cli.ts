// `npm run admin -- <command> [--flags]`: the operator plane from a command line. Calls the
// HTTP operator plane of a running server and prints its JSON answer.
//   --url        default http://HOST:PORT of the configuration (http://127.0.0.1:8080)
//   --admin-key  default ADMIN_KEY, else the generated key in DATA_DIR/admin.key
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ADMIN_KEY_FILE } from '../auth/admin-key.js';
import { ConfigError, loadConfig } from '../config/config.js';

const USAGE = `usage: npm run admin -- <command> [options]

commands:
  create-client        --name NAME
  create-program       --client cli_... --name NAME
  issue-client-key     --client cli_... --env live|sandbox [--scopes a,b] [--ip ADDR_OR_CIDR]... [--expires-at ISO8601]
  issue-principal-key  --principal prn_... --env live|sandbox [--scopes a,b] [--ip ADDR_OR_CIDR]... [--expires-at ISO8601]
  rotate               --credential acr_... [--grace-seconds N]
  revoke               --credential acr_...

options:
  --url URL            the running service (default http://HOST:PORT from the environment, http://127.0.0.1:8080)
  --admin-key KEY      operator key (default ADMIN_KEY, else DATA_DIR/admin.key)
`;

interface Call {
  path: string;
  body: Record<string, unknown> | undefined;
}

type Values = Record<string, string | string[] | boolean | undefined>;

class UsageError extends Error {}

function need(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.length === 0) throw new UsageError(`--${name} is required`);
  return v;
}

function credentialBody(values: Values): Record<string, unknown> {
  const body: Record<string, unknown> = { environment: need(values, 'env') };
  if (typeof values.scopes === 'string') body.scopes = values.scopes;
  const ips = values.ip;
  if (Array.isArray(ips) && ips.length > 0) body.ip_allowlist = ips.flatMap((s) => s.split(',')).map((s) => s.trim());
  if (typeof values['expires-at'] === 'string') body.expires_at = values['expires-at'];
  return body;
}

function buildCall(command: string, values: Values): Call {
  const seg = (name: string) => encodeURIComponent(need(values, name));
  switch (command) {
    case 'create-client':
      return { path: '/admin/v1/clients', body: { name: need(values, 'name') } };
    case 'create-program':
      return { path: `/admin/v1/clients/${seg('client')}/programs`, body: { name: need(values, 'name') } };
    case 'issue-client-key':
      return { path: `/admin/v1/clients/${seg('client')}/credentials`, body: credentialBody(values) };
    case 'issue-principal-key':
      return { path: `/admin/v1/principals/${seg('principal')}/credentials`, body: credentialBody(values) };
    case 'rotate': {
      const body: Record<string, unknown> = {};
      const grace = values['grace-seconds'];
      if (typeof grace === 'string') {
        if (!/^\d+$/.test(grace)) throw new UsageError('--grace-seconds must be a whole number');
        body.grace_seconds = Number(grace);
      }
      return { path: `/admin/v1/credentials/${seg('credential')}/rotate`, body };
    }
    case 'revoke':
      return { path: `/admin/v1/credentials/${seg('credential')}/revoke`, body: undefined };
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'admin-key': { type: 'string' },
      name: { type: 'string' },
      client: { type: 'string' },
      principal: { type: 'string' },
      credential: { type: 'string' },
      env: { type: 'string' },
      scopes: { type: 'string' },
      ip: { type: 'string', multiple: true },
      'expires-at': { type: 'string' },
      'grace-seconds': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  if (values.help === true || command === undefined) {
    process.stdout.write(USAGE);
    return command === undefined && values.help !== true ? 2 : 0;
  }
  const call = buildCall(command, values);
  const config = loadConfig(process.env);
  const url = values.url ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  let adminKey = values['admin-key'] ?? config.adminKey;
  if (adminKey === null || adminKey === undefined) {
    const path = join(config.dataDir, ADMIN_KEY_FILE);
    try {
      adminKey = readFileSync(path, 'utf8').trim();
    } catch {
      throw new UsageError(`no --admin-key, no ADMIN_KEY and cannot read ${path}`);
    }
  }
  const headers: Record<string, string> = { 'x-admin-key': adminKey };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(new URL(call.path, url), {
    method: 'POST',
    headers,
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  const text = await res.text();
  let out: unknown = text;
  try {
    out = JSON.parse(text);
  } catch {
    // not JSON: print as is
  }
  const printed = `${typeof out === 'string' ? out : JSON.stringify(out, null, 2)}\n`;
  if (res.ok) {
    process.stdout.write(printed);
    return 0;
  }
  process.stderr.write(printed);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (
      err instanceof UsageError ||
      err instanceof ConfigError ||
      (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`admin: ${(err as Error).message}\n`);
    process.exitCode = 1;
  },
);
