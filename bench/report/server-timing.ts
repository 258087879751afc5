// Where a decision's time goes under load, as the service reports it: a sampler sends one
// request of the run's own mix now and then (every 100 ms by default, one at a time, on its
// own connection) while the load runs, reads the Server-Timing header of each answer
// (src/decision/model/timing.ts: edge, queue, each gate, record, sign, commit, total) and prints the
// per-stage breakdown. The load's own connections are left as they are (no header parsing on
// the generator's hot path); the sampled requests are in the server's own counters, so the
// sampler counts their answers too (`counts`, by the load's classifier) for the comparison.
import { connect, type Socket } from 'node:net';
import type { BenchRequest, Completion } from '../load/connection.js';
import { table } from './results.js';

export interface ServerTimingSampler {
  /** Stops sampling; the per-stage table (empty text when no answer carried the header) and the figures. */
  stop(): Promise<{ text: string; stages: Record<string, StageSummary>; counts: Record<string, number> }>;
}

export interface StageSummary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly mean: number;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** The header value of `name` (lower case) in an HTTP/1.1 header block, or null. */
function headerOf(head: string, name: string): string | null {
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return null;
}

/** `edge;dur=0.04, queue;dur=1.2` -> [['edge', 0.04], ['queue', 1.2]]. */
export function parseServerTiming(value: string): [string, number][] {
  const out: [string, number][] = [];
  for (const entry of value.split(',')) {
    const [name, ...params] = entry.trim().split(';');
    const d = params.find((p) => p.trim().startsWith('dur='));
    if (name === undefined || name === '' || d === undefined) continue;
    const ms = Number(d.trim().slice(4));
    if (Number.isFinite(ms)) out.push([name, ms]);
  }
  return out;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/** Starts sampling `next()` requests on a connection of its own to host:port. */
export function sampleServerTiming(
  host: string,
  port: number,
  next: () => BenchRequest,
  classify: (c: Completion) => string,
  everyMs = 100,
): ServerTimingSampler {
  const samples = new Map<string, number[]>();
  const counts: Record<string, number> = {};
  let kind = '';
  let answers = 0;
  let socket: Socket | null = null;
  let buf: Buffer = Buffer.alloc(0);
  let waiting: (() => void) | null = null;
  let stopped = false;

  const read = (chunk: Buffer) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    const end = buf.indexOf(CRLFCRLF);
    if (end < 0) return;
    const head = buf.toString('latin1', 0, end);
    const length = Number(headerOf(head, 'content-length') ?? '0');
    if (buf.length < end + 4 + length) return;
    const status = Number(head.slice(9, 12));
    const label = classify({ kind, intendedAt: 0, status, body: buf.subarray(end + 4, end + 4 + length) });
    counts[label] = (counts[label] ?? 0) + 1;
    buf = buf.subarray(end + 4 + length);
    const value = headerOf(head, 'server-timing');
    if (value !== null) {
      answers++;
      for (const [name, ms] of parseServerTiming(value)) {
        const list = samples.get(name);
        if (list === undefined) samples.set(name, [ms]);
        else list.push(ms);
      }
    }
    const w = waiting;
    waiting = null;
    w?.();
  };

  const open = () => {
    buf = Buffer.alloc(0);
    const s = connect({ host, port, noDelay: true });
    s.on('data', read);
    s.on('error', () => {});
    s.on('close', () => {
      if (socket === s) socket = null;
      const w = waiting;
      waiting = null;
      w?.();
    });
    return s;
  };

  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      socket ??= open();
      const answered = new Promise<void>((resolve) => {
        waiting = resolve;
      });
      const req = next();
      kind = req.kind;
      socket.write(req.bytes);
      await Promise.race([answered, new Promise((r) => setTimeout(r, 5_000))]);
      const left = everyMs - (Date.now() - started);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
    }
    socket?.destroy();
  })();

  return {
    async stop() {
      stopped = true;
      await loop;
      const stages: Record<string, StageSummary> = {};
      const rows: (string | number)[][] = [];
      const total = samples.get('total') ?? [];
      const totalMean = total.reduce((a, b) => a + b, 0) / Math.max(1, total.length);
      for (const [name, list] of samples) {
        const sorted = [...list].sort((a, b) => a - b);
        const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
        const s = {
          n: sorted.length,
          p50: quantile(sorted, 0.5),
          p90: quantile(sorted, 0.9),
          p99: quantile(sorted, 0.99),
          mean,
        };
        stages[name] = s;
        const share = name === 'total' || totalMean === 0 ? '' : `${((mean * 100) / totalMean).toFixed(1)}%`;
        rows.push([name, s.n, s.p50.toFixed(3), s.p90.toFixed(3), s.p99.toFixed(3), mean.toFixed(3), share]);
      }
      if (answers === 0) return { text: '', stages, counts };
      const text = `Server-Timing of ${answers} sampled /authorize answers during the run (ms; a gate is counted when the pipeline reached it):\n${table(['stage', 'n', 'p50', 'p90', 'p99', 'mean', 'share of total'], rows)}\n`;
      return { text, stages, counts };
    },
  };
}
