// What every bench result records (machine, Node version, commit) and how it is shown: a
// table on stdout and a JSON file (plus the SVG chart) under bench/results/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, availableParallelism, cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { LatencySummary } from '../load/run-load.js';

export interface Machine {
  readonly node: string;
  readonly cores: number;
  readonly cpu_model: string;
  readonly platform: string;
  readonly arch: string;
  readonly total_memory_bytes: number;
}

export function machine(): Machine {
  return {
    node: process.version,
    cores: availableParallelism(),
    cpu_model: cpus()[0]?.model ?? 'unknown',
    platform: `${platform()} ${release()}`,
    arch: arch(),
    total_memory_bytes: totalmem(),
  };
}

export function commit(cwd: string): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8' });
    return dirty.trim().length > 0 ? `${sha}-dirty` : sha;
  } catch {
    return 'unknown';
  }
}

export function writeResult(
  dir: string,
  name: string,
  result: unknown,
  svg: string | null,
): { json: string; svg: string | null } {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const json = join(dir, `${name}-${stamp}.json`);
  writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  let svgPath: string | null = null;
  if (svg !== null) {
    svgPath = join(dir, `${name}-${stamp}.svg`);
    writeFileSync(svgPath, svg);
  }
  return { json, svg: svgPath };
}

/** A plain-text table with right-aligned numbers. */
export function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [headers, ...rows].map((r) => r.map((c) => String(c)));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  const sep = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(cells[0] as string[]), sep, ...cells.slice(1).map(line)].join('\n');
}

export function latencyRow(name: string, throughput: number, l: LatencySummary): (string | number)[] {
  return [name, throughput, l.count, l.p50, l.p90, l.p99, l.p999, l.max];
}

export const LATENCY_HEADERS = ['run', 'req/s', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms'];

/** Prints a tinybench run side by side (bench/ip-ranges.ts, bench/tokens.ts): median and p99 in ns. */
export function printTinybench(tasks: readonly { name: string; result?: unknown }[]): void {
  console.log(`node ${process.version}, ${availableParallelism()} cores`);
  console.table(
    tasks.map((t) => {
      const r = t.result as { latency?: { p50?: number; p99?: number }; throughput?: { p50?: number } } | undefined;
      const ns = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms * 1e6));
      return {
        task: t.name,
        'ns/op (median)': ns(r?.latency?.p50),
        'ns/op (p99)': ns(r?.latency?.p99),
        'ops/s (median)': r?.throughput?.p50 === undefined ? null : Math.round(r.throughput.p50),
      };
    }),
  );
}
