// Configuration: environment variables only, parsed once at start into a frozen object that
// is passed down. Nothing else in the service reads process.env. Each variable's default,
// bounds and meaning are in ./reference.ts, which the helpers below read and which renders
// docs/configuration.md.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { formatIpRange, parseIpRange } from '../domain/ip-range.js';
import {
  type ChoiceVariable,
  CONFIG_VARIABLES,
  type ConfigVariableName,
  type ParsedVariableName,
  type TextVariable,
  type VariableOfKind,
  WEBHOOK_CLAIM_LEASE_MARGIN_MS,
} from './reference.js';

export type WebhookUrlPolicy = (typeof CONFIG_VARIABLES)['WEBHOOK_URL_POLICY']['values'][number];
export type LogLevel = (typeof CONFIG_VARIABLES)['LOG_LEVEL']['values'][number];

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Live (production) database URL; null means embedded PGlite under dataDir. */
  readonly databaseUrl: string | null;
  /** Sandbox database URL; null means derived (same server, name + `_sandbox`, or a second PGlite). */
  readonly sandboxDatabaseUrl: string | null;
  /**
   * When the embedded sandbox database opens (EMBEDDED_SANDBOX_OPEN): 'first-use' (~30-45 MB
   * less idle memory until something uses the sandbox) or 'start' (no first request waits for
   * the open). Ignored with DATABASE_URL.
   */
  readonly embeddedSandboxOpen: 'first-use' | 'start';
  readonly dataDir: string;
  /** NATS server with JetStream; null means the in-process event bus. */
  readonly natsUrl: string | null;
  /** JetStream stream of the events (NATS_STREAM, internal). */
  readonly natsStream: string;
  /** First subject token (NATS_SUBJECT_PREFIX, internal): tests share one NATS. */
  readonly natsSubjectPrefix: string;
  /** Operator key; null means generated once and stored under dataDir. */
  readonly adminKey: string | null;
  /** Number of actor worker threads (shards). */
  readonly workers: number;
  /** Addresses and CIDR ranges (canonical text) whose X-Forwarded-For is believed. */
  readonly trustedProxies: readonly string[];
  readonly webhookUrlPolicy: WebhookUrlPolicy;
  /** Ports a webhook URL may use under WEBHOOK_URL_POLICY=public (WEBHOOK_ALLOWED_PORTS). */
  readonly webhookAllowedPorts: readonly number[];
  /** Retry delays after the first attempt, in milliseconds. */
  readonly webhookRetryScheduleMs: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookDisableAfter: number;
  /**
   * How long an instance's claim on a webhook delivery outlives its attempt or retry wait
   * (WEBHOOK_CLAIM_LEASE_MS; must exceed WEBHOOK_TIMEOUT_MS).
   */
  readonly webhookClaimLeaseMs: number;
  /** Lease of the outbox relay among instances sharing a database (OUTBOX_RELAY_LEASE_MS). */
  readonly outboxRelayLeaseMs: number;
  readonly oauthTokenTtlSeconds: number;
  readonly keyRotationGraceSeconds: number;
  /** Failed authentications a source may have per window before 429; 0 turns throttling off. */
  readonly authFailureLimit: number;
  /** Length of the failed-authentication window, in seconds. */
  readonly authFailureWindowSeconds: number;
  /** Least time between the start of an authentication and its rejection, in milliseconds. */
  readonly authRejectMinMs: number;
  readonly logLevel: LogLevel;
  /** Largest accepted request body, in bytes. */
  readonly maxBodyBytes: number;
  /** Largest accepted `metadata` object, in bytes of its JSON text (METADATA_MAX_BYTES). */
  readonly metadataMaxBytes: number;
  /** Sustained requests per second allowed per credential (API key), cluster-wide; 0 turns it off. */
  readonly rateLimitRequestsPerSecond: number;
  /** Requests a credential may send at once after being idle (token bucket size), cluster-wide. */
  readonly rateLimitBurstRequests: number;
  /** Sustained requests per second allowed per Client (all its keys and Principals), cluster-wide; 0 off. */
  readonly rateLimitClientRequestsPerSecond: number;
  /** Requests a Client may send at once after being idle, cluster-wide. */
  readonly rateLimitClientBurstRequests: number;
  /** Requests per second per client address to the public AP2 status by hash; 0 turns it off. */
  readonly ap2StatusRequestsPerSecond: number;
  /** Requests a client address may send at once to the public AP2 status by hash. */
  readonly ap2StatusBurstRequests: number;
  /**
   * Decisions in flight on one instance above which each tenant (Client, and Principal within
   * it) may hold only its share; beyond it a request waits in its tenant's bounded queue, or is
   * refused 429 (src/http/fair-share.ts). 0 turns fair share off.
   */
  readonly fairShareInFlight: number;
  /** Seconds between the heartbeats of the instance registry (live instances share the limits). */
  readonly instanceHeartbeatSeconds: number;
  /** With NATS on PostgreSQL: a shard lease not renewed for this long may be claimed elsewhere (ms). */
  readonly shardLeaseTtlMs: number;
  /** With NATS on PostgreSQL: milliseconds between two renewals of an instance's shard leases. */
  readonly shardLeaseRenewMs: number;
  /** Idempotent answers kept per owner (Principal on /authorize, Client on onboarding) within 24 h. */
  readonly idempotencyMaxStoredPerOwner: number;
  /** Seconds between sweeps of the idempotency stores. */
  readonly idempotencySweepSeconds: number;
  /** Milliseconds between two rounds of the hold expiry sweep (docs/holds.md). */
  readonly holdExpirySweepMs: number;
  /** Milliseconds between two rounds of the sweep of stale AP2 presentation claims (docs/ap2.md). */
  readonly ap2ClaimSweepMs: number;
  /**
   * SPEC.md rule 3's last step, "when client tenancy is enabled": a Client key on the Principal
   * plane acts as the Client's only Principal. Off by default, so rule 1 holds (a Client key on
   * /authorize fails authentication).
   */
  readonly clientTenancy: boolean;
  /** Serve the agents' MCP server over streamable HTTP (docs/mcp.md), on mcpHttpPort. */
  readonly mcpHttp: boolean;
  readonly mcpHttpPort: number;
  /** Agent actors kept in memory per shard (ENGINE_MAX_ACTORS, internal tuning). */
  readonly engineMaxActors: number;
  /**
   * PostgreSQL connections of the main thread's pool, per database (DATABASE_POOL_SIZE; opened
   * on demand). The webhook dispatcher's pool takes at most 4 of the same size.
   */
  readonly databasePoolSize: number;
  /**
   * PostgreSQL connections of each shard worker, per database (ENGINE_POOL_SIZE; opened
   * at start). A process holds about DATABASE_POOL_SIZE x 2 + WORKERS x ENGINE_POOL_SIZE x 2 + 10.
   */
  readonly enginePoolSize: number;
  /**
   * Estimated bytes of the agent actors kept per shard (ENGINE_MAX_ACTOR_BYTES, internal tuning).
   * Least recently used actors beyond either bound are rebuilt from the database.
   */
  readonly engineMaxActorBytes: number;
  /**
   * Bound on a graceful stop (SIGTERM/SIGINT), in milliseconds: the HTTP drain uses at most half
   * of it, flushing the audit log and the outbox the rest; past it the process exits 1.
   */
  readonly shutdownTimeoutMs: number;
  /**
   * SECRETS_KEY: 32-byte AES-256-GCM key sealing secrets at rest (token signing key, webhook
   * signing secrets); null means generated once under dataDir (docs/secrets.md).
   */
  readonly secretsKey: Buffer | null;
  /** SECRETS_KEY_PREVIOUS: earlier keys, comma-separated, only for opening while re-sealing. */
  readonly secretsKeyPrevious: readonly Buffer[];
  /**
   * POST /api/v1/authorize answers by this time after the request was received, in
   * milliseconds: when the decision (authentication included) is not made and recorded by then,
   * the safe DECLINE system_unavailable (AUTHORIZE_DEADLINE_MS).
   */
  readonly authorizeDeadlineMs: number;
  /**
   * Every other endpoint answers by this time, in milliseconds, else 503 service_unavailable
   * with Retry-After (REQUEST_DEADLINE_MS). A route waiting on an outbound call
   * of its own (the webhook test) gets its own call's timeout on top.
   */
  readonly requestDeadlineMs: number;
  /** Time to open a database connection before it counts as failed, in milliseconds (DATABASE_CONNECT_TIMEOUT_MS). */
  readonly databaseConnectTimeoutMs: number;
  /** SMTP_URL: the server sending the step-up confirmation e-mail; null: no e-mail is sent. */
  readonly smtpUrl: string | null;
  /** SMTP_FROM: the e-mail's sender. */
  readonly smtpFrom: string;
  /** SMTP_TIMEOUT_MS: bound on connecting and on each SMTP answer, in milliseconds. */
  readonly smtpTimeoutMs: number;
  /** PUBLIC_URL without a trailing slash: base of the confirmation link; null: the edge's own address. */
  readonly publicUrl: string | null;
  /** STEP_UP_NOTIFY_INTERVAL_MS: milliseconds between two rounds of the step-up notifier. */
  readonly stepUpNotifyIntervalMs: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: ConfigVariableName,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;
type Variables = typeof CONFIG_VARIABLES;

/** The variable's value as set, or undefined when unset or empty. The only read of `env`. */
function str(env: Env, name: ParsedVariableName): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** A whole number within the variable's bounds; `derived` is the default of one whose default is null. */
function int(env: Env, name: VariableOfKind<'integer'>, derived?: number): number {
  const { default: fixed, min, max } = CONFIG_VARIABLES[name];
  const raw = str(env, name);
  if (raw === undefined) {
    const def = fixed ?? derived;
    if (def === undefined) throw new Error(`${name} has no default: pass the derived one`);
    return def;
  }
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** The value as set, else the variable's default (null for one unset by default). */
function text<N extends VariableOfKind<'text'>>(env: Env, name: N): string | Variables[N]['default'] {
  const v = CONFIG_VARIABLES[name] as TextVariable;
  const raw = str(env, name) ?? (v.default as Variables[N]['default']);
  if (v.pattern !== undefined && raw !== null && !v.pattern.test(raw)) {
    throw new ConfigError(name, `must match ${v.pattern.source}, got "${raw}"`);
  }
  return raw;
}

function choice<N extends VariableOfKind<'choice'>>(env: Env, name: N): Variables[N]['values'][number] {
  const { values, default: def } = CONFIG_VARIABLES[name] as ChoiceVariable;
  const raw = str(env, name) ?? def;
  if (!values.includes(raw)) {
    throw new ConfigError(
      name,
      values.length === 2
        ? `must be "${values[0]}" or "${values[1]}", got "${raw}"`
        : `must be one of ${values.join(', ')}`,
    );
  }
  return raw as Variables[N]['values'][number];
}

function flag(env: Env, name: VariableOfKind<'switch'>): boolean {
  const raw = str(env, name);
  if (raw === undefined) return CONFIG_VARIABLES[name].default;
  if (raw === 'on' || raw === 'true' || raw === '1') return true;
  if (raw === 'off' || raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be "on" or "off", got "${raw}"`);
}

function url(env: Env, name: VariableOfKind<'url'>): string | null {
  const raw = str(env, name);
  if (raw === undefined) return null;
  const protocols: readonly string[] = CONFIG_VARIABLES[name].protocols;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function loadConfig(env: Env): Config {
  const defaultWorkers = Math.max(1, availableParallelism() - 1);
  const trustedProxies = list(text(env, 'TRUSTED_PROXIES')).map((p) => {
    const range = parseIpRange(p);
    if (range === null) {
      throw new ConfigError('TRUSTED_PROXIES', `"${p}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8)`);
    }
    return formatIpRange(range);
  });
  const ports = text(env, 'WEBHOOK_ALLOWED_PORTS')
    .split(',')
    .map((p) => p.trim());
  if (ports.some((p) => !/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535)) {
    throw new ConfigError('WEBHOOK_ALLOWED_PORTS', 'must be a comma-separated list of ports (1-65535), e.g. 443,8443');
  }
  const schedule = text(env, 'WEBHOOK_RETRY_SCHEDULE_MS')
    .split(',')
    .map((s) => s.trim());
  if (schedule.some((s) => !/^\d+$/.test(s))) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE_MS', 'must be a comma-separated list of whole milliseconds');
  }
  const databaseUrl = url(env, 'DATABASE_URL');
  const sandboxDatabaseUrl = url(env, 'SANDBOX_DATABASE_URL');
  if (databaseUrl !== null && sandboxDatabaseUrl !== null && sameDatabase(databaseUrl, sandboxDatabaseUrl)) {
    throw new ConfigError('SANDBOX_DATABASE_URL', 'must not name the same database as DATABASE_URL');
  }
  const secretsKey = secretsKeyOf('SECRETS_KEY', text(env, 'SECRETS_KEY') ?? undefined);
  const secretsKeyPrevious = list(text(env, 'SECRETS_KEY_PREVIOUS')).map(
    (s) => secretsKeyOf('SECRETS_KEY_PREVIOUS', s) as Buffer,
  );
  if (secretsKey === null && secretsKeyPrevious.length > 0) {
    throw new ConfigError('SECRETS_KEY_PREVIOUS', 'is only read together with SECRETS_KEY (the new key)');
  }
  const webhookTimeoutMs = int(env, 'WEBHOOK_TIMEOUT_MS');
  const webhookClaimLeaseMs = int(env, 'WEBHOOK_CLAIM_LEASE_MS', webhookTimeoutMs + WEBHOOK_CLAIM_LEASE_MARGIN_MS);
  if (webhookClaimLeaseMs <= webhookTimeoutMs) {
    throw new ConfigError(
      'WEBHOOK_CLAIM_LEASE_MS',
      `must exceed WEBHOOK_TIMEOUT_MS (${webhookTimeoutMs}), got ${webhookClaimLeaseMs}`,
    );
  }
  const adminKey = text(env, 'ADMIN_KEY');
  if (adminKey !== null && adminKey.length < 16) {
    throw new ConfigError('ADMIN_KEY', 'must be at least 16 characters');
  }
  return Object.freeze({
    port: int(env, 'PORT'),
    host: text(env, 'HOST'),
    databaseUrl,
    sandboxDatabaseUrl,
    embeddedSandboxOpen: choice(env, 'EMBEDDED_SANDBOX_OPEN'),
    dataDir: resolve(text(env, 'DATA_DIR')),
    natsUrl: url(env, 'NATS_URL'),
    natsStream: text(env, 'NATS_STREAM'),
    natsSubjectPrefix: text(env, 'NATS_SUBJECT_PREFIX'),
    adminKey,
    workers: int(env, 'WORKERS', defaultWorkers),
    trustedProxies: Object.freeze(trustedProxies),
    webhookUrlPolicy: choice(env, 'WEBHOOK_URL_POLICY'),
    webhookAllowedPorts: Object.freeze([...new Set(ports.map(Number))]),
    webhookRetryScheduleMs: Object.freeze(schedule.map(Number)),
    webhookTimeoutMs,
    webhookClaimLeaseMs,
    outboxRelayLeaseMs: int(env, 'OUTBOX_RELAY_LEASE_MS'),
    webhookDisableAfter: int(env, 'WEBHOOK_DISABLE_AFTER'),
    oauthTokenTtlSeconds: int(env, 'OAUTH_TOKEN_TTL_SECONDS'),
    keyRotationGraceSeconds: int(env, 'KEY_ROTATION_GRACE_SECONDS'),
    authFailureLimit: int(env, 'AUTH_FAILURE_LIMIT'),
    authFailureWindowSeconds: int(env, 'AUTH_FAILURE_WINDOW_SECONDS'),
    authRejectMinMs: int(env, 'AUTH_REJECT_MIN_MS'),
    logLevel: choice(env, 'LOG_LEVEL'),
    maxBodyBytes: int(env, 'MAX_BODY_BYTES'),
    metadataMaxBytes: int(env, 'METADATA_MAX_BYTES'),
    rateLimitRequestsPerSecond: int(env, 'RATE_LIMIT_REQUESTS_PER_SECOND'),
    rateLimitBurstRequests: int(env, 'RATE_LIMIT_BURST_REQUESTS'),
    rateLimitClientRequestsPerSecond: int(env, 'RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND'),
    rateLimitClientBurstRequests: int(env, 'RATE_LIMIT_CLIENT_BURST_REQUESTS'),
    ap2StatusRequestsPerSecond: int(env, 'AP2_STATUS_REQUESTS_PER_SECOND'),
    ap2StatusBurstRequests: int(env, 'AP2_STATUS_BURST_REQUESTS'),
    fairShareInFlight: int(env, 'FAIR_SHARE_IN_FLIGHT'),
    instanceHeartbeatSeconds: int(env, 'INSTANCE_HEARTBEAT_SECONDS'),
    shardLeaseTtlMs: int(env, 'SHARD_LEASE_TTL_MS'),
    shardLeaseRenewMs: int(env, 'SHARD_LEASE_RENEW_MS'),
    idempotencyMaxStoredPerOwner: int(env, 'IDEMPOTENCY_MAX_STORED_PER_OWNER'),
    idempotencySweepSeconds: int(env, 'IDEMPOTENCY_SWEEP_SECONDS'),
    holdExpirySweepMs: int(env, 'HOLD_EXPIRY_SWEEP_MS'),
    ap2ClaimSweepMs: int(env, 'AP2_CLAIM_SWEEP_MS'),
    clientTenancy: flag(env, 'CLIENT_TENANCY'),
    mcpHttp: flag(env, 'MCP_HTTP'),
    mcpHttpPort: int(env, 'MCP_HTTP_PORT'),
    engineMaxActors: int(env, 'ENGINE_MAX_ACTORS'),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE'),
    enginePoolSize: int(env, 'ENGINE_POOL_SIZE'),
    engineMaxActorBytes: int(env, 'ENGINE_MAX_ACTOR_BYTES'),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS'),
    secretsKey,
    secretsKeyPrevious: Object.freeze(secretsKeyPrevious),
    authorizeDeadlineMs: int(env, 'AUTHORIZE_DEADLINE_MS'),
    requestDeadlineMs: int(env, 'REQUEST_DEADLINE_MS'),
    databaseConnectTimeoutMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS'),
    smtpUrl: url(env, 'SMTP_URL'),
    smtpFrom: text(env, 'SMTP_FROM'),
    smtpTimeoutMs: int(env, 'SMTP_TIMEOUT_MS'),
    publicUrl: url(env, 'PUBLIC_URL')?.replace(/\/+$/, '') ?? null,
    stepUpNotifyIntervalMs: int(env, 'STEP_UP_NOTIFY_INTERVAL_MS'),
  });
}

/** A secrets key: base64 (standard or URL-safe) of exactly 32 bytes, e.g. `openssl rand -base64 32`. */
function secretsKeyOf(name: 'SECRETS_KEY' | 'SECRETS_KEY_PREVIOUS', raw: string | undefined): Buffer | null {
  if (raw === undefined) return null;
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : null;
  if (key === null || key.length !== 32) {
    throw new ConfigError(name, 'must be the base64 of 32 random bytes (openssl rand -base64 32)');
  }
  return key;
}

function sameDatabase(a: string, b: string): boolean {
  const x = new URL(a);
  const y = new URL(b);
  return x.host === y.host && x.pathname === y.pathname;
}
