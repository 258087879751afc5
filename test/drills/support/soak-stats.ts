// The arithmetic of the soak's report: least-squares slopes, means of the halves of a run, and a
// readable table of the samples.

export interface Point {
  /** Minutes since the load started. */
  readonly t: number;
  readonly v: number;
}

/** The least-squares slope of v over t (per minute); 0 with fewer than two distinct times. */
export function slope(points: readonly Point[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  const mv = points.reduce((s, p) => s + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.v - mv);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Means of the first and the second half (the middle one of an odd count goes to neither). */
export function halves(xs: readonly number[]): { first: number; second: number } {
  const h = Math.floor(xs.length / 2);
  return { first: mean(xs.slice(0, h)), second: mean(xs.slice(xs.length - h)) };
}

/** A plain text table: right-aligned columns under their headers. */
export function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [headers.map(String), ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) => r.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  return [line(cells[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
