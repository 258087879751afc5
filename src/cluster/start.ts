// Starts shard ownership for an instance on PostgreSQL with NATS (docs/scale-out.md): the
// instance-to-instance transport, the leases, and the engine that routes each decision to its
// shard's owner.
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { ShardedEngine } from '../engine/engine.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { Databases } from '../storage/db.js';
import { SHARD_COUNT, ShardLeases } from './leases.js';
import { ClusterEngine, type ForwardBatch } from './router.js';
import { ClusterTransport } from './transport.js';

export interface RunningCluster {
  readonly engine: ClusterEngine;
  readonly leases: ShardLeases;
  /** Hands every shard over to the other instances, then stops listening. */
  close(): Promise<void>;
}

export async function startCluster(
  config: Pick<Config, 'shardLeaseTtlMs' | 'shardLeaseRenewMs' | 'authorizeDeadlineMs'>,
  natsUrl: string,
  dbs: Pick<Databases, 'live' | 'sandbox'>,
  local: ShardedEngine,
  instanceId: string,
  log: Logger,
  metrics?: ServiceMetrics,
): Promise<RunningCluster> {
  const transport = new ClusterTransport(natsUrl, instanceId, log);
  let engine: ClusterEngine | null = null;
  const leases = new ShardLeases(
    dbs.live,
    dbs.sandbox,
    instanceId,
    {
      invalidate: (shards) => local.invalidateShards(shards, SHARD_COUNT),
      drained: (shards) => (engine === null ? Promise.resolve() : engine.drained(shards)),
      nudge: (ids) => {
        for (const id of ids) transport.publish(id, 'nudge', {});
      },
      reachable: () => transport.connected,
    },
    log,
    { ttlMs: config.shardLeaseTtlMs, renewMs: config.shardLeaseRenewMs },
  );
  const routing = new ClusterEngine({
    local,
    leases,
    transport,
    answerDeadlineMs: config.authorizeDeadlineMs,
    log,
    onRoute: routeCounter(metrics),
  });
  metrics?.clusterShardsOwned.collect(() => [[[], leases.ownedCount]]);
  engine = routing;
  transport.listen(async (kind, body) => {
    switch (kind) {
      case 'authorize':
        return routing.serveForwarded(body as ForwardBatch);
      case 'invalidateAgent':
      case 'creditAgent':
      case 'invalidatePrincipal':
        return routing.serveInvalidation(kind, body as never);
      case 'nudge':
        void leases.beat();
        return null;
    }
  });
  await leases.start();
  return {
    engine: routing,
    leases,
    async close() {
      await leases.close();
      await transport.close();
    },
  };
}

/** Counts each route on a child looked up once (the hot path pays one increment). */
function routeCounter(
  metrics: ServiceMetrics | undefined,
): ((route: 'local' | 'forwarded' | 'unowned') => void) | undefined {
  if (metrics === undefined) return undefined;
  const children = {
    local: metrics.clusterRoutes.labels('local'),
    forwarded: metrics.clusterRoutes.labels('forwarded'),
    unowned: metrics.clusterRoutes.labels('unowned'),
  };
  return (route) => children[route].inc();
}
