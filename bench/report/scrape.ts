// Reads the service's own /metrics (Prometheus text) so a bench run can compare the server's
// counters with its own counts, and read the server's memory on a remote target.

export type Samples = Map<string, number>;

/** Parses "name{labels} value" lines; keys keep the label text as written. */
export function parsePrometheus(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line.length === 0 || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    if (sp < 0) continue;
    const v = Number(line.slice(sp + 1));
    if (!Number.isNaN(v)) out.set(line.slice(0, sp), v);
  }
  return out;
}

export async function scrape(url: string, adminKey: string): Promise<Samples | null> {
  try {
    const res = await fetch(`${url}/metrics`, { headers: { 'x-admin-key': adminKey } });
    if (res.status !== 200) return null;
    return parsePrometheus(await res.text());
  } catch {
    return null;
  }
}

/** Sum of every series of `name` whose labels contain all of `match` (e.g. route="/x"). */
export function sumOf(s: Samples, name: string, match: readonly string[] = []): number {
  let n = 0;
  for (const [k, v] of s) {
    if (k !== name && !k.startsWith(`${name}{`)) continue;
    if (match.every((m) => k.includes(m))) n += v;
  }
  return n;
}
