// A dependency-free SVG chart of latency over time (log scale, one line per percentile) above
// throughput per second, so a person can open the result in any browser or image viewer.
import type { IntervalStats } from '../load/run-load.js';

export interface ChartSeries {
  readonly name: string;
  readonly timeline: readonly IntervalStats[];
}

const W = 1000;
const PAD_L = 70;
const PAD_R = 210;
const LAT_TOP = 50;
const LAT_H = 300;
const GAP = 60;
const TP_H = 160;
const H = LAT_TOP + LAT_H + GAP + TP_H + 50;
const PLOT_W = W - PAD_L - PAD_R;

const PERCENTILES: readonly { key: 'p50' | 'p90' | 'p99' | 'max'; colour: string }[] = [
  { key: 'p50', colour: '#1f77b4' },
  { key: 'p90', colour: '#2ca02c' },
  { key: 'p99', colour: '#ff7f0e' },
  { key: 'max', colour: '#d62728' },
];
const SERIES_COLOURS = ['#1f77b4', '#9467bd', '#8c564b', '#17becf'];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function fmt(n: number): string {
  if (n >= 1000) return `${Math.round(n / 100) / 10}k`;
  if (n >= 1) return String(Math.round(n * 10) / 10);
  return String(Math.round(n * 1000) / 1000);
}

export function renderChart(title: string, subtitle: string, series: readonly ChartSeries[]): string {
  const main = series[0];
  const seconds = Math.max(1, main?.timeline.length ?? 1);
  const x = (t: number) => PAD_L + (PLOT_W * t) / seconds;

  // Latency panel: log10 scale over the observed range, at least 0.1 ms to 10 ms.
  const lat = main?.timeline ?? [];
  const values = lat.flatMap((s) => PERCENTILES.map((p) => s.latencyMs[p.key])).filter((v) => v > 0);
  const lo = Math.min(0.1, ...values);
  const hi = Math.max(10, ...values);
  const logLo = Math.floor(Math.log10(lo));
  const logHi = Math.ceil(Math.log10(hi));
  const yLat = (v: number) =>
    LAT_TOP + LAT_H - (LAT_H * (Math.log10(Math.max(v, 10 ** logLo)) - logLo)) / (logHi - logLo);

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${PAD_L}" y="22" font-size="16" font-weight="bold">${esc(title)}</text>`);
  out.push(`<text x="${PAD_L}" y="40" fill="#555">${esc(subtitle)}</text>`);

  // Latency grid and axis
  for (let e = logLo; e <= logHi; e++) {
    const y = yLat(10 ** e);
    out.push(`<line x1="${PAD_L}" y1="${y}" x2="${PAD_L + PLOT_W}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="${PAD_L - 8}" y="${y + 4}" text-anchor="end">${fmt(10 ** e)} ms</text>`);
  }
  out.push(
    `<text x="16" y="${LAT_TOP + LAT_H / 2}" transform="rotate(-90 16 ${LAT_TOP + LAT_H / 2})" text-anchor="middle">latency (ms, log scale)</text>`,
  );
  for (const p of PERCENTILES) {
    const pts = lat.map((s) => `${x(s.t).toFixed(1)},${yLat(s.latencyMs[p.key]).toFixed(1)}`).join(' ');
    if (pts.length > 0) {
      out.push(`<polyline fill="none" stroke="${p.colour}" stroke-width="1.8" points="${pts}"/>`);
    }
  }
  PERCENTILES.forEach((p, i) => {
    const y = LAT_TOP + 14 + i * 18;
    out.push(
      `<line x1="${W - PAD_R + 14}" y1="${y - 4}" x2="${W - PAD_R + 34}" y2="${y - 4}" stroke="${p.colour}" stroke-width="2"/>`,
    );
    out.push(`<text x="${W - PAD_R + 40}" y="${y}">${p.key}${main ? ` (${esc(main.name)})` : ''}</text>`);
  });

  // Throughput panel, scaled to the first series (the service): a reference far above it (the
  // echo ceiling, ten times faster) would flatten the service into the axis, so such a series is
  // named with its mean in the legend instead of drawn.
  const tpTop = LAT_TOP + LAT_H + GAP;
  const meanOf = (s: ChartSeries) => s.timeline.reduce((n, i) => n + i.completed, 0) / Math.max(1, s.timeline.length);
  const mainPeak = Math.max(1, ...(main?.timeline.map((i) => i.completed) ?? []));
  const drawn = series.filter((s, i) => i === 0 || meanOf(s) <= 2 * mainPeak);
  const tpMax = Math.max(1, ...drawn.flatMap((s) => s.timeline.map((i) => i.completed))) * 1.1;
  const yTp = (v: number) => tpTop + TP_H - (TP_H * v) / tpMax;
  for (let k = 0; k <= 4; k++) {
    const v = (tpMax * k) / 4;
    out.push(`<line x1="${PAD_L}" y1="${yTp(v)}" x2="${PAD_L + PLOT_W}" y2="${yTp(v)}" stroke="#eee"/>`);
    out.push(`<text x="${PAD_L - 8}" y="${yTp(v) + 4}" text-anchor="end">${fmt(v)}</text>`);
  }
  out.push(
    `<text x="16" y="${tpTop + TP_H / 2}" transform="rotate(-90 16 ${tpTop + TP_H / 2})" text-anchor="middle">requests/s</text>`,
  );
  series.forEach((s, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length] as string;
    const y = tpTop + 14 + i * 18;
    if (!drawn.includes(s)) {
      out.push(
        `<text x="${W - PAD_R + 14}" y="${y}" fill="#555">${esc(s.name)}: ${fmt(meanOf(s))}/s (off scale)</text>`,
      );
      return;
    }
    const pts = s.timeline.map((iv) => `${x(iv.t).toFixed(1)},${yTp(iv.completed).toFixed(1)}`).join(' ');
    if (pts.length > 0) out.push(`<polyline fill="none" stroke="${colour}" stroke-width="1.8" points="${pts}"/>`);
    out.push(
      `<line x1="${W - PAD_R + 14}" y1="${y - 4}" x2="${W - PAD_R + 34}" y2="${y - 4}" stroke="${colour}" stroke-width="2"/>`,
    );
    out.push(`<text x="${W - PAD_R + 40}" y="${y}">${esc(s.name)}</text>`);
  });

  // Time axis (shared)
  const axisY = tpTop + TP_H;
  const step = Math.max(1, Math.ceil(seconds / 10));
  for (let t = 0; t <= seconds; t += step) {
    out.push(`<line x1="${x(t)}" y1="${axisY}" x2="${x(t)}" y2="${axisY + 5}" stroke="#333"/>`);
    out.push(`<text x="${x(t)}" y="${axisY + 18}" text-anchor="middle">${t}</text>`);
  }
  out.push(
    `<text x="${PAD_L + PLOT_W / 2}" y="${axisY + 36}" text-anchor="middle">seconds into the measurement</text>`,
  );
  out.push(`<rect x="${PAD_L}" y="${LAT_TOP}" width="${PLOT_W}" height="${LAT_H}" fill="none" stroke="#333"/>`);
  out.push(`<rect x="${PAD_L}" y="${tpTop}" width="${PLOT_W}" height="${TP_H}" fill="none" stroke="#333"/>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
