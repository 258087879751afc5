// `npm run admin -- <command> [--flags]`: the operator plane from a command line. Calls the
// HTTP operator plane of a running server and prints its answer as a readable table, or as the
// service's JSON with --json. Errors say what to do next (exit 1; usage errors exit 2).
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
  rotate-receipt-key   [--lead-seconds N] [--retention-days N]
                       (the key that signs decision receipts; defaults 60 s and 400 days)
  security-log         [--environment live|sandbox] [--action ACTION] [--actor KIND_OR_ID] [--since ISO8601]
                       [--until ISO8601] [--limit N] [--cursor CURSOR]   (one page, newest first)
  list-clients         [--limit N] [--cursor CURSOR]   (one page, newest first)
  list-keys            --client cli_... | --principal prn_...  [--env live|sandbox]
                       (a Client's own keys, or a Principal's; never the key itself)

options:
  --url URL            the running service (default http://HOST:PORT from the environment, http://127.0.0.1:8080)
  --admin-key KEY      operator key (default ADMIN_KEY, else DATA_DIR/admin.key)
  --json               print the service's JSON answer (errors: the error envelope on stderr)
`;

interface Call {
  method?: 'GET' | 'POST';
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
    case 'rotate-receipt-key': {
      const body: Record<string, unknown> = {};
      for (const [flag, field] of [
        ['lead-seconds', 'lead_seconds'],
        ['retention-days', 'retention_days'],
      ] as const) {
        const v = values[flag];
        if (typeof v !== 'string') continue;
        if (!/^\d+$/.test(v)) throw new UsageError(`--${flag} must be a whole number`);
        body[field] = Number(v);
      }
      return { path: '/admin/v1/receipt-keys/rotate', body };
    }
    case 'revoke':
      return { path: `/admin/v1/credentials/${seg('credential')}/revoke`, body: undefined };
    case 'security-log': {
      const query = new URLSearchParams();
      for (const name of ['environment', 'action', 'actor', 'since', 'until', 'limit', 'cursor']) {
        const v = values[name];
        if (typeof v === 'string') query.set(name, v);
      }
      const qs = query.toString();
      return { method: 'GET', path: `/admin/v1/security-log${qs === '' ? '' : `?${qs}`}`, body: undefined };
    }
    case 'list-clients': {
      const query = new URLSearchParams();
      for (const name of ['limit', 'cursor']) {
        const v = values[name];
        if (typeof v === 'string') query.set(name, v);
      }
      const qs = query.toString();
      return { method: 'GET', path: `/admin/v1/clients${qs === '' ? '' : `?${qs}`}`, body: undefined };
    }
    case 'list-keys': {
      const env = typeof values.env === 'string' ? `?environment=${encodeURIComponent(values.env)}` : '';
      if (typeof values.client === 'string' && typeof values.principal === 'string') {
        throw new UsageError('list-keys takes --client or --principal, not both');
      }
      if (typeof values.client === 'string') {
        return { method: 'GET', path: `/admin/v1/clients/${seg('client')}/credentials${env}`, body: undefined };
      }
      if (typeof values.principal === 'string') {
        return { method: 'GET', path: `/admin/v1/principals/${seg('principal')}/credentials${env}`, body: undefined };
      }
      throw new UsageError('list-keys needs --client cli_... or --principal prn_...');
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** The options each command takes besides --url, --admin-key, --json and --help. */
const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  'create-client': ['name'],
  'create-program': ['client', 'name'],
  'issue-client-key': ['client', 'env', 'scopes', 'ip', 'expires-at'],
  'issue-principal-key': ['principal', 'env', 'scopes', 'ip', 'expires-at'],
  rotate: ['credential', 'grace-seconds'],
  revoke: ['credential'],
  'rotate-receipt-key': ['lead-seconds', 'retention-days'],
  'security-log': ['environment', 'action', 'actor', 'since', 'until', 'limit', 'cursor'],
  'list-clients': ['limit', 'cursor'],
  'list-keys': ['client', 'principal', 'env'],
};
const COMMON_OPTIONS = new Set(['url', 'admin-key', 'json', 'help']);
/** An option another command spells differently: named in the refusal. */
const SPELLED: Readonly<Record<string, string>> = { env: 'environment', environment: 'env' };

/** Refuses (usage error) an option the command does not take, rather than ignore it. */
function checkOptions(command: string, values: Values): void {
  const allowed = COMMAND_OPTIONS[command];
  if (allowed === undefined) return;
  for (const name of Object.keys(values)) {
    if (values[name] === undefined || COMMON_OPTIONS.has(name) || allowed.includes(name)) continue;
    const other = SPELLED[name];
    const hint = other !== undefined && allowed.includes(other) ? `; did you mean --${other}?` : '';
    throw new UsageError(`${command} does not take --${name}${hint}`);
  }
}

/** The command line that fetches the next page: the same command and filters, with the cursor. */
function nextPageCommand(command: string, values: Values, cursor: string): string {
  const parts = ['npm run admin --', command];
  for (const name of COMMAND_OPTIONS[command] ?? []) {
    const v = values[name];
    if (name === 'cursor' || typeof v !== 'string') continue;
    parts.push(`--${name}`, /^[\w.:@,+-]+$/.test(v) ? v : `'${v.replaceAll("'", "'\\''")}'`);
  }
  parts.push('--cursor', cursor);
  return parts.join(' ');
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
      'lead-seconds': { type: 'string' },
      'retention-days': { type: 'string' },
      environment: { type: 'string' },
      action: { type: 'string' },
      actor: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  if (values.help === true || command === undefined) {
    process.stdout.write(USAGE);
    return command === undefined && values.help !== true ? 2 : 0;
  }
  checkOptions(command, values);
  const call = buildCall(command, values);
  const config = loadConfig(process.env);
  const url = values.url ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  let adminKey = values['admin-key'] ?? config.adminKey;
  const keyFile = join(config.dataDir, ADMIN_KEY_FILE);
  if (adminKey === null || adminKey === undefined) {
    try {
      adminKey = readFileSync(keyFile, 'utf8').trim();
    } catch {
      throw new CliError(
        `no operator key: pass --admin-key, set ADMIN_KEY, or set DATA_DIR to the service's data directory (cannot read ${keyFile})`,
      );
    }
  }
  const headers: Record<string, string> = { 'x-admin-key': adminKey };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(new URL(call.path, url), {
      method: call.method ?? 'POST',
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(
      `cannot reach ${url} (${cause?.code ?? cause?.message ?? (err as Error).message}): is the service running? set --url`,
    );
  }
  const text = await res.text();
  let out: unknown = text;
  try {
    out = JSON.parse(text);
  } catch {
    // not JSON: print as is
  }
  const asJson = values.json === true;
  if (res.ok) {
    process.stdout.write(asJson ? `${JSON.stringify(out, null, 2)}\n` : render(command, out, values));
    return 0;
  }
  if (asJson) process.stderr.write(`${typeof out === 'string' ? out : JSON.stringify(out, null, 2)}\n`);
  else {
    const env = typeof values.env === 'string' ? values.env : undefined;
    process.stderr.write(
      explain(res.status, out, { url, keyFile, explicitKey: values['admin-key'] !== undefined, env }),
    );
  }
  return 1;
}

/** An error the operator can act on, printed as one line without the usage text. */
class CliError extends Error {}

interface Envelope {
  error?: string;
  message?: string;
  status?: number;
  request_id?: string;
  errors?: { field: string; code: string; message: string }[];
}

/** What went wrong and what to do about it, for people. */
function explain(
  status: number,
  body: unknown,
  ctx: { url: string; keyFile: string; explicitKey: boolean; env?: string | undefined },
): string {
  const env = (body !== null && typeof body === 'object' ? body : {}) as Envelope;
  const code = env.error ?? `http_${status}`;
  const lines = [
    `error: ${env.message ?? (typeof body === 'string' ? body.slice(0, 200) : 'request failed')} (${code}, HTTP ${status})`,
  ];
  for (const e of env.errors ?? []) lines.push(`  ${e.field}: ${e.message} [${e.code}]`);
  const hint =
    code === 'principal_not_found' && ctx.env !== undefined
      ? `no such Principal in ${ctx.env}: check the prn_ id, and --env (a Principal lives in the environment it was onboarded in: a mdt_test_ Client key onboards into sandbox)`
      : HINTS[code];
  if (status === 401 || status === 403) {
    lines.push(
      ctx.explicitKey
        ? 'the operator key was refused: check --admin-key (the service takes ADMIN_KEY, else the key it wrote to DATA_DIR/admin.key)'
        : `the operator key was refused: check DATA_DIR/admin.key (${ctx.keyFile}), ADMIN_KEY or --admin-key`,
    );
  } else if (hint !== undefined) lines.push(hint);
  else if (status === 404 && code === 'route_not_found') {
    lines.push(`${ctx.url} does not serve this operator endpoint: is --url the Agent Spending Authorization Service?`);
  } else if (status >= 500)
    lines.push('the service could not answer: retry shortly, and see its log for this request id');
  if (env.request_id !== undefined) lines.push(`request id: ${env.request_id}`);
  return `${lines.join('\n')}\n`;
}

const HINTS: Record<string, string> = {
  client_not_found: 'no such Client: list them with `npm run admin -- list-clients`',
  principal_not_found:
    'no such Principal in either environment: check the prn_ id (GET /api/v1/principals/{id} with a Client key)',
  credential_not_found:
    'no such credential: list them with `npm run admin -- list-keys --client cli_...` or `--principal prn_...`',
  validation_error: 'fix the fields above and run the command again',
  rate_limited: 'too many requests: wait a moment and retry',
};

/** A readable table of a list answer ({items}), else one `key: value` line per field. */
function render(command: string, body: unknown, values: Values = {}): string {
  if (typeof body !== 'object' || body === null) return `${String(body)}\n`;
  const b = body as Record<string, unknown>;
  const lines: string[] = [];
  if (Array.isArray(b.items)) {
    const rows = (b.items as Record<string, unknown>[]).map((r) => withActorId(flatten(r)));
    lines.push(...table(rows, COLUMNS[command]));
    if (rows.length === 0) lines.push('(none)');
    if (typeof b.next_cursor === 'string') lines.push('', `more: ${nextPageCommand(command, values, b.next_cursor)}`);
  } else {
    const flat = flatten(b);
    const width = Math.max(...Object.keys(flat).map((k) => k.length));
    for (const [k, v] of Object.entries(flat)) lines.push(`${k.padEnd(width)}  ${v}`);
    if (typeof b.api_key === 'string') lines.push('', 'the api_key is shown this once and never again: store it now');
  }
  return `${lines.join('\n')}\n`;
}

const COLUMNS: Record<string, string[]> = {
  'list-clients': ['id', 'name', 'created_at'],
  'list-keys': ['id', 'environment', 'principal_id', 'status', 'scopes', 'ip_allowlist', 'expires_at', 'created_at'],
  'security-log': ['occurred_at', 'environment', 'action', 'actor.kind', 'actor.id', 'target.type', 'target.id'],
};

/** A security-log row's actor as one id: its credential, else its Principal, else its Client. */
function withActorId(row: Record<string, string>): Record<string, string> {
  if (!('actor.kind' in row)) return row;
  for (const k of ['actor.credential_id', 'actor.principal_id', 'actor.client_id']) {
    const v = row[k];
    if (v !== undefined && v !== '-') return { ...row, 'actor.id': v };
  }
  return row;
}

/** One level of nesting as dotted keys; arrays joined with commas; null as "-"; empty scopes (all) as "* (all)". */
function flatten(o: Record<string, unknown>, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  for (const [k, v] of Object.entries(o)) {
    const key = prefix === '' ? k : `${prefix}.${k}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, key, out);
    else if (k === 'scopes' && v === '') out[key] = '* (all)';
    else out[key] = v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') || '-' : String(v);
  }
  return out;
}

function table(rows: Record<string, string>[], columns: string[] | undefined): string[] {
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '-').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(width[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(cols.map((c) => c.toUpperCase())), ...rows.map((r) => line(cols.map((c) => r[c] ?? '-')))];
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
    if (err instanceof CliError) {
      process.stderr.write(`admin: ${err.message}\n`);
      process.exitCode = 1;
      return;
    }
    process.stderr.write(`admin: ${(err as Error).message}\n`);
    process.exitCode = 1;
  },
);
