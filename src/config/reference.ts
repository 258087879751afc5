// The service's environment variables, one descriptor each. The parser (./config.ts) takes each
// variable's default and bounds from here and can only be asked for a name listed here (its
// helpers take a ConfigVariableName), and docs/configuration.md is rendered from the same table
// (renderConfigReference, written by `npm run docs`). test/ops/configuration-reference.test.ts
// fails when the page is stale, or when the parser reads a variable this table does not list.

export type ConfigSection =
  | 'Listening and requests'
  | 'Storage'
  | 'Events'
  | 'Keys and secrets'
  | 'Throttling, rate limits and fair share'
  | 'Deadlines and shutdown'
  | 'Decision engine'
  | 'Webhooks'
  | 'Step-up confirmation'
  | 'Background work and instances'
  | 'Logging'
  | 'Read outside the parser';

const SECTIONS: readonly ConfigSection[] = [
  'Listening and requests',
  'Storage',
  'Events',
  'Keys and secrets',
  'Throttling, rate limits and fair share',
  'Deadlines and shutdown',
  'Decision engine',
  'Webhooks',
  'Step-up confirmation',
  'Background work and instances',
  'Logging',
  'Read outside the parser',
];

interface Described {
  readonly section: ConfigSection;
  /** What the variable sets, in Markdown (links relative to docs/). */
  readonly meaning: string;
  /** The default in words, when it is not a value one could set (unset, derived, generated). */
  readonly defaultText?: string;
}

/** A whole number within [min, max], in `unit`. */
export interface IntegerVariable extends Described {
  readonly kind: 'integer';
  /** null: derived at start; `defaultText` says from what. */
  readonly default: number | null;
  readonly min: number;
  readonly max: number;
  readonly unit: string;
}

/** One of a few words. */
export interface ChoiceVariable extends Described {
  readonly kind: 'choice';
  readonly values: readonly string[];
  readonly default: string;
}

/** `on` or `off` (also `true`/`false`, `1`/`0`). */
export interface SwitchVariable extends Described {
  readonly kind: 'switch';
  readonly default: boolean;
}

/** A URL of one of `protocols`; unset by default. */
export interface UrlVariable extends Described {
  readonly kind: 'url';
  readonly protocols: readonly string[];
  readonly default: null;
}

/** Text of a form `accepts` describes (and `pattern` checks, when set). */
export interface TextVariable extends Described {
  readonly kind: 'text';
  readonly default: string | null;
  readonly accepts: string;
  readonly pattern?: RegExp;
}

/** Not parsed by the service: read by a library or the start script, named here so it is documented. */
export interface ExternalVariable extends Described {
  readonly kind: 'external';
  /** The file that reads or sets it. */
  readonly readBy: string;
  readonly default: string | null;
  readonly accepts: string;
}

export type ConfigVariable =
  | IntegerVariable
  | ChoiceVariable
  | SwitchVariable
  | UrlVariable
  | TextVariable
  | ExternalVariable;

/** The default webhook claim lease is WEBHOOK_TIMEOUT_MS plus this, in milliseconds. */
export const WEBHOOK_CLAIM_LEASE_MARGIN_MS = 20_000;

const POSTGRES = ['postgres:', 'postgresql:'] as const;

export const CONFIG_VARIABLES = {
  // Listening and requests
  PORT: {
    kind: 'integer',
    section: 'Listening and requests',
    default: 8080,
    min: 0,
    max: 65_535,
    unit: 'TCP port (0: any free port)',
    meaning: 'Port the HTTP edge listens on; the admin CLI (`npm run admin`) reads it too.',
  },
  HOST: {
    kind: 'text',
    section: 'Listening and requests',
    default: '127.0.0.1',
    accepts: 'an IP address or host name',
    meaning: 'Address the HTTP edge listens on (`0.0.0.0` for every interface; the container image sets it).',
  },
  MCP_HTTP: {
    kind: 'switch',
    section: 'Listening and requests',
    default: false,
    meaning:
      "`on`: the service also serves its agents' MCP server over streamable HTTP (`POST /mcp` on `MCP_HTTP_PORT`, the address `HOST`), each request acting for the agent of the agent key it presents ([mcp.md](mcp.md)).",
  },
  MCP_HTTP_PORT: {
    kind: 'integer',
    section: 'Listening and requests',
    default: 8081,
    min: 0,
    max: 65_535,
    unit: 'TCP port (0: any free port)',
    meaning: 'Port of the MCP listener when `MCP_HTTP` is on.',
  },
  TRUSTED_PROXIES: {
    kind: 'text',
    section: 'Listening and requests',
    default: '',
    defaultText: 'empty',
    accepts: 'comma-separated IP addresses or CIDR ranges (e.g. `10.0.0.0/8,fd00::/8`)',
    meaning:
      'Proxies and load balancers whose `X-Forwarded-For` is believed, so client IPs (allowlists, throttling, the security log) are the real ones; a bad entry stops start-up.',
  },
  MAX_BODY_BYTES: {
    kind: 'integer',
    section: 'Listening and requests',
    default: 1_048_576,
    min: 1024,
    max: 104_857_600,
    unit: 'bytes',
    meaning: 'Largest request body; a larger one is answered 413 `payload_too_large`.',
  },
  METADATA_MAX_BYTES: {
    kind: 'integer',
    section: 'Listening and requests',
    default: 16_384,
    min: 2,
    max: 1_048_576,
    unit: 'bytes of its JSON text',
    meaning: 'Largest `metadata` object; a larger one is answered 422 naming the field.',
  },

  // Storage
  DATABASE_URL: {
    kind: 'url',
    section: 'Storage',
    default: null,
    defaultText: 'unset: embedded PGlite under `DATA_DIR`',
    protocols: POSTGRES,
    meaning:
      'Live (production) database, a PostgreSQL URL; created if missing, migrated at start under an advisory lock. `postgres://user@localhost/db?host=/var/run/postgresql` connects over the Unix socket.',
  },
  SANDBOX_DATABASE_URL: {
    kind: 'url',
    section: 'Storage',
    default: null,
    defaultText: 'same server, database name + `_sandbox` (embedded: a second PGlite)',
    protocols: POSTGRES,
    meaning: 'Sandbox database; never the same database as live.',
  },
  DATA_DIR: {
    kind: 'text',
    section: 'Storage',
    default: './data',
    accepts: 'a directory path (relative to the working directory)',
    meaning: 'Embedded databases, the generated operator key and the generated secrets key.',
  },
  EMBEDDED_SANDBOX_OPEN: {
    kind: 'choice',
    section: 'Storage',
    values: ['first-use', 'start'],
    default: 'first-use',
    meaning:
      'Embedded PGlite only (ignored with `DATABASE_URL`): when the sandbox database opens. `first-use`: 30-45 MB less memory until something uses the sandbox, and the first sandbox request waits about a second; `start`: with the service.',
  },
  DATABASE_POOL_SIZE: {
    kind: 'integer',
    section: 'Storage',
    default: 10,
    min: 1,
    max: 1_000,
    unit: 'connections per database',
    meaning:
      "PostgreSQL connections of the main thread's pool, opened on demand; the webhook dispatcher's pool takes up to 4 more. A process holds about `DATABASE_POOL_SIZE` × 2 + `WORKERS` × `ENGINE_POOL_SIZE` × 2 + 10.",
  },
  ENGINE_POOL_SIZE: {
    kind: 'integer',
    section: 'Storage',
    default: 4,
    min: 1,
    max: 100,
    unit: 'connections per database',
    meaning: 'PostgreSQL connections of each shard worker, opened at start.',
  },
  DATABASE_CONNECT_TIMEOUT_MS: {
    kind: 'integer',
    section: 'Storage',
    default: 1500,
    min: 100,
    max: 600_000,
    unit: 'milliseconds',
    meaning:
      'Time to open a database connection before it counts as failed and is retried; bounds recovery after a partition.',
  },

  // Events
  NATS_URL: {
    kind: 'url',
    section: 'Events',
    default: null,
    defaultText: 'unset: in-process event bus',
    protocols: ['nats:', 'tls:', 'ws:', 'wss:'],
    meaning:
      'NATS server with JetStream. Required for several instances on one database ([scale-out.md](scale-out.md)); an instance on the in-process bus refuses to start beside another.',
  },
  NATS_STREAM: {
    kind: 'text',
    section: 'Events',
    default: 'MANDATE_EVENTS',
    accepts: '1-64 letters, digits, `_` or `-`',
    pattern: /^[A-Za-z0-9_-]{1,64}$/,
    meaning: 'Internal: the JetStream stream of the events, created if missing.',
  },
  NATS_SUBJECT_PREFIX: {
    kind: 'text',
    section: 'Events',
    default: 'mandate',
    accepts: 'one to four dot-separated tokens of 1-64 letters, digits, `_` or `-`',
    pattern: /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,3}$/,
    meaning: "Internal: the events' first subject tokens (tests share one NATS server under distinct prefixes).",
  },
  OUTBOX_RELAY_LEASE_MS: {
    kind: 'integer',
    section: 'Events',
    default: 5_000,
    min: 500,
    max: 60_000,
    unit: 'milliseconds',
    meaning:
      'Lease of the outbox relay among instances sharing a database: one relays at a time, another takes over after it ([background-claims.md](background-claims.md)).',
  },

  // Keys and secrets
  ADMIN_KEY: {
    kind: 'text',
    section: 'Keys and secrets',
    default: null,
    defaultText: 'unset: generated once into `DATA_DIR/admin.key` (mode 0600), stored hashed, its path logged',
    accepts: 'at least 16 characters',
    meaning: "The operator's `X-Admin-Key` (the operator plane and `GET /metrics`).",
  },
  SECRETS_KEY: {
    kind: 'text',
    section: 'Keys and secrets',
    default: null,
    defaultText: 'unset: generated once into `DATA_DIR/secrets.key` (mode 0600; a warning when `DATABASE_URL` is set)',
    accepts: 'base64 of 32 random bytes (`openssl rand -base64 32`)',
    meaning:
      'The AES-256-GCM key that encrypts the token-signing private key and webhook signing secrets at rest ([secrets.md](secrets.md)); every instance on one database needs the same key.',
  },
  SECRETS_KEY_PREVIOUS: {
    kind: 'text',
    section: 'Keys and secrets',
    default: '',
    defaultText: 'empty',
    accepts: 'comma-separated keys of the same form as `SECRETS_KEY`',
    meaning: 'Earlier secrets keys, read only to re-encrypt under `SECRETS_KEY` at start (only with `SECRETS_KEY`).',
  },
  OAUTH_TOKEN_TTL_SECONDS: {
    kind: 'integer',
    section: 'Keys and secrets',
    default: 3600,
    min: 1,
    max: 31_536_000,
    unit: 'seconds',
    meaning: "Access token lifetime (never beyond its key's expiry or rotation grace).",
  },
  KEY_ROTATION_GRACE_SECONDS: {
    kind: 'integer',
    section: 'Keys and secrets',
    default: 900,
    min: 0,
    max: 31_536_000,
    unit: 'seconds',
    meaning: 'How long a rotated-out key still authenticates, unless the rotation names its own grace.',
  },
  CLIENT_TENANCY: {
    kind: 'switch',
    section: 'Keys and secrets',
    default: false,
    meaning:
      "`on`: a Client key on the Principal plane acts as the Client's only Principal (SPEC.md rule 3); `off`: it is refused with 401 (rule 1).",
  },

  // Throttling, rate limits and fair share
  AUTH_FAILURE_LIMIT: {
    kind: 'integer',
    section: 'Throttling, rate limits and fair share',
    default: 50,
    min: 0,
    max: 1_000_000,
    unit: 'failures per window',
    meaning:
      'Failed authentications a source (IP; IPv6 per /64) may have per window before 429; `0` turns the throttle off (failures are still logged).',
  },
  AUTH_FAILURE_WINDOW_SECONDS: {
    kind: 'integer',
    section: 'Throttling, rate limits and fair share',
    default: 60,
    min: 1,
    max: 86_400,
    unit: 'seconds',
    meaning: 'Length of the failed-authentication window.',
  },
  AUTH_REJECT_MIN_MS: {
    kind: 'integer',
    section: 'Throttling, rate limits and fair share',
    default: 50,
    min: 0,
    max: 10_000,
    unit: 'milliseconds',
    meaning:
      "Least time from a request's arrival to its rejection, whatever the reason, so rejections tell nothing by their timing.",
  },
  RATE_LIMIT_REQUESTS_PER_SECOND: {
    kind: 'integer',
    section: 'Throttling, rate limits and fair share',
    default: 1_000,
    min: 0,
    max: 100_000_000,
    unit: 'requests per second',
    meaning:
      'Sustained requests per credential (a token counts against its key), across all instances; `0` turns it off. A Client may have its own limits (`PUT /admin/v1/clients/{id}/rate-limits`).',
  },
  RATE_LIMIT_BURST_REQUESTS: {
    kind: 'integer',
    section: 'Throttling, rate limits and fair share',
    default: 2_000,
    min: 1,
    max: 100_000_000,
    unit: 'requests',
    meaning: 'Requests a credential may send at once after being idle (its token bucket), across all instances.',
  },
  RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: {
    kind: 'integer',
    section: 'Throttling, rate limits and fair share',
    default: 5_000,
    min: 0,
    max: 100_000_000,
    unit: 'requests per second',
    meaning:
      "Sustained requests per Client (all its keys and its Principals' keys and tokens), across all instances; `0` turns it off.",
  },
  RATE_LIMIT_CLIENT_BURST_REQUESTS: {
    kind: 'integer',
    section: 'Throttling, rate limits and fair share',
    default: 10_000,
    min: 1,
    max: 100_000_000,
    unit: 'requests',
    meaning: 'Requests a Client may send at once after being idle, across all instances.',
  },
  AP2_STATUS_REQUESTS_PER_SECOND: {
    kind: 'integer',
    section: 'Throttling, rate limits and fair share',
    default: 10,
    min: 0,
    max: 1_000_000,
    unit: 'requests per second',
    meaning:
      'Sustained requests per client address (through `TRUSTED_PROXIES`) to `GET /api/v1/ap2-mandates/{hash}/status`, which needs no credential; beyond it 429 `rate_limited` with `Retry-After` ([ap2.md](ap2.md)). Per instance. `0` turns it off.',
  },
  AP2_STATUS_BURST_REQUESTS: {
    kind: 'integer',
    section: 'Throttling, rate limits and fair share',
    default: 30,
    min: 1,
    max: 1_000_000,
    unit: 'requests',
    meaning: 'Requests a client address may send at once to the public AP2 status by hash after being idle.',
  },
  FAIR_SHARE_IN_FLIGHT: {
    kind: 'integer',
    section: 'Throttling, rate limits and fair share',
    default: 32,
    min: 0,
    max: 1_000_000,
    unit: 'decisions',
    meaning:
      "Decisions in flight on one instance above which each Client and Principal may hold only its share; beyond it a request waits in its tenant's bounded queue or is refused 429 ([operations.md](operations.md#rate-limits-and-fair-share)). `0` turns fair share off.",
  },

  // Deadlines and shutdown
  AUTHORIZE_DEADLINE_MS: {
    kind: 'integer',
    section: 'Deadlines and shutdown',
    default: 1000,
    min: 50,
    max: 60_000,
    unit: 'milliseconds',
    meaning:
      '`POST /authorize` answers by this time after the request was received, at worst with the safe DECLINE `system_unavailable` ([engine-durability.md](engine-durability.md)).',
  },
  REQUEST_DEADLINE_MS: {
    kind: 'integer',
    section: 'Deadlines and shutdown',
    default: 5000,
    min: 100,
    max: 600_000,
    unit: 'milliseconds',
    meaning:
      "Every other endpoint answers by then, at worst 503 `service_unavailable` with `Retry-After`; a route waiting on an outbound call of its own (the webhook test) gets that call's timeout on top.",
  },
  SHUTDOWN_TIMEOUT_MS: {
    kind: 'integer',
    section: 'Deadlines and shutdown',
    default: 10_000,
    min: 1_000,
    max: 600_000,
    unit: 'milliseconds',
    meaning:
      'Bound on a graceful stop (SIGTERM/SIGINT): at most half for the HTTP drain, the rest to flush the audit log and the outbox; past it the process exits 1.',
  },

  // Decision engine
  WORKERS: {
    kind: 'integer',
    section: 'Decision engine',
    default: null,
    defaultText: 'cores − 1, at least 1',
    min: 1,
    max: 256,
    unit: 'threads',
    meaning: 'Actor worker threads (shards). Embedded PGlite runs one shard on the main thread and ignores it.',
  },
  ENGINE_MAX_ACTORS: {
    kind: 'integer',
    section: 'Decision engine',
    default: 100_000,
    min: 1,
    max: 100_000_000,
    unit: 'actors per shard',
    meaning:
      'Internal tuning: agent actors kept in memory per shard; the least recently used beyond it are rebuilt from the database on their next request.',
  },
  ENGINE_MAX_ACTOR_BYTES: {
    kind: 'integer',
    section: 'Decision engine',
    default: 1024 ** 3,
    min: 65_536,
    max: 1024 ** 4,
    unit: 'estimated bytes per shard',
    meaning:
      'Internal tuning: estimated bytes of the agent actors kept per shard; the least recently used beyond it are rebuilt from the database.',
  },

  // Webhooks
  WEBHOOK_URL_POLICY: {
    kind: 'choice',
    section: 'Webhooks',
    values: ['public', 'any'],
    default: 'public',
    meaning:
      '`public`: https to public addresses only; `any`: also http and loopback or private addresses (development and tests).',
  },
  WEBHOOK_ALLOWED_PORTS: {
    kind: 'text',
    section: 'Webhooks',
    default: '443',
    accepts: 'comma-separated ports (1-65535), e.g. `443,8443`',
    meaning: 'Ports a webhook URL may use under `WEBHOOK_URL_POLICY=public`.',
  },
  WEBHOOK_RETRY_SCHEDULE_MS: {
    kind: 'text',
    section: 'Webhooks',
    default: '1000,5000,30000,120000,900000',
    accepts: 'comma-separated whole milliseconds',
    meaning: 'Retry delays after the first attempt; a delivery is retried once per entry.',
  },
  WEBHOOK_TIMEOUT_MS: {
    kind: 'integer',
    section: 'Webhooks',
    default: 10_000,
    min: 1,
    max: 600_000,
    unit: 'milliseconds',
    meaning: 'A delivery slower than this is a failure.',
  },
  WEBHOOK_DISABLE_AFTER: {
    kind: 'integer',
    section: 'Webhooks',
    default: 50,
    min: 1,
    max: 1_000_000,
    unit: 'consecutive failures',
    meaning: 'Consecutive failed deliveries that disable a webhook.',
  },
  WEBHOOK_CLAIM_LEASE_MS: {
    kind: 'integer',
    section: 'Webhooks',
    default: null,
    defaultText: `\`WEBHOOK_TIMEOUT_MS\` + ${WEBHOOK_CLAIM_LEASE_MARGIN_MS}`,
    min: 100,
    max: 3_600_000,
    unit: 'milliseconds, above `WEBHOOK_TIMEOUT_MS`',
    meaning:
      "How long an instance holds a pending webhook delivery past its attempt or retry time; a dead instance's deliveries are taken over after it ([background-claims.md](background-claims.md)).",
  },

  // Background work and instances
  IDEMPOTENCY_MAX_STORED_PER_OWNER: {
    kind: 'integer',
    section: 'Background work and instances',
    default: 10_000,
    min: 1,
    max: 100_000_000,
    unit: 'answers',
    meaning:
      'Stored idempotent answers kept per Principal (`/authorize`) and per Client and environment (onboarding), besides the 24 h retention; an older key answers 422 `idempotency_key_expired`.',
  },
  // Step-up confirmation (docs/step-up-confirmation.md)
  SMTP_URL: {
    kind: 'url',
    section: 'Step-up confirmation',
    default: null,
    defaultText: 'unset: no e-mail is sent; a step-up is then confirmed only with the Principal credential',
    protocols: ['smtp:', 'smtps:'],
    meaning:
      'SMTP server that sends the step-up confirmation e-mail (the link and one-time code) to the address a Principal registered, as a nodemailer connection URL: `smtps://user:password@mail.example.com:465` (TLS from the start) or `smtp://mail.example.com:587` (STARTTLS when offered).',
  },
  SMTP_FROM: {
    kind: 'text',
    section: 'Step-up confirmation',
    default: 'Agent Spending Authorization <no-reply@localhost>',
    accepts: 'an RFC 5322 address, optionally with a display name',
    meaning: 'Sender (`From`) of the step-up confirmation e-mail.',
  },
  SMTP_TIMEOUT_MS: {
    kind: 'integer',
    section: 'Step-up confirmation',
    default: 10_000,
    min: 100,
    max: 120_000,
    unit: 'milliseconds',
    meaning: 'Bound on connecting to the SMTP server and on each of its answers; a sending that fails is retried.',
  },
  PUBLIC_URL: {
    kind: 'url',
    section: 'Step-up confirmation',
    default: null,
    defaultText: 'unset: the address the edge listens on (`http://HOST:PORT`)',
    protocols: ['http:', 'https:'],
    meaning:
      'Base of the confirmation link e-mailed to the person (`<PUBLIC_URL>/step-up/<token>`): the address people reach the service at, behind its proxy.',
  },
  STEP_UP_NOTIFY_INTERVAL_MS: {
    kind: 'integer',
    section: 'Step-up confirmation',
    default: 1_000,
    min: 50,
    max: 60_000,
    unit: 'milliseconds',
    meaning:
      'Period of the step-up notifier, which e-mails each new step-up once (every instance; each row is claimed by one).',
  },
  IDEMPOTENCY_SWEEP_SECONDS: {
    kind: 'integer',
    section: 'Background work and instances',
    default: 60,
    min: 1,
    max: 86_400,
    unit: 'seconds',
    meaning: 'Period of the sweep of the idempotency stores.',
  },
  HOLD_EXPIRY_SWEEP_MS: {
    kind: 'integer',
    section: 'Background work and instances',
    default: 5_000,
    min: 50,
    max: 3_600_000,
    unit: 'milliseconds',
    meaning: 'Period of the hold expiry sweep (every instance; each due hold is expired once; [holds.md](holds.md)).',
  },
  AP2_CLAIM_SWEEP_MS: {
    kind: 'integer',
    section: 'Background work and instances',
    default: 5_000,
    min: 50,
    max: 3_600_000,
    unit: 'milliseconds',
    meaning:
      'Period of the sweep of AP2 presentation claims left PENDING past the answer deadline (every instance; each claim is settled once: CONSUMED with its recorded APPROVE, else released; [ap2.md](ap2.md)).',
  },
  INSTANCE_HEARTBEAT_SECONDS: {
    kind: 'integer',
    section: 'Background work and instances',
    default: 5,
    min: 1,
    max: 3_600,
    unit: 'seconds',
    meaning: 'Heartbeat of the instance registry in PostgreSQL (rate limits are split over the live instances).',
  },
  SHARD_LEASE_TTL_MS: {
    kind: 'integer',
    section: 'Background work and instances',
    default: 3000,
    min: 500,
    max: 600_000,
    unit: 'milliseconds',
    meaning:
      'Several instances (NATS on PostgreSQL): a shard lease not renewed for this long may be claimed by another instance ([scale-out.md](scale-out.md)).',
  },
  SHARD_LEASE_RENEW_MS: {
    kind: 'integer',
    section: 'Background work and instances',
    default: 500,
    min: 50,
    max: 60_000,
    unit: 'milliseconds',
    meaning: "Several instances: time between two renewals of an instance's shard leases.",
  },

  // Logging
  LOG_LEVEL: {
    kind: 'choice',
    section: 'Logging',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    meaning: 'pino level of the JSON log on standard output (`silent` turns logging off).',
  },

  // Read outside the parser
  UWS_HTTP_MAX_HEADERS_SIZE: {
    kind: 'external',
    section: 'Read outside the parser',
    readBy: 'src/http/uws-env.ts',
    default: '32768',
    accepts: 'bytes',
    meaning:
      'Read by uWebSockets.js when it loads: the request line and headers it accepts; past it the native parser answers 431 by itself, outside the error envelope. The service sets 32768 unless the environment has a value.',
  },
  MALLOC_ARENA_MAX: {
    kind: 'external',
    section: 'Read outside the parser',
    readBy: 'scripts/start.sh',
    default: null,
    defaultText: "`1` on the embedded defaults (no `DATABASE_URL`); otherwise glibc's own",
    accepts: 'a whole number',
    meaning:
      "Read by glibc's malloc: `npm start` and the image set `1` on the embedded defaults (about 30 MB less idle memory) and leave it alone with PostgreSQL, where one arena raised the p99 ([performance.md](performance.md)).",
  },
  ASAS_URL: {
    kind: 'external',
    section: 'Read outside the parser',
    readBy: 'src/mcp/main.ts',
    default: null,
    accepts: 'an http(s) URL',
    meaning:
      'Read by the MCP server (`npm run -s mcp`), not by the service: the address of the service it calls, e.g. `http://127.0.0.1:3000` ([mcp.md](mcp.md)).',
  },
  ASAS_AGENT_KEY: {
    kind: 'external',
    section: 'Read outside the parser',
    readBy: 'src/mcp/main.ts',
    default: null,
    accepts: 'an agent key',
    meaning:
      'Read by the MCP server, not by the service: the agent key it presents, issued by `POST /api/v1/agents/{agent_id}/keys` ([mcp.md](mcp.md)).',
  },
} as const satisfies Record<string, ConfigVariable>;

type Variables = typeof CONFIG_VARIABLES;
export type ConfigVariableName = keyof Variables;
/** The names of one kind of variable, e.g. `VariableOfKind<'integer'>`. */
export type VariableOfKind<K extends ConfigVariable['kind']> = {
  [N in ConfigVariableName]: Variables[N]['kind'] extends K ? N : never;
}[ConfigVariableName];
/** The variables the parser reads (all but those read outside it). */
export type ParsedVariableName = Exclude<ConfigVariableName, VariableOfKind<'external'>>;

function number(n: number): string {
  return n.toLocaleString('en-US');
}

const BINARY_UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `1048576` → ` (1 MiB)`, for round byte counts. */
function binarySize(n: number): string {
  let unit = -1;
  let v = n;
  while (v >= 1024 && v % 1024 === 0 && unit < BINARY_UNITS.length - 1) {
    v /= 1024;
    unit++;
  }
  return unit < 0 ? '' : ` (${v} ${BINARY_UNITS[unit]})`;
}

function defaultCell(v: ConfigVariable): string {
  if (v.defaultText !== undefined) return v.defaultText;
  switch (v.kind) {
    case 'switch':
      return v.default ? '`on`' : '`off`';
    case 'integer':
      if (v.default === null) throw new Error('an integer variable without a default needs defaultText');
      return `\`${v.default}\`${v.unit.includes('bytes') ? binarySize(v.default) : ''}`;
    default:
      return v.default === null || v.default === '' ? 'unset' : `\`${v.default}\``;
  }
}

function acceptsCell(v: ConfigVariable): string {
  switch (v.kind) {
    case 'integer':
      return `${number(v.min)} to ${number(v.max)}; ${v.unit}`;
    case 'choice':
      return v.values.map((x) => `\`${x}\``).join(', ');
    case 'switch':
      return '`on` or `off` (also `true`/`false`, `1`/`0`)';
    case 'url':
      return `a URL: ${v.protocols.map((p) => `\`${p}//\``).join(', ')}`;
    case 'text':
    case 'external':
      return v.accepts;
  }
}

/** GitHub's anchor of a heading. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** docs/configuration.md: every variable, by section, with its default, accepted values and meaning. */
export function renderConfigReference(variables: Readonly<Record<string, ConfigVariable>> = CONFIG_VARIABLES): string {
  const entries = Object.entries(variables);
  const out: string[] = [
    '# Configuration reference',
    '',
    '<!-- Generated from src/config/reference.ts by `npm run docs`; do not edit. test/ops/configuration-reference.test.ts',
    '     fails when this page is stale (UPDATE_DOCS=1 npx vitest run test/ops/configuration-reference.test.ts rewrites it). -->',
    '',
    'The service is configured by environment variables only, parsed once at start (`src/config/config.ts`). A bad',
    'value stops the process with exit code 2 and one line naming the variable',
    '(`configuration error: <VARIABLE>: <what is wrong>`). An empty value counts as unset. How to run the service in',
    'production is in [operations.md](operations.md).',
    '',
  ];
  const used = SECTIONS.filter((s) => entries.some(([, v]) => v.section === s));
  for (const s of used) out.push(`- [${s}](#${anchor(s)})`);
  for (const s of used) {
    out.push('', `## ${s}`, '');
    if (s === 'Read outside the parser') {
      out.push(
        'Not parsed by the service: the library or script named in the meaning reads them. Listed so every variable',
        'that changes how the service runs is on this page.',
        '',
      );
    }
    out.push('| variable | default | accepts | meaning |', '| --- | --- | --- | --- |');
    for (const [name, v] of entries) {
      if (v.section !== s) continue;
      const meaning = v.kind === 'external' ? `${v.meaning} (\`${v.readBy}\`)` : v.meaning;
      out.push(`| \`${name}\` | ${cell(defaultCell(v))} | ${cell(acceptsCell(v))} | ${cell(meaning)} |`);
    }
  }
  out.push('');
  return out.join('\n');
}
