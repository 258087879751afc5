import { Temporal } from 'temporal-polyfill';

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
 * and the start of the next day (until which the answer holds). Each starts at the first instant
 * of its local date: 01:00 on a day whose midnight the clocks skip, the first 00:00 on a day whose
 * midnight comes twice. Keys of the running totals are these starts.
 */
export interface Windows {
  readonly day: number;
  readonly week: number;
  readonly month: number;
  readonly year: number;
  readonly nextDay: number;
}

/** Per time zone: the windows of the day last asked for (the hot path asks for the same day over and over). */
const windowCache = new Map<string, Windows>();

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
    // Temporal's startOfDay() is the first instant of a local date (ECMA-262 Temporal): the end
    // of the jump on a skipped midnight, the first 00:00 of a repeated one, the next date's start
    // for a date the zone skipped entirely. Date arithmetic on the wall clock, then startOfDay.
    const now = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz);
    w = {
      day: now.startOfDay().epochMilliseconds,
      week: now.subtract({ days: now.dayOfWeek - 1 }).startOfDay().epochMilliseconds,
      month: now.with({ day: 1 }).startOfDay().epochMilliseconds,
      year: now.with({ month: 1, day: 1 }).startOfDay().epochMilliseconds,
      nextDay: now.add({ days: 1 }).startOfDay().epochMilliseconds,
    };
  }
  windowCache.set(tz, w);
  return w;
}
