// docs/metrics.md, generated: every metric family GET /metrics exposes, read off the registry of
// a ServiceMetrics (the service's own families, then the process and runtime ones it includes)
// with its type, labels, help and histogram buckets. `npm run docs` writes the page;
// test/ops/metrics-reference.test.ts fails when it is stale or when a running service exposes
// a family the registry does not list.
import { type MetricFamily, ServiceMetrics } from './metrics.js';

/** The families of a fresh ServiceMetrics, in order of registration. */
export function metricFamilies(): MetricFamily[] {
  return new ServiceMetrics().registry.families();
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function table(families: readonly MetricFamily[]): string[] {
  const out = ['| metric | type | labels | help |', '| --- | --- | --- | --- |'];
  for (const f of families) {
    const labels = f.labelNames.length === 0 ? '' : f.labelNames.map((l) => `\`${l}\``).join(', ');
    out.push(`| \`${f.name}\` | ${f.type} | ${labels} | ${cell(f.help)} |`);
  }
  return out;
}

/** docs/metrics.md from the given families (by default those of a fresh ServiceMetrics). */
export function renderMetricsReference(families: readonly MetricFamily[] = metricFamilies()): string {
  const own = families.filter((f) => !f.included);
  const runtime = families.filter((f) => f.included);
  const histograms = families.filter((f) => f.buckets !== null);
  return [
    '# Metrics reference',
    '',
    '<!-- Generated from the metrics registry (src/observability/metrics.ts, node-metrics.ts) by `npm run docs`;',
    '     do not edit. test/ops/metrics-reference.test.ts fails when this page is stale',
    '     (UPDATE_DOCS=1 npx vitest run test/ops/metrics-reference.test.ts rewrites it). -->',
    '',
    '`GET /metrics` (header `X-Admin-Key`; not in the public OpenAPI document) serves the Prometheus text',
    'format, written by [prom-client](https://github.com/siimon/prom-client). This page lists every family it',
    `holds, ${families.length} in all, as a service on Linux exposes them (prom-client reads the process's file`,
    'descriptors and memory from `/proc`). A labelled family shows no series until something is recorded for it.',
    'How the figures are collected, and what each thread reports, is in',
    '[operations.md](operations.md#metrics).',
    '',
    '- [Service metrics](#service-metrics)',
    '- [Process and runtime metrics](#process-and-runtime-metrics)',
    '- [Histogram buckets](#histogram-buckets)',
    '',
    '## Service metrics',
    '',
    "Registered by `ServiceMetrics` (`src/observability/metrics.ts`). Shard figures are the shard workers',",
    'read at scrape time.',
    '',
    ...table(own),
    '',
    '## Process and runtime metrics',
    '',
    "prom-client's default metrics of the process and of the main thread, under the `asas_` prefix, and the",
    "standard `nodejs_version_info`; the service replaces prom-client's GC histogram with one that counts every",
    'pause and adds the event-loop busy time (`src/observability/node-metrics.ts`).',
    '',
    ...table(runtime),
    '',
    '## Histogram buckets',
    '',
    "Upper bounds of each histogram's buckets (`le`), besides `+Inf`.",
    '',
    '| histogram | buckets |',
    '| --- | --- |',
    ...histograms.map((f) => `| \`${f.name}\` | ${(f.buckets ?? []).join(', ')} |`),
    '',
  ].join('\n');
}
