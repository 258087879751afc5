// The events runtime: the bus (NATS JetStream or in-process), one outbox relay per environment
// database and the webhook dispatcher, started and stopped together by src/app/app.ts.
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Environment } from '../domain/environment.js';
import { shutdownStep } from '../observability/logger.js';
import type { SecretBox } from '../secrets/box.js';
import { connect, type Databases, type Sql } from '../storage/db.js';
import { WebhookDispatcher } from '../webhooks/dispatcher.js';
import { WebhookHttpClient } from '../webhooks/http-client.js';
import { type EventBus, InProcessBus } from './bus.js';
import { NatsBus } from './nats-bus.js';
import { OutboxRelay } from './relay.js';

/** Longest idle poll of an embedded outbox relay, in milliseconds (a safety net: writes wake it). */
const EMBEDDED_IDLE_POLL_MS = 1_000;

export interface EventsService {
  readonly bus: EventBus;
  readonly dispatcher: WebhookDispatcher;
  readonly client: WebhookHttpClient;
  readonly relays: Readonly<Record<Environment, OutboxRelay>>;
  /** Wakes the relay of an environment (call after committing outbox rows). */
  nudge(env: Environment): void;
  /** Readiness of the bus (CONTRACT.md /ready). */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export async function startEvents(
  config: Config,
  dbs: Databases,
  log: Logger,
  secrets: SecretBox,
  /** This instance's id (src/cluster/instances.ts): the holder of its claims on background work. */
  holder: string,
): Promise<EventsService> {
  const elog = log.child({ component: 'events' });
  // Own connections, so relaying and delivery never queue behind request handling (and, on
  // embedded PGlite, the one-connection-per-pool rule holds for each of them).
  // On embedded PGlite every connection shares one database session, and interleaved
  // extended-protocol messages of two connections clash ("portal does not exist"): there the
  // events runtime uses the service's own single-connection pools instead.
  const own: Sql[] = [];
  const open = (url: string, max: number): Sql => {
    const sql = connect(url, { max, embedded: false, connectTimeoutMs: config.databaseConnectTimeoutMs });
    own.push(sql);
    return sql;
  };
  const relaySql: Record<Environment, Sql> = dbs.embedded
    ? { live: dbs.live, sandbox: dbs.sandbox }
    : { live: open(dbs.urls.live, 1), sandbox: open(dbs.urls.sandbox, 1) };
  const dispatchSql: Record<Environment, Sql> = dbs.embedded
    ? { live: dbs.live, sandbox: dbs.sandbox }
    : {
        live: open(dbs.urls.live, Math.min(4, config.databasePoolSize)),
        sandbox: open(dbs.urls.sandbox, Math.min(4, config.databasePoolSize)),
      };
  const bus: EventBus =
    config.natsUrl === null
      ? new InProcessBus()
      : new NatsBus({
          url: config.natsUrl,
          stream: config.natsStream,
          subjectPrefix: config.natsSubjectPrefix,
          durable: `${config.natsStream}_webhooks`,
          log: elog,
        });
  const relay = (env: Environment) =>
    new OutboxRelay({
      env,
      sql: relaySql[env],
      bus,
      subjectPrefix: config.natsSubjectPrefix,
      log: elog,
      holder,
      leaseMs: config.outboxRelayLeaseMs,
      isOpen: () => dbs.isOpen(env),
      // Embedded PGlite has one writer, this process, and every write of outbox rows wakes the
      // relay: polling is only a safety net there, and a 50 ms poll of an idle PGlite allocates
      // ~1 MB/s, which keeps V8 from shrinking the heap (docs/benchmarks.md). On PostgreSQL the
      // lease holder polls for the rows other instances commit.
      ...(dbs.embedded ? { idlePollMs: EMBEDDED_IDLE_POLL_MS } : {}),
    });
  const relays = { live: relay('live'), sandbox: relay('sandbox') };
  const client = new WebhookHttpClient({
    policy: config.webhookUrlPolicy,
    timeoutMs: config.webhookTimeoutMs,
    allowedPorts: config.webhookAllowedPorts,
    log: elog,
  });
  const dispatcher = new WebhookDispatcher({
    config,
    sqlFor: (env) => dispatchSql[env],
    client,
    subjectPrefix: config.natsSubjectPrefix,
    serialize: dbs.embedded,
    isOpen: (env) => dbs.isOpen(env),
    log: elog,
    secrets,
    holder,
    leaseMs: config.webhookClaimLeaseMs,
    onOutbox: (env) => relays[env].nudge(),
  });
  await dispatcher.start();
  bus.consume(dispatcher.handleBatch);
  bus.start();
  relays.live.start();
  relays.sandbox.start();
  elog.info({ bus: bus.kind, stream: bus.kind === 'nats' ? config.natsStream : undefined }, 'events started');

  let closing: Promise<void> | null = null;
  return {
    bus,
    dispatcher,
    client,
    relays,
    nudge: (env) => relays[env].nudge(),
    ready: () => bus.ping(),
    close() {
      closing ??= (async () => {
        // Relay the last rows first (bounded), then stop consuming, then delivery.
        await Promise.all([
          shutdownStep(elog, 'live outbox relay', () => relays.live.stop()),
          shutdownStep(elog, 'sandbox outbox relay', () => relays.sandbox.stop()),
        ]);
        await shutdownStep(elog, 'event bus', () => bus.close());
        await shutdownStep(elog, 'webhook dispatcher', () => dispatcher.close());
        await client.close().catch(() => {});
        await shutdownStep(elog, 'event pools', () => Promise.all(own.map((s) => s.end({ timeout: 5 }))));
      })();
      return closing;
    },
  };
}
