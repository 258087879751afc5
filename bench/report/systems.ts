// The three systems of one bench run side by side (the bare echo ceiling, the conventional
// peer, this service), their ratios, and the CPU per request of each: pure formatting, so a
// unit test can hold the printed figures to the measured ones.
import type { LatencySummary } from '../load/run-load.js';
import type { CpuBreakdown } from './cpu.js';
import { table } from './results.js';

export interface SystemFigures {
  readonly name: string;
  readonly throughput: number;
  readonly latencyMs: LatencySummary;
  /** CPU of the system's processes per answered request, µs (null when not measured). */
  readonly cpuUsPerRequest: number | null;
}

export interface ThreeSystems {
  readonly service: SystemFigures;
  readonly peer: SystemFigures | null;
  readonly echo: SystemFigures | null;
}

export interface Ratios {
  /** Throughput of the service over the peer's. */
  readonly serviceToPeer: number | null;
  /** Throughput of the service over the echo ceiling's. */
  readonly serviceToEcho: number | null;
  readonly peerToEcho: number | null;
  /** p99 of the service over the peer's (below 1: the service's tail is shorter). */
  readonly p99ServiceToPeer: number | null;
  /** CPU per request of the service over the peer's (below 1: the service spends less). */
  readonly cpuServiceToPeer: number | null;
}

const div = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || b === null || b === undefined || b <= 0 ? null : Math.round((a / b) * 1000) / 1000;

export function ratiosOf(s: ThreeSystems): Ratios {
  return {
    serviceToPeer: div(s.service.throughput, s.peer?.throughput),
    serviceToEcho: div(s.service.throughput, s.echo?.throughput),
    peerToEcho: div(s.peer?.throughput, s.echo?.throughput),
    p99ServiceToPeer: div(s.service.latencyMs.p99, s.peer?.latencyMs.p99),
    cpuServiceToPeer: div(s.service.cpuUsPerRequest, s.peer?.cpuUsPerRequest),
  };
}

const times = (r: number) => `${r.toFixed(2)}x`;
const percent = (r: number) => `${(r * 100).toFixed(1)}%`;

/** The table of the three systems and the lines of ratios under it. */
export function formatSystems(s: ThreeSystems): string {
  const rows = [s.echo, s.peer, s.service]
    .filter((x): x is SystemFigures => x !== null)
    .map((x) => [
      x.name,
      x.throughput,
      x.latencyMs.count,
      x.latencyMs.p50,
      x.latencyMs.p90,
      x.latencyMs.p99,
      x.latencyMs.p999,
      x.latencyMs.max,
      x.cpuUsPerRequest ?? '',
    ]);
  const out = [
    table(['system', 'req/s', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'CPU µs/req'], rows),
    '',
  ];
  const r = ratiosOf(s);
  const parts: string[] = [];
  if (r.serviceToPeer !== null) parts.push(`service / peer ${times(r.serviceToPeer)}`);
  if (r.serviceToEcho !== null) parts.push(`service / echo ${percent(r.serviceToEcho)}`);
  if (r.peerToEcho !== null) parts.push(`peer / echo ${percent(r.peerToEcho)}`);
  if (parts.length > 0) out.push(`throughput: ${parts.join(', ')}`);
  if (r.p99ServiceToPeer !== null && s.peer !== null) {
    out.push(
      `p99: service ${s.service.latencyMs.p99} ms, peer ${s.peer.latencyMs.p99} ms (service / peer ${times(r.p99ServiceToPeer)})`,
    );
  }
  if (r.cpuServiceToPeer !== null && s.peer !== null) {
    out.push(
      `CPU per request, all the system's processes: service ${s.service.cpuUsPerRequest} µs, peer ${s.peer.cpuUsPerRequest} µs (service / peer ${times(r.cpuServiceToPeer)})`,
    );
  }
  return out.join('\n');
}

/** One system's CPU per request, component by component, largest first. */
export function formatCpu(name: string, b: CpuBreakdown): string {
  const rows = [...b.rows]
    .sort((x, y) => y.usPerRequest - x.usPerRequest)
    .map((r) => [r.component, r.usPerRequest, r.corePercent, r.seconds]);
  const head = `${name}: CPU per request over ${b.windowSeconds.toFixed(1)} s and ${b.requests} requests (system total ${b.totalUsPerRequest} µs, the load generator apart)`;
  const lines = [...b.notes];
  if (b.otherThreads.length > 1) {
    lines.push(
      `busiest other threads (tid: µs/req): ${b.otherThreads.map((t) => `${t.tid}: ${t.usPerRequest}`).join(', ')}`,
    );
  }
  const notes = lines.length > 0 ? `\n${lines.join('\n')}` : '';
  return `${head}\n${table(['component', 'µs/req', '% of a core', 'CPU s'], rows)}${notes}`;
}
