// Configuration: environment variables only, parsed once at start into a frozen object that
// is passed down. Nothing else in the service reads process.env.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { formatIpRange, parseIpRange } from '../http/ip-range.js';

export type WebhookUrlPolicy = 'public' | 'any';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Live (production) database URL; null means embedded PGlite under dataDir. */
  readonly databaseUrl: string | null;
  /** Sandbox database URL; null means derived (same server, name + `_sandbox`, or a second PGlite). */
  readonly sandboxDatabaseUrl: string | null;
  /**
   * When the embedded sandbox database opens (EMBEDDED_SANDBOX_OPEN): 'first-use' (default;
   * ~30-45 MB less idle memory until something uses the sandbox) or 'start' (no first request
   * waits for the open). Ignored with DATABASE_URL.
   */
  readonly embeddedSandboxOpen: 'first-use' | 'start';
  readonly dataDir: string;
  /** NATS server with JetStream; null means the in-process event bus. */
  readonly natsUrl: string | null;
  /** JetStream stream of the events (NATS_STREAM, internal; default MANDATE_EVENTS). */
  readonly natsStream: string;
  /** First subject token (NATS_SUBJECT_PREFIX, internal; default mandate): tests share one NATS. */
  readonly natsSubjectPrefix: string;
  /** Operator key; null means generated once and stored under dataDir. */
  readonly adminKey: string | null;
  /** Number of actor worker threads (shards). */
  readonly workers: number;
  /** Addresses and CIDR ranges (canonical text) whose X-Forwarded-For is believed. */
  readonly trustedProxies: readonly string[];
  readonly webhookUrlPolicy: WebhookUrlPolicy;
  /** Ports a webhook URL may use under WEBHOOK_URL_POLICY=public (WEBHOOK_ALLOWED_PORTS; default 443 only). */
  readonly webhookAllowedPorts: readonly number[];
  /** Retry delays after the first attempt, in milliseconds. */
  readonly webhookRetryScheduleMs: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookDisableAfter: number;
  /**
   * How long an instance's claim on a webhook delivery outlives its attempt or retry wait
   * (WEBHOOK_CLAIM_LEASE_MS; default WEBHOOK_TIMEOUT_MS + 20 s, must exceed WEBHOOK_TIMEOUT_MS).
   */
  readonly webhookClaimLeaseMs: number;
  /** Lease of the outbox relay among instances sharing a database (OUTBOX_RELAY_LEASE_MS; default 5000). */
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
  /**
   * SPEC.md rule 3's last step, "when client tenancy is enabled": a Client key on the Principal
   * plane acts as the Client's only Principal. Off by default, so rule 1 holds (a Client key on
   * /authorize fails authentication).
   */
  readonly clientTenancy: boolean;
  /** Agent actors kept in memory per shard (ENGINE_MAX_ACTORS, internal tuning; default 100 000). */
  readonly engineMaxActors: number;
  /**
   * PostgreSQL connections of the main thread's pool, per database (DATABASE_POOL_SIZE; default
   * 10; opened on demand). The webhook dispatcher's pool takes at most 4 of the same size.
   */
  readonly databasePoolSize: number;
  /**
   * PostgreSQL connections of each shard worker, per database (ENGINE_POOL_SIZE; default 4; opened
   * at start). A process holds about DATABASE_POOL_SIZE x 2 + WORKERS x ENGINE_POOL_SIZE x 2 + 10.
   */
  readonly enginePoolSize: number;
  /**
   * Estimated bytes of the agent actors kept per shard (ENGINE_MAX_ACTOR_BYTES, internal tuning;
   * default 1 GiB). Least recently used actors beyond either bound are rebuilt from the database.
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
   * the safe DECLINE system_unavailable (AUTHORIZE_DEADLINE_MS; default 1000).
   */
  readonly authorizeDeadlineMs: number;
  /**
   * Every other endpoint answers by this time, in milliseconds, else 503 service_unavailable
   * with Retry-After (REQUEST_DEADLINE_MS; default 5000). A route waiting on an outbound call
   * of its own (the webhook test) gets its own call's timeout on top.
   */
  readonly requestDeadlineMs: number;
  /** Time to open a database connection before it counts as failed, in milliseconds (DATABASE_CONNECT_TIMEOUT_MS; default 1500). */
  readonly databaseConnectTimeoutMs: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

const SUBJECT_PREFIX = /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,3}$/;

function token(env: Env, name: string, def: string, pattern: RegExp): string {
  const raw = str(env, name) ?? def;
  if (!pattern.test(raw)) throw new ConfigError(name, `must match ${pattern.source}, got "${raw}"`);
  return raw;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (raw === 'on' || raw === 'true' || raw === '1') return true;
  if (raw === 'off' || raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be "on" or "off", got "${raw}"`);
}

function url(env: Env, name: string, protocols: readonly string[]): string | null {
  const raw = str(env, name);
  if (raw === undefined) return null;
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

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env): Config {
  const defaultWorkers = Math.max(1, availableParallelism() - 1);
  const trustedProxies = (str(env, 'TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((p) => {
      const range = parseIpRange(p);
      if (range === null) {
        throw new ConfigError(
          'TRUSTED_PROXIES',
          `"${p}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8)`,
        );
      }
      return formatIpRange(range);
    });
  const sandboxOpen = str(env, 'EMBEDDED_SANDBOX_OPEN') ?? 'first-use';
  if (sandboxOpen !== 'first-use' && sandboxOpen !== 'start') {
    throw new ConfigError('EMBEDDED_SANDBOX_OPEN', `must be "first-use" or "start", got "${sandboxOpen}"`);
  }
  const policy = str(env, 'WEBHOOK_URL_POLICY') ?? 'public';
  if (policy !== 'public' && policy !== 'any') {
    throw new ConfigError('WEBHOOK_URL_POLICY', `must be "public" or "any", got "${policy}"`);
  }
  const ports = (str(env, 'WEBHOOK_ALLOWED_PORTS') ?? '443').split(',').map((p) => p.trim());
  if (ports.some((p) => !/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535)) {
    throw new ConfigError('WEBHOOK_ALLOWED_PORTS', 'must be a comma-separated list of ports (1-65535), e.g. 443,8443');
  }
  const scheduleRaw = str(env, 'WEBHOOK_RETRY_SCHEDULE_MS') ?? '1000,5000,30000,120000,900000';
  const schedule = scheduleRaw.split(',').map((s) => s.trim());
  if (schedule.some((s) => !/^\d+$/.test(s))) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE_MS', 'must be a comma-separated list of whole milliseconds');
  }
  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const sandboxDatabaseUrl = url(env, 'SANDBOX_DATABASE_URL', ['postgres:', 'postgresql:']);
  if (databaseUrl !== null && sandboxDatabaseUrl !== null && sameDatabase(databaseUrl, sandboxDatabaseUrl)) {
    throw new ConfigError('SANDBOX_DATABASE_URL', 'must not name the same database as DATABASE_URL');
  }
  const secretsKey = secretsKeyOf('SECRETS_KEY', str(env, 'SECRETS_KEY'));
  const secretsKeyPrevious = (str(env, 'SECRETS_KEY_PREVIOUS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => secretsKeyOf('SECRETS_KEY_PREVIOUS', s) as Buffer);
  if (secretsKey === null && secretsKeyPrevious.length > 0) {
    throw new ConfigError('SECRETS_KEY_PREVIOUS', 'is only read together with SECRETS_KEY (the new key)');
  }
  const webhookTimeoutMs = int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1, 600_000);
  const webhookClaimLeaseMs = int(env, 'WEBHOOK_CLAIM_LEASE_MS', webhookTimeoutMs + 20_000, 100, 3_600_000);
  if (webhookClaimLeaseMs <= webhookTimeoutMs) {
    throw new ConfigError(
      'WEBHOOK_CLAIM_LEASE_MS',
      `must exceed WEBHOOK_TIMEOUT_MS (${webhookTimeoutMs}), got ${webhookClaimLeaseMs}`,
    );
  }
  const adminKey = str(env, 'ADMIN_KEY') ?? null;
  if (adminKey !== null && adminKey.length < 16) {
    throw new ConfigError('ADMIN_KEY', 'must be at least 16 characters');
  }
  return Object.freeze({
    port: int(env, 'PORT', 8080, 0, 65535),
    host,
    databaseUrl,
    sandboxDatabaseUrl,
    embeddedSandboxOpen: sandboxOpen,
    dataDir: resolve(str(env, 'DATA_DIR') ?? './data'),
    natsUrl: url(env, 'NATS_URL', ['nats:', 'tls:', 'ws:', 'wss:']),
    natsStream: token(env, 'NATS_STREAM', 'MANDATE_EVENTS', /^[A-Za-z0-9_-]{1,64}$/),
    natsSubjectPrefix: token(env, 'NATS_SUBJECT_PREFIX', 'mandate', SUBJECT_PREFIX),
    adminKey,
    workers: int(env, 'WORKERS', defaultWorkers, 1, 256),
    trustedProxies: Object.freeze(trustedProxies),
    webhookUrlPolicy: policy,
    webhookAllowedPorts: Object.freeze([...new Set(ports.map(Number))]),
    webhookRetryScheduleMs: Object.freeze(schedule.map(Number)),
    webhookTimeoutMs,
    webhookClaimLeaseMs,
    outboxRelayLeaseMs: int(env, 'OUTBOX_RELAY_LEASE_MS', 5_000, 500, 60_000),
    webhookDisableAfter: int(env, 'WEBHOOK_DISABLE_AFTER', 50, 1, 1_000_000),
    oauthTokenTtlSeconds: int(env, 'OAUTH_TOKEN_TTL_SECONDS', 3600, 1, 31_536_000),
    keyRotationGraceSeconds: int(env, 'KEY_ROTATION_GRACE_SECONDS', 900, 0, 31_536_000),
    authFailureLimit: int(env, 'AUTH_FAILURE_LIMIT', 50, 0, 1_000_000),
    authFailureWindowSeconds: int(env, 'AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 86_400),
    authRejectMinMs: int(env, 'AUTH_REJECT_MIN_MS', 50, 0, 10_000),
    logLevel,
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 1_048_576, 1024, 104_857_600),
    metadataMaxBytes: int(env, 'METADATA_MAX_BYTES', 16_384, 2, 1_048_576),
    rateLimitRequestsPerSecond: int(env, 'RATE_LIMIT_REQUESTS_PER_SECOND', 1_000, 0, 100_000_000),
    rateLimitBurstRequests: int(env, 'RATE_LIMIT_BURST_REQUESTS', 2_000, 1, 100_000_000),
    rateLimitClientRequestsPerSecond: int(env, 'RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND', 5_000, 0, 100_000_000),
    rateLimitClientBurstRequests: int(env, 'RATE_LIMIT_CLIENT_BURST_REQUESTS', 10_000, 1, 100_000_000),
    fairShareInFlight: int(env, 'FAIR_SHARE_IN_FLIGHT', 32, 0, 1_000_000),
    instanceHeartbeatSeconds: int(env, 'INSTANCE_HEARTBEAT_SECONDS', 5, 1, 3_600),
    shardLeaseTtlMs: int(env, 'SHARD_LEASE_TTL_MS', 3000, 500, 600_000),
    shardLeaseRenewMs: int(env, 'SHARD_LEASE_RENEW_MS', 500, 50, 60_000),
    idempotencyMaxStoredPerOwner: int(env, 'IDEMPOTENCY_MAX_STORED_PER_OWNER', 10_000, 1, 100_000_000),
    idempotencySweepSeconds: int(env, 'IDEMPOTENCY_SWEEP_SECONDS', 60, 1, 86_400),
    holdExpirySweepMs: int(env, 'HOLD_EXPIRY_SWEEP_MS', 5_000, 50, 3_600_000),
    clientTenancy: bool(env, 'CLIENT_TENANCY', false),
    engineMaxActors: int(env, 'ENGINE_MAX_ACTORS', 100_000, 1, 100_000_000),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 1_000),
    enginePoolSize: int(env, 'ENGINE_POOL_SIZE', 4, 1, 100),
    engineMaxActorBytes: int(env, 'ENGINE_MAX_ACTOR_BYTES', 1024 * 1024 * 1024, 65_536, 1024 ** 4),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 1_000, 600_000),
    secretsKey,
    secretsKeyPrevious: Object.freeze(secretsKeyPrevious),
    authorizeDeadlineMs: int(env, 'AUTHORIZE_DEADLINE_MS', 1000, 50, 60_000),
    requestDeadlineMs: int(env, 'REQUEST_DEADLINE_MS', 5000, 100, 600_000),
    databaseConnectTimeoutMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', 1500, 100, 600_000),
  });
}

/** A secrets key: base64 (standard or URL-safe) of exactly 32 bytes, e.g. `openssl rand -base64 32`. */
function secretsKeyOf(name: string, raw: string | undefined): Buffer | null {
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
