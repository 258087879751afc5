// `npm run bench -- --scenario memory`: the idle resident memory of the service the bench
// starts (embedded PGlite unless DATABASE_URL is set), in three states: a fresh start on an
// empty DATA_DIR, a restart on that DATA_DIR, and the same after its first sandbox use (which
// opens the embedded sandbox database, src/storage/embedded.ts). Each state is read after
// `idleSeconds` of idling (RSS from /proc, V8 heap and external memory from /metrics) and again
// at `settleSeconds`: V8's memory reducer compacts the heap and shrinks its young generation some
// 15-20 s into a quiet spell, so the second read is what an idle service settles at.
// The target for the embedded default is 250 MB before any sandbox use.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../provision.js';
import { scrape, sumOf } from '../report/scrape.js';
import { type Started, startService } from '../servers/processes.js';

export interface MemoryState {
  readonly state: string;
  /** Seconds from spawn to listening. */
  readonly start_seconds: number | null;
  readonly rss_mb: number | null;
  /** RSS at `settleSeconds` of idling. */
  readonly rss_settled_mb: number | null;
  readonly v8_heap_total_mb: number | null;
  /** V8 heap total at `settleSeconds` of idling. */
  readonly v8_heap_total_settled_mb: number | null;
  readonly v8_heap_used_mb: number | null;
  /** V8 external memory: mostly PGlite's WebAssembly memories (128 MB reserved per database). */
  readonly external_mb: number | null;
}

export interface MemoryOptions {
  readonly databaseUrl: string | null;
  readonly natsUrl: string | null;
  readonly workers: number | null;
  readonly idleSeconds: number;
  /** Seconds of idling before the second read (more than idleSeconds). */
  readonly settleSeconds: number;
  readonly log: (s: string) => void;
}

const MB = 1024 * 1024;
const mb = (n: number | null) => (n === null ? null : Math.round(n / MB));

async function read(s: Started, state: string, startSeconds: number | null, o: MemoryOptions): Promise<MemoryState> {
  await new Promise((r) => setTimeout(r, o.idleSeconds * 1000));
  const m = await scrape(s.url, s.adminKey);
  const rss = mb(s.rssBytes());
  await new Promise((r) => setTimeout(r, (o.settleSeconds - o.idleSeconds) * 1000));
  const settled = await scrape(s.url, s.adminKey);
  const of = (x: typeof m, name: string) => (x === null ? null : mb(sumOf(x, name)));
  return {
    state,
    start_seconds: startSeconds,
    rss_mb: rss,
    rss_settled_mb: mb(s.rssBytes()),
    v8_heap_total_mb: of(m, 'asas_nodejs_heap_size_total_bytes'),
    v8_heap_total_settled_mb: of(settled, 'asas_nodejs_heap_size_total_bytes'),
    v8_heap_used_mb: of(m, 'asas_nodejs_heap_size_used_bytes'),
    external_mb: of(m, 'asas_nodejs_external_memory_bytes'),
  };
}

async function timedStart(o: MemoryOptions, dataDir: string): Promise<{ s: Started; seconds: number }> {
  const t0 = Date.now();
  const s = await startService({ databaseUrl: o.databaseUrl, natsUrl: o.natsUrl, workers: o.workers, dataDir });
  return { s, seconds: (Date.now() - t0) / 1000 };
}

export async function measureMemory(o: MemoryOptions): Promise<MemoryState[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'asas-bench-memory-'));
  const out: MemoryState[] = [];
  try {
    o.log(`fresh start on an empty DATA_DIR, then ${o.settleSeconds} s idle ...`);
    const first = await timedStart(o, dataDir);
    try {
      out.push(await read(first.s, 'fresh DATA_DIR', first.seconds, o));
    } finally {
      await first.s.stop();
    }
    o.log(`restart on the same DATA_DIR, then ${o.settleSeconds} s idle ...`);
    const second = await timedStart(o, dataDir);
    try {
      out.push(await read(second.s, 'existing DATA_DIR', second.seconds, o));
      o.log('first sandbox use (a Client with a sandbox key) ...');
      const t = { url: second.s.url };
      const client = await call(t, 'POST', '/admin/v1/clients', {
        adminKey: second.s.adminKey,
        body: { name: 'memory' },
      });
      const t0 = Date.now();
      await call(t, 'POST', `/admin/v1/clients/${client.id as string}/credentials`, {
        adminKey: second.s.adminKey,
        body: { environment: 'sandbox' },
      });
      out.push(await read(second.s, 'after first sandbox use', (Date.now() - t0) / 1000, o));
    } finally {
      await second.s.stop();
    }
    o.log(`restart on that DATA_DIR (sandbox used), then ${o.settleSeconds} s idle ...`);
    const third = await timedStart(o, dataDir);
    try {
      out.push(await read(third.s, 'existing DATA_DIR, sandbox used', third.seconds, o));
    } finally {
      await third.s.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}
