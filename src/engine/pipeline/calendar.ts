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

/**
 * The calendar windows the caps count in (docs/holds.md "Windows"), in a Principal's IANA time
 * zone: the starts of the current day, ISO week (Monday), month and year, as ms since the epoch,
 * and the start of the next day (until which the answer holds). Keys of the running totals are
 * these starts.
 */
export interface Windows {
  readonly day: number;
  readonly week: number;
  readonly month: number;
  readonly year: number;
  readonly nextDay: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Per time zone: the windows of the day last asked for (the hot path asks for the same day over and over). */
const windowCache = new Map<string, Windows>();

function formatterOf(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** True for an IANA time zone name this runtime knows (e.g. Europe/Berlin, UTC). */
export function isTimeZone(tz: string): boolean {
  if (tz.length === 0 || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock date of `ms` in `tz`: [year, month 0-11, day, offset ms of the zone at ms]. */
function localParts(tz: string, ms: number): [number, number, number, number] {
  const parts = formatterOf(tz).formatToParts(new Date(ms));
  let y = 0;
  let mo = 0;
  let d = 0;
  let h = 0;
  let mi = 0;
  let s = 0;
  for (const p of parts) {
    if (p.type === 'year') y = Number(p.value);
    else if (p.type === 'month') mo = Number(p.value) - 1;
    else if (p.type === 'day') d = Number(p.value);
    else if (p.type === 'hour') h = Number(p.value);
    else if (p.type === 'minute') mi = Number(p.value);
    else if (p.type === 'second') s = Number(p.value);
  }
  const wall = Date.UTC(y, mo, d, h, mi, s);
  return [y, mo, d, wall - (ms - (((ms % 1000) + 1000) % 1000))];
}

/** The instant local midnight of (y, m, d) happens in `tz`. */
function localMidnight(tz: string, y: number, m: number, d: number): number {
  const guess = Date.UTC(y, m, d);
  const first = guess - (localParts(tz, guess)[3] as number);
  // Across an offset change the offset at the guess may differ from the one at the answer.
  return guess - (localParts(tz, first)[3] as number);
}

export function windowsOf(tz: string, ms: number): Windows {
  const cached = windowCache.get(tz);
  if (cached !== undefined && ms >= cached.day && ms < cached.nextDay) return cached;
  let w: Windows;
  if (tz === 'UTC') {
    const day = dayStartMs(ms);
    const d = new Date(day);
    const dow = (d.getUTCDay() + 6) % 7;
    w = {
      day,
      week: day - dow * DAY_MS,
      month: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
      year: Date.UTC(d.getUTCFullYear(), 0, 1),
      nextDay: day + DAY_MS,
    };
  } else {
    const [y, m, d] = localParts(tz, ms);
    const dow = (new Date(Date.UTC(y, m, d)).getUTCDay() + 6) % 7;
    const monday = new Date(Date.UTC(y, m, d - dow));
    const next = new Date(Date.UTC(y, m, d + 1));
    w = {
      day: localMidnight(tz, y, m, d),
      week: localMidnight(tz, monday.getUTCFullYear(), monday.getUTCMonth(), monday.getUTCDate()),
      month: localMidnight(tz, y, m, 1),
      year: localMidnight(tz, y, 0, 1),
      nextDay: localMidnight(tz, next.getUTCFullYear(), next.getUTCMonth(), next.getUTCDate()),
    };
  }
  windowCache.set(tz, w);
  return w;
}
