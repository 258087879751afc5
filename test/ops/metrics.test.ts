// GET /metrics scraped while /authorize is under load: the operator key is required, the
// Prometheus text format is served, and once the load is answered the counters match what
// was sent (HTTP requests by route and status, decisions by decision, latency count, audit
// rows committed by the shard workers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizeSetup, authorizeBody, authorizeSetup } from '../fixtures/authorize-setup.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let setup: AuthorizeSetup;

beforeAll(async () => {
  server = await startTestServer();
  setup = await authorizeSetup(server);
});
afterAll(async () => {
  await server?.close();
});

function sample(text: string, series: string): number {
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    const key = line.slice(0, sp);
    // A series ending in "{" or "," sums every series starting with it.
    const prefix = series.endsWith('{') || series.endsWith(',');
    if (key === series || (prefix && key.startsWith(series))) n += Number(line.slice(sp + 1));
  }
  return n;
}

async function scrape(): Promise<{ status: number; type: string | null; text: string }> {
  const res = await request(server, 'GET', '/metrics', { adminKey: server.adminKey });
  return { status: res.status, type: res.headers.get('content-type'), text: res.text };
}

describe('GET /metrics', () => {
  it('refuses a missing or wrong operator key with the 403 envelope', async () => {
    expectEnvelope(await request(server, 'GET', '/metrics'), 403, 'forbidden');
    expectEnvelope(await request(server, 'GET', '/metrics', { adminKey: 'x'.repeat(32) }), 403, 'forbidden');
  });

  it('carries the standard nodejs_version_info of the Node release that runs', async () => {
    const { status, text } = await scrape();
    expect(status).toBe(200);
    const [major, minor, patch] = process.versions.node.split('.');
    expect(text).toContain(
      `nodejs_version_info{version="${process.version}",major="${major}",minor="${minor}",patch="${patch}"} 1`,
    );
  });

  it('is not in the public OpenAPI document', async () => {
    const res = await request<{ paths: Record<string, unknown> }>(server, 'GET', '/api/v1/openapi.json');
    expect(Object.keys(res.body.paths)).not.toContain('/metrics');
  });

  it('shows counters consistent with the requests sent during a load', async () => {
    const before = (await scrape()).text;
    const sent = { APPROVE: 0, DECLINE: 0, STEP_UP: 0 } as Record<string, number>;
    let ok = 0;
    // Safe declines (the audit could not be committed in time) are answered but not recorded.
    let safe = 0;
    let safeOverLimit = 0;
    let midScrape: { status: number; type: string | null; text: string } | null = null;
    const total = 120;
    let next = 0;
    // 8 concurrent senders; whichever takes request 40 scrapes once while the load is running.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (;;) {
          const i = next++;
          if (i >= total) return;
          if (i === 40) midScrape = await scrape();
          // Every fourth request is over the per-transaction limit: a mandate_exceeded DECLINE.
          const amount = i % 4 === 3 ? '300.00' : '1.00';
          const res = await request(server, 'POST', '/api/v1/authorize', {
            apiKey: setup.principalKey,
            body: authorizeBody(setup.agentId, amount),
          });
          expect(res.status).toBe(200);
          ok++;
          sent[res.body.decision as string] = (sent[res.body.decision as string] ?? 0) + 1;
          if ((res.body.reason_codes as string[]).includes('system_unavailable')) {
            safe++;
            if (amount === '300.00') safeOverLimit++;
          }
        }
      }),
    );
    expect(ok).toBe(total);
    expect(sent.DECLINE).toBeGreaterThanOrEqual(total / 4);

    const mid = midScrape as unknown as { status: number; type: string | null; text: string };
    expect(mid.status).toBe(200);
    expect(mid.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(mid.text).toContain('# TYPE asas_decisions_total counter');
    expect(mid.text).toMatch(/asas_http_requests_in_flight \d+/);

    const after = (await scrape()).text;
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('asas_http_requests_total{route="/api/v1/authorize",method="POST",status="200"}')).toBe(total);
    for (const d of ['APPROVE', 'DECLINE', 'STEP_UP']) {
      expect(delta(`asas_decisions_total{decision="${d}",`), `${d} ${JSON.stringify(sent)}`).toBe(sent[d] ?? 0);
    }
    expect(sample(after, 'asas_decisions_total{decision="DECLINE",gate="mandate_exceeded"}')).toBe(
      total / 4 - safeOverLimit,
    );
    expect(delta('asas_decision_duration_seconds_count')).toBe(total);
    // Every answered decision is an audit row committed by a shard worker.
    expect(delta('asas_audit_rows_committed_total{')).toBe(total - safe);
    // Per-batch figures: the batch-size histogram adds up to the rows, one observation per commit.
    expect(delta('asas_audit_batch_size_sum{')).toBe(total - safe);
    expect(delta('asas_audit_batch_size_count{')).toBe(delta('asas_audit_commits_total{'));
    expect(delta('asas_audit_commit_duration_seconds_count{')).toBeGreaterThanOrEqual(
      delta('asas_audit_commits_total{'),
    );
    expect(delta('asas_audit_commits_total{')).toBeGreaterThan(0);
    expect(sample(after, 'asas_actor_cache_size{')).toBeGreaterThanOrEqual(1);
    expect(after).toMatch(/asas_outbox_backlog\{env="live"\} \d+/);
    // Every shard reports its queue; with every request answered, nothing is waiting.
    expect(after).toMatch(/asas_shard_queue_depth\{shard="0"\} 0\n/);
    // Each authorization's wait for its shard and its time in the shard are counted once (a
    // safe decision given at the edge on a deadline may not have reached its shard yet).
    for (const h of ['asas_shard_wait_seconds', 'asas_shard_authorize_seconds']) {
      expect(delta(`${h}_count{`), h).toBeGreaterThanOrEqual(total - safe);
      expect(delta(`${h}_count{`), h).toBeLessThanOrEqual(total);
      expect(delta(`${h}_bucket{shard="0",le="+Inf"}`), h).toBe(delta(`${h}_count{shard="0"}`));
    }
    expect(delta('asas_shard_authorize_seconds_sum{')).toBeGreaterThan(0);
    // Each shard reports its thread's event-loop delay (sampled every 10 ms) since the last scrape.
    expect(after).toMatch(/asas_shard_eventloop_lag_p99_seconds\{shard="0"\} \d/);
    expect(after).toMatch(/asas_shard_eventloop_lag_max_seconds\{shard="0"\} \d/);
    // Each shard names its OS thread (Linux), so per-thread CPU can be read from /proc.
    if (process.platform === 'linux') expect(sample(after, 'asas_shard_os_thread_id{shard="0"}')).toBeGreaterThan(0);
  });
});
