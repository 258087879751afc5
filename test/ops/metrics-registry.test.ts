// The Prometheus registry (prom-client underneath, reading our values at scrape time):
// exposition format of counters, gauges (set and collected) and histograms with cumulative
// fixed buckets; the process and runtime metrics prom-client adds.
import { describe, expect, it } from 'vitest';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { Registry, ServiceMetrics } = (await import(
  `${DIST}observability/metrics.js`
)) as typeof import('../../src/observability/metrics.js');

describe('metrics registry', () => {
  it('renders labelled counters with HELP and TYPE lines and escaped label values', async () => {
    const r = new Registry();
    const c = r.counter('x_total', 'Things.', ['kind']);
    c.labels('a').inc();
    c.labels('a').inc(2);
    c.labels('b"\\\n').inc();
    const text = await r.render();
    expect(text).toContain('# HELP x_total Things.\n# TYPE x_total counter\n');
    expect(text).toContain('x_total{kind="a"} 3\n');
    expect(text).toContain('x_total{kind="b\\"\\\\\\n"} 1\n');
    expect(c.get('a')).toBe(3);
  });

  it('refuses the wrong number of label values and duplicate names', () => {
    const r = new Registry();
    const c = r.counter('y_total', 'Y.', ['a', 'b']);
    expect(() => c.labels('only-one')).toThrow(/expected 2 label values/);
    expect(() => r.counter('y_total', 'again')).toThrow(/already been registered/);
    expect(() => r.histogram('y_total', 'again', [1])).toThrow(/already been registered/);
  });

  it('renders histograms with cumulative buckets, +Inf, sum and count', async () => {
    const r = new Registry();
    const h = r.histogram('lat_seconds', 'Latency.', [0.1, 0.5, 1], ['route']);
    for (const v of [0.05, 0.1, 0.3, 0.7, 3]) h.labels('/a').observe(v);
    const text = await r.render();
    expect(text).toContain('# HELP lat_seconds Latency.\n# TYPE lat_seconds histogram\n');
    expect(text).toContain('lat_seconds_bucket{route="/a",le="0.1"} 2\n');
    expect(text).toContain('lat_seconds_bucket{route="/a",le="0.5"} 3\n');
    expect(text).toContain('lat_seconds_bucket{route="/a",le="1"} 4\n');
    expect(text).toContain('lat_seconds_bucket{route="/a",le="+Inf"} 5\n');
    expect(text).toContain('lat_seconds_count{route="/a"} 5\n');
    const sum = Number(/lat_seconds_sum\{route="\/a"\} (\S+)/.exec(text)?.[1]);
    expect(sum).toBeCloseTo(4.15, 10);
  });

  it('lists its families with type, labels and buckets, then the included ones', () => {
    const r = new Registry();
    r.counter('a_total', 'A.', ['kind']);
    r.gauge('b', 'B.');
    r.histogram('c_seconds', 'C.', [0.5, 0.1], ['route']);
    expect(r.families()).toEqual([
      { name: 'a_total', type: 'counter', help: 'A.', labelNames: ['kind'], buckets: null, included: false },
      { name: 'b', type: 'gauge', help: 'B.', labelNames: [], buckets: null, included: false },
      { name: 'c_seconds', type: 'histogram', help: 'C.', labelNames: ['route'], buckets: [0.1, 0.5], included: false },
    ]);
    const families = new ServiceMetrics().registry.families();
    const gc = families.find((f) => f.name === 'asas_nodejs_gc_duration_seconds');
    expect(gc).toMatchObject({ type: 'histogram', labelNames: ['kind'], included: true });
    expect(gc?.buckets?.length).toBeGreaterThan(5);
    expect(families.find((f) => f.name === 'asas_decisions_total')).toMatchObject({
      type: 'counter',
      labelNames: ['decision', 'gate'],
      included: false,
    });
  });

  it('reads gauge collectors at scrape time and survives a failing collector', async () => {
    const r = new Registry();
    const g = r.gauge('cache_size', 'Size.', ['shard']);
    let n = 1;
    g.collect(() => [
      [['0'], n],
      [['1'], n * 2],
    ]);
    g.collect(() => {
      throw new Error('boom');
    });
    // A collector that returns no number for a series: the series is left out, the scrape works.
    g.collect(() => [[['2'], undefined as unknown as number]]);
    expect(await r.render()).toContain('cache_size{shard="1"} 2\n');
    n = 5;
    const text = await r.render();
    expect(text).toContain('cache_size{shard="1"} 10\n');
    expect(text).not.toContain('shard="2"');
  });

  it('counts decisions by decision and first gate, and every gate fired', async () => {
    const m = new ServiceMetrics();
    m.decision('APPROVE', [], 0.001);
    m.decision('DECLINE', ['mandate_exceeded', 'risk_velocity'], 0.002);
    m.decision('DECLINE', ['mcc_blocked'], 0.003);
    m.auditBatch(1, { size: 12, commitSeconds: 0.004, ok: true });
    m.auditBatch(1, { size: 3, commitSeconds: 0.5, ok: false });
    expect(m.decisions.get('APPROVE', 'none')).toBe(1);
    expect(m.decisions.get('DECLINE', 'mandate_exceeded')).toBe(1);
    expect(m.gatesFired.get('risk_velocity', 'DECLINE')).toBe(1);
    const text = await m.render();
    expect(text).toContain('asas_decision_duration_seconds_count 3\n');
    expect(text).toContain('asas_audit_batch_size_sum{shard="1"} 15\n');
    expect(text).toContain('asas_audit_commit_failures_total{shard="1"} 1\n');
    expect(text).toMatch(/asas_process_resident_memory_bytes \d+/);
  });

  it('adds prom-client process and runtime metrics once, under asas_, next to ours', async () => {
    const m = new ServiceMetrics();
    // A second service in the same thread shares the runtime collectors (no duplicate names).
    const other = new ServiceMetrics();
    m.httpRequests.labels('/api/v1/authorize', 'POST', '200').inc();
    // Garbage until a collection is observed (the GC observer reports asynchronously).
    let gcCount = 0;
    for (let round = 0; round < 200 && gcCount === 0; round++) {
      let keep: unknown[] = [];
      for (let i = 0; i < 200_000; i++) keep.push({ i });
      keep = [];
      void keep;
      await new Promise((resolve) => setImmediate(resolve));
      gcCount = Number(/^asas_nodejs_gc_duration_seconds_count\{kind="\w+"\} (\d+)$/m.exec(await m.render())?.[1] ?? 0);
    }
    expect(gcCount).toBeGreaterThan(0);
    const text = await m.render();
    expect(text).toContain('asas_http_requests_total{route="/api/v1/authorize",method="POST",status="200"} 1\n');
    expect(text).toContain('# TYPE asas_nodejs_gc_duration_seconds histogram\n');
    expect(text).toMatch(
      /^asas_nodejs_gc_duration_seconds_bucket\{le="0.0001",kind="(major|minor|incremental|weakcb)"\} \d+$/m,
    );
    expect(text).toMatch(/^asas_nodejs_eventloop_lag_p99_seconds [\d.e-]+$/m);
    expect(text).toMatch(/^asas_nodejs_eventloop_active_seconds_total [\d.e-]+$/m);
    expect(text).toMatch(/^asas_process_cpu_seconds_total [\d.e-]+$/m);
    expect(text).toMatch(/^asas_nodejs_active_handles_total \d+$/m);
    // The resident set size is prom-client's now, and appears once.
    expect(text.match(/^# TYPE asas_process_resident_memory_bytes gauge$/gm)).toHaveLength(1);
    expect(text).toMatch(/^asas_process_resident_memory_bytes [1-9]\d*$/m);
    expect(await other.render()).toMatch(/^asas_process_resident_memory_bytes [1-9]\d*$/m);
    // Our own families cannot take a runtime metric's name.
    expect(() => m.registry.gauge('asas_process_resident_memory_bytes', 'again')).toThrow(/already registered/);
  });
});
