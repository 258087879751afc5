// The composition root: opens storage, builds every area's routes and starts the HTTP edge.
// Tests start it in-process on port 0; src/main.ts starts it for `npm start`.
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { syncClientLimits } from '../admin/client-rate-limits.js';
import { mirrorTenants } from '../admin/provisioning.js';
import { startAuth } from '../auth/service.js';
import { InstanceRegistry } from '../cluster/instances.js';
import { startCluster } from '../cluster/start.js';
import type { Config } from '../config/config.js';
import { BUDGET_RECALL_CHANNEL, type DecisionEngine } from '../decision/model/contract.js';
import { ShardedEngine } from '../engine/engine.js';
import { startEvents } from '../events/service.js';
import { CpuLoad, FAIR_SHARE_IDLE_FLOOR, MachineIdle, TenantShares } from '../http/fair-share.js';
import { RequestLimits } from '../http/rate-limit.js';
import { Router } from '../http/router.js';
import { HttpServer } from '../http/server.js';
import { startMcpHttp } from '../mcp/http.js';
import { collectOutboxBacklog, collectShardStats, collectWebhookOutcomes } from '../observability/instrument.js';
import { createLogger, shutdownStep } from '../observability/logger.js';
import { ServiceMetrics } from '../observability/metrics.js';
import { Ap2ClaimSweep } from '../runtime/ap2-claims.js';
import { HoldExpirySweep } from '../runtime/hold-expiry.js';
import { RangeRunner } from '../runtime/range-runner.js';
import { StepUpNotifier } from '../runtime/step-up-notifier.js';
import { loadSecretBox, resealOpened, resealSecrets } from '../secrets/service.js';
import { openDatabases } from '../storage/db.js';
import { IdempotencySweep } from '../storage/idempotency-sweep.js';
import { WebhookHttpClient } from '../webhooks/http-client.js';
import { hasPendingWork } from './pending-work.js';
import { serviceRoutes } from './route-table.js';
import type { Services } from './services.js';
import type { ReadinessCheck } from './system-routes.js';

export interface RunningApp {
  readonly port: number;
  readonly url: string;
  /** The agents' MCP endpoint (MCP_HTTP on), else null. */
  readonly mcpUrl: string | null;
  readonly services: Services;
  /** This instance's row in the registry of instances sharing the live database. */
  readonly instances: InstanceRegistry;
  /**
   * Graceful stop: stop accepting, answer in-flight requests and the next one on each open
   * keep-alive connection with Connection: close (bounded by half of SHUTDOWN_TIMEOUT_MS),
   * flush the audit log and the outbox, close pools.
   */
  close(): Promise<void>;
}

export async function startApp(config: Config, options: { log?: Logger } = {}): Promise<RunningApp> {
  const log = options.log ?? createLogger(config);
  const secrets = loadSecretBox(config, log);
  // The embedded sandbox opens on its first use (src/storage/embedded.ts): Clients and Programs
  // created while it was closed are copied in, and its secrets re-sealed, as it opens.
  const dbs = await openDatabases(config, log, config.databasePoolSize, {
    onSandboxOpen: async (sandbox, live) => {
      const copied = await mirrorTenants(live, sandbox);
      if (copied > 0) log.info({ copied }, 'sandbox: clients and programs copied from live');
      await resealOpened('sandbox', sandbox, secrets, log);
    },
    pendingWork: hasPendingWork,
  });
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let instances: InstanceRegistry | null = null;
  try {
    // First, before this instance writes anything: join the instances sharing the live
    // database; an unsafe set-up (the in-process bus next to another live instance, or NATS
    // next to one on the in-process bus) stops the start here (ConfigError naming NATS_URL).
    instances = await InstanceRegistry.start(dbs.live, log, {
      heartbeatMs: config.instanceHeartbeatSeconds * 1000,
      ttlMs: config.instanceHeartbeatSeconds * 3000,
      bus: config.natsUrl === null ? 'memory' : 'nats',
    });
    // Before any request: plaintext and previous-key secrets are sealed under the current key,
    // and a key that opens none of them stops the start (ConfigError naming SECRETS_KEY).
    await resealSecrets(dbs, secrets, log);
    auth = await startAuth(config, log, dbs, secrets);
  } catch (err) {
    await instances?.close().catch(() => {});
    await dbs.close().catch(() => {});
    throw err;
  }
  const authenticator = auth.edge;
  const metrics = new ServiceMetrics();
  // Events start before any route can decide, and stop after the engine (see close()).
  const events = await startEvents(config, dbs, log, secrets, instances.id);
  const local = await ShardedEngine.start({
    workers: config.workers,
    urls: dbs.urls,
    embedded: dbs.embedded,
    // Embedded PGlite: one shard in this thread on the service's own pools (src/shard/shard.ts).
    shared: dbs.embedded ? { live: dbs.live, sandbox: dbs.sandbox } : undefined,
    log,
    poolSize: config.enginePoolSize,
    maxActorsPerShard: config.engineMaxActors,
    maxActorBytesPerShard: config.engineMaxActorBytes,
    answerDeadlineMs: config.authorizeDeadlineMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    receiptKey: auth.receipts.material(),
    onCommitted: (env) => events.nudge(env),
  });
  const cluster =
    config.natsUrl !== null && !dbs.embedded
      ? await startCluster(config, config.natsUrl, dbs, local, instances.id, log, metrics)
      : null;
  const engine: DecisionEngine = cluster?.engine ?? local;
  if (!dbs.embedded) {
    // A Principal budget pool ran short (asas_budget_grant, migrations/0220): the actors of this
    // instance give their slack back. Each instance listens for itself, on the connection the
    // service already listens on; embedded PGlite has one shard, which recalls by itself.
    for (const env of ['live', 'sandbox'] as const) {
      await dbs[env].listen(BUDGET_RECALL_CHANNEL, (principalId) => {
        local.recallBudget(env, principalId).catch((err: unknown) => log.warn({ err, env }, 'budget recall failed'));
      });
    }
  }
  const ranges = new RangeRunner(dbs, log, (thread) => metrics.rangeReports.labels(thread).inc());
  const services: Services = { config, log, dbs, authenticator, auth, metrics, events, engine, ranges };
  // A receipt key rotation (on any instance) reaches this instance's shards (src/receipts/keys.ts).
  auth.receipts.watch(
    (key) => void local.setReceiptKey(key).catch((err: unknown) => log.error({ err }, 'receipt key not set')),
  );
  const closers: [string, () => Promise<void>][] = [
    ['receipt keys', async () => auth.receipts.stop()],
    ['decision engine', () => engine.close()],
  ];
  const readiness: ReadinessCheck[] = [{ name: 'events', check: () => events.ready() }];

  const router = new Router();
  const rateLimiter = new RequestLimits(
    { requestsPerSecond: config.rateLimitRequestsPerSecond, burstRequests: config.rateLimitBurstRequests },
    { requestsPerSecond: config.rateLimitClientRequestsPerSecond, burstRequests: config.rateLimitClientBurstRequests },
  );
  // Clients the operator gave limits of their own (src/admin/client-rate-limits.ts).
  const clientLimits = syncClientLimits(dbs, rateLimiter, log);
  closers.push(['client limits', async () => clientLimits.stop()]);
  await clientLimits.ready;
  // Fair share holds tenants to their share only while the process is short of CPU (CpuLoad):
  // half the cores its threads (the edge and the shard workers) can use on this machine.
  const cpuLoad = new CpuLoad(0.5 * Math.min(availableParallelism(), config.workers + 1));
  // And paces the tenant that sends most of the decisions while the machine has under a fifth of
  // its CPU idle, this process spends a quarter of its cores and others are active, so that their
  // decisions find a free core
  // (docs/security.md "One tenant cannot harm another").
  const machineIdle = new MachineIdle(FAIR_SHARE_IDLE_FLOOR);
  const pacingLoad = new CpuLoad(0.25 * Math.min(availableParallelism(), config.workers + 1));
  const fairShare =
    config.fairShareInFlight > 0
      ? new TenantShares({
          capacity: config.fairShareInFlight,
          maxWaitMs: config.authorizeDeadlineMs / 4,
          busy: () => cpuLoad.busy(),
          machineShort: () => machineIdle.short(),
          pacingBusy: () => pacingLoad.busy(),
        })
      : null;
  metrics.decisionsInFlight.collect(() => [[[], fairShare?.inFlight ?? 0]]);
  if (fairShare !== null) {
    metrics.fairSharePaceLimit.collect(() => [
      [['client'], fairShare.paceLimits.client],
      [['principal'], fairShare.paceLimits.principal],
    ]);
  }
  const routes = serviceRoutes({
    services,
    readiness,
    allRoutes: () => router.routes,
    rateLimiter,
    fairShare,
    secrets,
  });
  collectShardStats(
    metrics,
    () => local.stats(),
    () => local.queueDepths(),
  );
  collectOutboxBacklog(metrics, dbs);
  collectWebhookOutcomes(metrics, events.dispatcher.attemptOutcomes);
  for (const r of routes) router.add(r);

  // Instances sharing the live database share the rate limits (src/http/rate-limit.ts) and,
  // with NATS on PostgreSQL, the shards of the agent keyspace (src/cluster/).
  rateLimiter.setShare(instances.live);
  instances.onChange((live) => rateLimiter.setShare(live));
  const idempotencySweep = new IdempotencySweep(dbs, log, {
    maxStoredPerOwner: config.idempotencyMaxStoredPerOwner,
    intervalMs: config.idempotencySweepSeconds * 1000,
  });
  const holdExpiry = new HoldExpirySweep(dbs, engine, (env) => events.nudge(env), log, config.holdExpirySweepMs);
  // AP2 presentation claims left PENDING past the answer deadline (docs/ap2.md).
  const ap2ClaimSweep = new Ap2ClaimSweep(dbs, log, config.ap2ClaimSweepMs, config.authorizeDeadlineMs);
  const server = new HttpServer({ config, log, router, authenticator, dbs, metrics, rateLimiter });
  metrics.httpInFlight.collect(() => [[[], server.inFlight]]);
  const port = await server.listen(config.host, config.port);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  log.info({ port, host: config.host }, 'listening');
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  // The step-up confirmation e-mail (docs/step-up-confirmation.md); its link needs the address.
  const stepUpNotifier = new StepUpNotifier(dbs, log, {
    smtpUrl: config.smtpUrl,
    from: config.smtpFrom,
    timeoutMs: config.smtpTimeoutMs,
    baseUrl: config.publicUrl ?? url,
    intervalMs: config.stepUpNotifyIntervalMs,
    secrets,
    http: new WebhookHttpClient({
      policy: config.webhookUrlPolicy,
      allowedPorts: config.webhookAllowedPorts,
      timeoutMs: config.webhookTimeoutMs,
      log,
    }),
    onConfirmed: async (env, agentIds) => {
      events.nudge(env);
      for (const agentId of agentIds) await engine.invalidateAgent(env, agentId);
    },
  });

  // The agents' MCP server, a client of this service's own HTTP edge like any other (docs/mcp.md).
  const mcp = config.mcpHttp ? await startMcpHttp({ baseUrl: url }, config.mcpHttpPort, config.host) : null;
  if (mcp !== null) log.info({ url: mcp.url }, 'mcp listening');

  let closing: Promise<void> | null = null;
  return {
    port,
    url,
    mcpUrl: mcp?.url ?? null,
    services,
    instances,
    close() {
      closing ??= (async () => {
        const step = <T>(name: string, work: () => Promise<T> | T) => shutdownStep(log, name, work);
        await step('mcp', () => mcp?.close());
        const drain = await step('http drain', () => server.close(Math.floor(config.shutdownTimeoutMs / 2)));
        if (drain.cut > 0) log.warn({ cut: drain.cut, duration_ms: drain.durationMs }, 'drain deadline cut requests');
        else log.info({ duration_ms: drain.durationMs }, 'http drained');
        // Hand this instance's shards over before its engine stops (the others take them at once).
        if (cluster !== null) await step('cluster', () => cluster.close());
        await step('instances', () => instances.close());
        await step('idempotency sweep', () => idempotencySweep.close());
        await step('hold expiry', () => holdExpiry.close());
        await step('ap2 claim sweep', () => ap2ClaimSweep.close());
        await step('step-up notifier', () => stepUpNotifier.close());
        for (const [name, c] of closers.reverse()) await step(name, c);
        // After the HTTP server and the engine: the last outbox rows are relayed.
        await step('events', () => events.close());
        await step('databases', () => dbs.close());
        log.info('stopped');
      })();
      return closing;
    },
  };
}
