// UTC calendar arithmetic of the hot path: day and month keys of the running totals, and the
// starts of the day and month the audit totals are read from.
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
