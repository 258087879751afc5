// The load generator: drives one endpoint either at a fixed arrival rate (open loop) or at
// saturation (closed loop, N connections each keeping `pipelining` requests in flight).
//
// Open loop: request i is due at start + i/rate whatever the server does. When no connection
// has a free slot the request waits in a backlog, and its latency is still measured from the
// time it was due, so a stalled server shows up as latency instead of silently lowering the
// request rate (coordinated omission).
import { performance } from 'node:perf_hooks';
import hdr from 'hdr-histogram-js';
import { BenchConnection, type BenchRequest, type Completion } from './connection.js';

export type LoadMode = 'rate' | 'saturation';

export interface LoadOptions {
  readonly host: string;
  readonly port: number;
  readonly mode: LoadMode;
  /** Requests per second (rate mode). */
  readonly rate: number;
  readonly connections: number;
  /** Requests in flight per connection (1 = no pipelining). */
  readonly pipelining: number;
  readonly durationSeconds: number;
  /** Load run before measuring (not recorded). */
  readonly warmupSeconds: number;
  /**
   * Also warm up until this many answers have come back (the JIT settles by work done, not by
   * time: a loaded machine answers a tenth as many requests in the same seconds), but for at
   * most `maxWarmupSeconds`. 0 or absent: the warm-up is `warmupSeconds` alone.
   */
  readonly warmupRequests?: number;
  readonly maxWarmupSeconds?: number;
  readonly next: () => BenchRequest;
  /** Keep response bodies for classify (costs a little client CPU). */
  readonly keepBodies: boolean;
  /** Label of a response in the per-kind table (default: its HTTP status). */
  readonly classify?: (c: Completion) => string;
  /** Called once a second with the last second's figures. */
  readonly onInterval?: (s: IntervalStats) => void;
  /** Called with every recorded completion and its latency in milliseconds. */
  readonly onRecorded?: (c: Completion, latencyMs: number) => void;
  /** Called when the measured window opens (after the warm-up) and when it closes. */
  readonly onMeasureStart?: () => void;
  readonly onMeasureEnd?: () => void;
}

export interface LatencySummary {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

export interface IntervalStats {
  /** Seconds since the measurement started (end of the interval). */
  readonly t: number;
  readonly completed: number;
  readonly errors: number;
  readonly backlog: number;
  /** Latency of the interval's completions, milliseconds. */
  readonly latencyMs: LatencySummary;
}

export interface LoadResult {
  readonly mode: LoadMode;
  readonly connections: number;
  readonly pipelining: number;
  readonly targetRate: number | null;
  readonly durationSeconds: number;
  readonly sent: number;
  readonly completed: number;
  readonly throughputPerSecond: number;
  readonly byStatus: Record<string, number>;
  readonly byKind: Record<string, Record<string, number>>;
  /** Labels of every answer, warm-up and drain included (to compare with server counters). */
  readonly allByLabel: Record<string, number>;
  readonly connectionErrors: number;
  /** Requests written on a connection that failed before answering. */
  readonly lost: number;
  readonly maxBacklog: number;
  /** The warm-up as it happened: its seconds and the answers it got. */
  readonly warmup: { readonly seconds: number; readonly requests: number };
  readonly latencyMs: LatencySummary;
  readonly timeline: IntervalStats[];
}

type Histogram = ReturnType<typeof hdr.build>;

export function newHistogram(): Histogram {
  // Microseconds, 1 µs to 10 minutes, 3 significant digits.
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 600_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

export function summarise(h: Histogram): LatencySummary {
  const ms = (us: number) => Math.round(us) / 1000;
  if (h.totalCount === 0) return { count: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  // A percentile is reported as the top of its HDR bucket, which can pass the exact maximum.
  const max = h.maxValue;
  const at = (p: number) => ms(Math.min(h.getValueAtPercentile(p), max));
  return { count: h.totalCount, mean: ms(h.mean), p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max: ms(max) };
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const total = newHistogram();
  const interval = newHistogram();
  const byStatus: Record<string, number> = {};
  const byKind: Record<string, Record<string, number>> = {};
  const allByLabel: Record<string, number> = {};
  const timeline: IntervalStats[] = [];
  const backlog: { req: BenchRequest; intendedAt: number }[] = [];
  let backlogHead = 0;
  let sent = 0;
  let completed = 0;
  let connectionErrors = 0;
  let lost = 0;
  let intervalErrors = 0;
  let maxBacklog = 0;
  let stopped = false;

  const conns: BenchConnection[] = [];
  const start = performance.now() + 50;
  const warmupRequests = o.warmupRequests ?? 0;
  const minWarmupEnd = start + o.warmupSeconds * 1000;
  const maxWarmupEnd = start + Math.max(o.warmupSeconds, o.maxWarmupSeconds ?? 0) * 1000;
  // Known from the start without a request-count warm-up; else set when the warm-up ends.
  let measureFrom = warmupRequests > 0 ? Number.POSITIVE_INFINITY : minWarmupEnd;
  let stopAt = measureFrom + o.durationSeconds * 1000;
  let warmAnswered = 0;

  const onComplete = (c: Completion, conn: BenchConnection) => {
    const now = performance.now();
    const label = o.classify !== undefined ? o.classify(c) : String(c.status);
    allByLabel[label] = (allByLabel[label] ?? 0) + 1;
    if (c.intendedAt < measureFrom) warmAnswered++;
    if (c.intendedAt >= measureFrom && c.intendedAt < stopAt) {
      const us = Math.max(1, Math.round((now - c.intendedAt) * 1000));
      total.recordValue(us);
      interval.recordValue(us);
      completed++;
      const s = String(c.status);
      byStatus[s] = (byStatus[s] ?? 0) + 1;
      let k = byKind[c.kind];
      if (k === undefined) {
        k = {};
        byKind[c.kind] = k;
      }
      k[label] = (k[label] ?? 0) + 1;
      o.onRecorded?.(c, us / 1000);
    }
    refill(conn, now);
  };

  const onError = (_err: Error, n: number, conn: BenchConnection) => {
    connectionErrors++;
    intervalErrors++;
    if (!stopped) lost += n;
    const i = conns.indexOf(conn);
    if (i >= 0 && !stopped) {
      const fresh = open();
      conns[i] = fresh;
      fresh.ready().then(
        () => refill(fresh, performance.now()),
        () => {},
      );
    }
  };

  const open = () => new BenchConnection(o.host, o.port, o.keepBodies, onComplete, onError);

  function refill(conn: BenchConnection, now: number): void {
    if (conn.closed) return;
    if (o.mode === 'saturation') {
      while (!stopped && now < stopAt && conn.outstanding < o.pipelining) {
        conn.send(o.next(), now);
        sent++;
      }
      return;
    }
    while (backlogHead < backlog.length && conn.outstanding < o.pipelining) {
      const b = backlog[backlogHead++] as { req: BenchRequest; intendedAt: number };
      conn.send(b.req, b.intendedAt);
      sent++;
    }
    if (backlogHead > 4096 && backlogHead * 2 > backlog.length) {
      backlog.splice(0, backlogHead);
      backlogHead = 0;
    }
  }

  for (let i = 0; i < o.connections; i++) conns.push(open());
  await Promise.all(conns.map((c) => c.ready()));

  let rr = 0;
  let issued = 0;
  const pickFree = (): BenchConnection | null => {
    for (let n = 0; n < conns.length; n++) {
      const c = conns[(rr + n) % conns.length] as BenchConnection;
      if (!c.closed && c.outstanding < o.pipelining) {
        rr = (rr + n + 1) % conns.length;
        return c;
      }
    }
    return null;
  };

  await new Promise<void>((resolve) => {
    if (o.mode === 'saturation') {
      const wait = Math.max(0, start - performance.now());
      setTimeout(() => {
        const now = performance.now();
        for (const c of conns) refill(c, now);
      }, wait);
    } else {
      const tick = () => {
        if (stopped) return;
        const now = performance.now();
        const until = Math.min(now, stopAt);
        const due = Math.floor(((until - start) * o.rate) / 1000);
        while (issued < due) {
          const intendedAt = start + (issued * 1000) / o.rate;
          issued++;
          const req = o.next();
          if (backlogHead < backlog.length) {
            backlog.push({ req, intendedAt });
            continue;
          }
          const c = pickFree();
          if (c === null) backlog.push({ req, intendedAt });
          else {
            c.send(req, intendedAt);
            sent++;
          }
        }
        const depth = backlog.length - backlogHead;
        if (depth > maxBacklog) maxBacklog = depth;
        if (now < stopAt) setTimeout(tick, 1);
      };
      setTimeout(tick, Math.max(0, start - performance.now()));
    }

    let second = 0;
    const secondTimer = setInterval(() => {
      const now = performance.now();
      if (now < measureFrom) {
        interval.reset();
        intervalErrors = 0;
        return;
      }
      second++;
      const s: IntervalStats = {
        t: second,
        completed: interval.totalCount,
        errors: intervalErrors,
        backlog: backlog.length - backlogHead,
        latencyMs: summarise(interval),
      };
      interval.reset();
      intervalErrors = 0;
      if (second <= Math.ceil(o.durationSeconds)) {
        timeline.push(s);
        o.onInterval?.(s);
      }
    }, 1000);
    // The measurement opens once the warm-up is done; the one-second intervals are aligned to it.
    const open = () => {
      interval.reset();
      o.onMeasureStart?.();
      setTimeout(
        () => {
          o.onMeasureEnd?.();
          finish();
        },
        Math.max(0, stopAt - performance.now()),
      );
    };
    let align: ReturnType<typeof setTimeout>;
    if (warmupRequests > 0) {
      const poll = () => {
        const now = performance.now();
        if (now >= minWarmupEnd && (warmAnswered >= warmupRequests || now >= maxWarmupEnd)) {
          measureFrom = now;
          stopAt = now + o.durationSeconds * 1000;
          open();
          return;
        }
        align = setTimeout(poll, 50);
      };
      align = setTimeout(poll, Math.max(0, minWarmupEnd - performance.now()));
    } else align = setTimeout(open, Math.max(0, measureFrom - performance.now()));

    const finish = () => {
      const outstanding = conns.reduce((n, c) => n + c.outstanding, 0) + (backlog.length - backlogHead);
      const now = performance.now();
      if (outstanding === 0 || now > stopAt + 15_000) {
        clearInterval(secondTimer);
        clearTimeout(align);
        stopped = true;
        if (outstanding > 0) lost += outstanding;
        resolve();
        return;
      }
      // Requests issued before the end are still answered and recorded.
      for (const c of conns) refill(c, now);
      setTimeout(finish, 5);
    };
  });

  for (const c of conns) c.close();
  const latencyMs = summarise(total);
  return {
    mode: o.mode,
    connections: o.connections,
    pipelining: o.pipelining,
    targetRate: o.mode === 'rate' ? o.rate : null,
    durationSeconds: o.durationSeconds,
    sent,
    completed,
    throughputPerSecond: Math.round(completed / o.durationSeconds),
    byStatus,
    byKind,
    allByLabel,
    connectionErrors,
    lost,
    maxBacklog,
    warmup: { seconds: Math.round((measureFrom - start) / 100) / 10, requests: warmAnswered },
    latencyMs,
    timeline,
  };
}
