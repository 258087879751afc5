// The bench suite end to end, briefly: against a running server (--target) it provisions
// through the API, drives /authorize and the echo ceiling for a couple of seconds, prints its
// table and writes the JSON and the SVG chart, whose counts add up and agree with /metrics.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../fixtures/server.js';

const RUN = fileURLToPath(new URL(`../../${process.env.DIST_DIR ?? 'dist'}/bench/run.js`, import.meta.url));
let server: TestServer;
let out: string;

beforeAll(async () => {
  server = await startTestServer();
  out = mkdtempSync(join(tmpdir(), 'asas-bench-smoke-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(out, { recursive: true, force: true });
});

interface Summary {
  count: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

describe('npm run bench', () => {
  it('writes a table, a JSON result and an SVG chart whose counts add up', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        RUN,
        '--target',
        server.url,
        '--admin-key',
        server.adminKey,
        '--duration',
        '2',
        '--warmup',
        '1',
        // A few hundred answers of warm-up keep the smoke run short (the default waits for 20 000).
        '--warmup-requests',
        '200',
        '--agents',
        '4',
        '--connections',
        '4',
        '--no-micro',
        '--quiet',
        '--out',
        out,
      ],
      { timeout: 60_000 },
    );
    expect(stdout).toMatch(/this service\s+\d+\s+\d+/);
    // A user's bench: no internal targets in what it prints.
    expect(stdout).not.toMatch(/target/i);
    expect(stdout).toMatch(/echo ceiling \(bare uWebSockets\.js\)\s+\d+/);
    // The conventional peer runs wherever the bench finds a PostgreSQL, and says so where it does not.
    expect(stdout).toMatch(/conventional peer \(Fastify \+ postgres\.js\)\s+\d+|conventional peer not run/);
    expect(stdout).toMatch(/throughput: service \/ (peer \d+\.\d+x, service \/ )?echo \d+\.\d+%/);
    const files = readdirSync(out);
    const json = files.find((f) => f.startsWith('authorize-') && f.endsWith('.json'));
    const svg = files.find((f) => f.startsWith('authorize-') && f.endsWith('.svg'));
    expect(json).toBeDefined();
    expect(svg).toBeDefined();

    const r = JSON.parse(readFileSync(join(out, json as string), 'utf8'));
    expect(r.machine.node).toBe(process.version);
    expect(r.machine.cores).toBeGreaterThanOrEqual(1);
    expect(typeof r.commit).toBe('string');
    const a = r.authorize;
    const byKind = Object.values(a.byKind as Record<string, Record<string, number>>).reduce(
      (n, k) => n + Object.values(k).reduce((x, y) => x + y, 0),
      0,
    );
    const byStatus = Object.values(a.byStatus as Record<string, number>).reduce((x, y) => x + y, 0);
    expect(a.completed).toBeGreaterThan(0);
    expect(byKind).toBe(a.completed);
    expect(byStatus).toBe(a.completed);
    expect(a.byStatus['200'], JSON.stringify(a.byStatus)).toBe(a.completed);
    expect((a.latencyMs as Summary).count).toBe(a.completed);
    const l = a.latencyMs as Summary;
    expect(l.p50).toBeLessThanOrEqual(l.p99);
    expect(l.p99).toBeLessThanOrEqual(l.p999);
    expect(l.p999).toBeLessThanOrEqual(l.max);
    expect(a.lost).toBe(0);
    expect(a.timeline.length).toBe(2);
    expect(a.warmup.requests).toBeGreaterThanOrEqual(200);
    expect(a.warmup.seconds).toBeGreaterThanOrEqual(1);
    expect(a.timeline.reduce((n: number, s: { completed: number }) => n + s.completed, 0)).toBeLessThanOrEqual(
      a.completed,
    );
    expect(r.echo.completed).toBeGreaterThan(0);
    expect(r.ratio_to_echo).toBeGreaterThan(0);
    // The server's own counters moved exactly as the bench counted (warm-up included).
    const m = r.server.metrics_vs_bench;
    expect(m.available).toBe(true);
    expect(m.http_requests.server, JSON.stringify(m)).toBe(m.http_requests.bench);
    for (const d of Object.values(m.decisions as Record<string, { server: number; bench: number }>)) {
      expect(d.server, JSON.stringify(m)).toBe(d.bench);
    }
    const chart = readFileSync(join(out, svg as string), 'utf8');
    expect(chart.startsWith('<svg')).toBe(true);
    expect(chart).toContain('<polyline');
    expect(chart.trim().endsWith('</svg>')).toBe(true);
  });
});

describe('the bench chart', () => {
  it('scales throughput to the service and names a far faster reference instead of drawing it', async () => {
    const { renderChart } = (await import(
      `../../${process.env.DIST_DIR ?? 'dist'}/bench/report/chart.js`
    )) as typeof import('../../bench/report/chart.js');
    const timeline = (rate: number) =>
      Array.from({ length: 5 }, (_, i) => ({
        t: i + 1,
        completed: rate,
        errors: 0,
        backlog: 0,
        latencyMs: { count: rate, mean: 1, p50: 1, p90: 2, p99: 3, p999: 4, max: 5 },
      }));
    const svg = renderChart('t', 's', [
      { name: 'authorize', timeline: timeline(6000) },
      { name: 'echo ceiling', timeline: timeline(84000) },
    ]);
    expect(svg).toContain('echo ceiling: 84k/s (off scale)');
    // The throughput axis tops out just above the service's rate, not at the ceiling's.
    expect(svg).toContain('>6.6k<');
    expect(svg).not.toContain('>84k<');
  });
});

describe('npm run bench command line', () => {
  it('prints its usage with --help and exits 0', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [RUN, '--help'], { timeout: 30_000 });
    expect(stdout).toMatch(/^Usage: npm run bench -- \[options\]/);
    expect(stdout).toContain('--scenario authorize|onboarding|webhook-lag|soak|agents|memory|all');
  });

  it('names an unknown option and exits 2, without a stack trace', async () => {
    const err = await promisify(execFile)(process.execPath, [RUN, '--no-such-option'], { timeout: 30_000 }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(2);
    expect(err?.stderr).toContain("Unknown option '--no-such-option'");
    expect(err?.stderr).toContain('--help');
    expect(err?.stderr).not.toMatch(/\n\s+at /);
  });
});
