// UTC calendar arithmetic of the hot path: day and month keys of the running totals, the
// starts of the day and month the audit totals are read from, and ISO timestamps (isoOf).
const DAY_MS = 86_400_000;

/** UTC day number. */
export function dayKeyOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

// Month of the last day asked for: the hot path asks for the same day over and over.
let cachedDay = -1;
let cachedMonth = -1;

/** UTC month number (year * 12 + month). */
export function monthKeyOf(ms: number): number {
  const day = dayKeyOf(ms);
  if (day !== cachedDay) {
    const d = new Date(day * DAY_MS);
    cachedMonth = d.getUTCFullYear() * 12 + d.getUTCMonth();
    cachedDay = day;
  }
  return cachedMonth;
}

export function dayStartMs(ms: number): number {
  return dayKeyOf(ms) * DAY_MS;
}

export function monthStartMs(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
// toISOString costs about a microsecond: the date part is cached per UTC day and the time of
// day is assembled from lookup tables (same text as toISOString for years 1970..9999).
const PAD2: readonly string[] = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let isoMs = Number.NaN;
let isoText = '';
let isoDay = Number.NaN;
let isoDayText = '';
export function isoOf(ms: number): string {
  if (ms === isoMs) return isoText;
  const day = Math.floor(ms / 86_400_000);
  if (day !== isoDay) {
    isoDayText = new Date(day * 86_400_000).toISOString().slice(0, 11);
    isoDay = day;
  }
  let r = ms - day * 86_400_000;
  const h = Math.floor(r / 3_600_000);
  r -= h * 3_600_000;
  const m = Math.floor(r / 60_000);
  r -= m * 60_000;
  const sec = Math.floor(r / 1000);
  const milli = Math.floor(r - sec * 1000);
  isoText = `${isoDayText}${PAD2[h]}:${PAD2[m]}:${PAD2[sec]}.${PAD3[milli]}Z`;
  isoMs = ms;
  return isoText;
}
