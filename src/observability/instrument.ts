// Scrape-time and per-decision wiring of the other areas into the metrics, kept here so their
// files stay free of metrics plumbing: the answered decisions of POST /api/v1/authorize, the
// shard workers' stats, and the outbox backlog of each database.
import { performance } from 'node:perf_hooks';
import type { Environment } from '../auth/types.js';
import type { RouteDef } from '../http/types.js';
import type { Databases } from '../storage/db.js';
import type { ServiceMetrics, ShardMetricsSnapshot } from './metrics.js';

export const AUTHORIZE_PATH = '/api/v1/authorize';

/**
 * Wraps the handler of POST /api/v1/authorize (once, at start) so every answered decision is
 * counted by decision and gate, with its latency from the edge receiving the request.
 */
export function instrumentDecisions(routes: RouteDef[], metrics: ServiceMetrics): void {
  for (const r of routes) {
    if (r.method !== 'POST' || r.path !== AUTHORIZE_PATH) continue;
    const handler = r.handler;
    r.handler = async (ctx) => {
      const reply = await handler(ctx);
      const body = reply.body as { decision?: unknown; gates_fired?: unknown } | undefined;
      if (reply.status === 200 && body !== undefined && typeof body.decision === 'string') {
        const gates = Array.isArray(body.gates_fired) ? (body.gates_fired as string[]) : undefined;
        metrics.decision(body.decision, gates, (performance.now() - ctx.startedAt) / 1000);
      }
      return reply;
    };
  }
}

/** Reads the shard workers' stats at scrape time. */
export function collectShardStats(
  metrics: ServiceMetrics,
  stats: () => Promise<readonly ShardMetricsSnapshot[]>,
): void {
  metrics.registry.beforeScrape(async () => metrics.shardStats(await stats()));
}

/** Counts unpublished outbox rows per database at scrape time (a partial index covers it). */
export function collectOutboxBacklog(metrics: ServiceMetrics, dbs: Databases): void {
  metrics.registry.beforeScrape(async () => {
    await Promise.all(
      (['live', 'sandbox'] as Environment[]).map(async (env) => {
        const [row] = await dbs.forEnv(env)<{ n: string }[]>`
          select count(*)::text as n from outbox where published_at is null`;
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
