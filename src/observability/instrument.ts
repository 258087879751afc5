// Scrape-time wiring of the other areas into the metrics, kept here so their files stay free of
// metrics plumbing: the shard workers' stats, the outbox backlog of each database and the
// webhook delivery outcomes. (Answered decisions are counted by POST /authorize's onDecision.)
import type { Environment } from '../domain/environment.js';
import type { Databases } from '../storage/db.js';
import type { ServiceMetrics, ShardMetricsSnapshot } from './metrics.js';

export const AUTHORIZE_PATH = '/api/v1/authorize';

/** Reads the shard workers' stats at scrape time. */
export function collectShardStats(
  metrics: ServiceMetrics,
  stats: () => Promise<readonly ShardMetricsSnapshot[]>,
  queueDepths: () => readonly number[],
): void {
  metrics.registry.beforeScrape(async () => metrics.shardStats(await stats()));
  metrics.registry.beforeScrape(async () => {
    const depths = queueDepths();
    for (let i = 0; i < depths.length; i++) metrics.shardQueueDepth.set(depths[i] as number, String(i));
  });
}

/** Counts unpublished outbox events per database at scrape time (a partial index covers the batches). */
export function collectOutboxBacklog(metrics: ServiceMetrics, dbs: Databases): void {
  metrics.registry.beforeScrape(async () => {
    await Promise.all(
      // A database not open yet (the embedded sandbox) has no outbox rows and is not opened for this.
      (['live', 'sandbox'] as Environment[])
        .filter((env) => dbs.isOpen(env))
        .map(async (env) => {
          const [row] = await dbs.forEnv(env)<{ n: string }[]>`
          select coalesce(sum(event_count), 0)::text as n from outbox_batches where published_at is null`;
          metrics.outboxBacklog.set(Number(row?.n ?? 0), env);
        }),
    );
  });
}

/** Webhook delivery attempts by outcome, counted by the dispatcher and read at scrape time. */
export function collectWebhookOutcomes(metrics: ServiceMetrics, outcomes: Readonly<Record<string, number>>): void {
  metrics.registry.beforeScrape(async () => {
    for (const [outcome, n] of Object.entries(outcomes)) metrics.webhookDeliveries.labels(outcome).value = n;
  });
}
