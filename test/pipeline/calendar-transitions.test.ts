// The calendar windows (docs/holds.md "Windows") on the days a zone changes its offset: a
// midnight the clocks skip (America/Santiago and America/Havana in spring, Asia/Beirut in March),
// a midnight that happens twice (America/Havana in November), an hour repeated before midnight
// (Santiago in April, Beirut in October) and a 30-minute shift (Australia/Lord_Howe). A window
// starts at the first instant of its local date. The expected instants are written out; each is
// also checked against Intl (its wall clock, and the instant before it on another date), and the
// transitions they rest on are found in this runtime's tz database first.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { windowsOf } from '../../src/decision/model/calendar.js';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (text: string) => Date.parse(text);

const wallFormats = new Map<string, Intl.DateTimeFormat>();
/** The wall clock of `ms` in `tz` as 'YYYY-MM-DD HH:MM:SS.mmm' (Intl, independent of calendar.ts). */
function wallOf(tz: string, ms: number): string {
  let f = wallFormats.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      fractionalSecondDigits: 3,
    });
    wallFormats.set(tz, f);
  }
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(new Date(ms))) p[part.type] = part.value;
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}.${p.fractionalSecond}`;
}
const dateOf = (tz: string, ms: number) => wallOf(tz, ms).slice(0, 10);

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
/** The UTC offset of `tz` at `ms` as Intl writes it ('GMT-03:00'; 'GMT' for UTC). */
function offsetOf(tz: string, ms: number): string {
  let f = offsetFormats.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
    offsetFormats.set(tz, f);
  }
  return f.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? '';
}

interface Transition {
  /** The first instant of the new offset. */
  readonly at: string;
  /** The wall clock just before it and at it. */
  readonly from: string;
  readonly to: string;
}

/** The offset changes of `tz` between `fromMs` and `toMs`: an hourly scan, then to the ms. */
function transitions(tz: string, fromMs: number, toMs: number): Transition[] {
  const out: Transition[] = [];
  const HOUR = 3_600_000;
  let before = offsetOf(tz, fromMs);
  for (let t = fromMs + HOUR; t <= toMs; t += HOUR) {
    const now = offsetOf(tz, t);
    if (now === before) continue;
    let lo = t - HOUR;
    let hi = t;
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (offsetOf(tz, mid) === before) lo = mid;
      else hi = mid;
    }
    out.push({ at: iso(hi), from: wallOf(tz, hi - 1), to: wallOf(tz, hi) });
    before = now;
  }
  return out;
}

const Y2025 = [Date.UTC(2025, 0, 1), Date.UTC(2026, 0, 1)] as const;

describe("the transitions of this runtime's tz database the cases below rest on", () => {
  it('America/Santiago: 00:00 back to 23:00 on 6 April, 00:00 skipped on 7 September 2025', () => {
    expect(transitions('America/Santiago', ...Y2025)).toEqual([
      { at: '2025-04-06T03:00:00.000Z', from: '2025-04-05 23:59:59.999', to: '2025-04-05 23:00:00.000' },
      { at: '2025-09-07T04:00:00.000Z', from: '2025-09-06 23:59:59.999', to: '2025-09-07 01:00:00.000' },
    ]);
  });

  it('America/Havana: 00:00 skipped on 9 March, 00:00 twice on 2 November 2025 (and 1 November 2026)', () => {
    expect(transitions('America/Havana', ...Y2025)).toEqual([
      { at: '2025-03-09T05:00:00.000Z', from: '2025-03-08 23:59:59.999', to: '2025-03-09 01:00:00.000' },
      { at: '2025-11-02T05:00:00.000Z', from: '2025-11-02 00:59:59.999', to: '2025-11-02 00:00:00.000' },
    ]);
    expect(transitions('America/Havana', Date.UTC(2026, 9, 1), Date.UTC(2026, 11, 1))).toEqual([
      { at: '2026-11-01T05:00:00.000Z', from: '2026-11-01 00:59:59.999', to: '2026-11-01 00:00:00.000' },
    ]);
  });

  it('Asia/Beirut: 00:00 skipped on 30 March, 00:00 back to 23:00 on 26 October 2025', () => {
    expect(transitions('Asia/Beirut', ...Y2025)).toEqual([
      { at: '2025-03-29T22:00:00.000Z', from: '2025-03-29 23:59:59.999', to: '2025-03-30 01:00:00.000' },
      { at: '2025-10-25T21:00:00.000Z', from: '2025-10-25 23:59:59.999', to: '2025-10-25 23:00:00.000' },
    ]);
  });

  it('Australia/Lord_Howe: 30 minutes back on 6 April, 30 minutes forward on 5 October 2025', () => {
    expect(transitions('Australia/Lord_Howe', ...Y2025)).toEqual([
      { at: '2025-04-05T15:00:00.000Z', from: '2025-04-06 01:59:59.999', to: '2025-04-06 01:30:00.000' },
      { at: '2025-10-04T15:30:00.000Z', from: '2025-10-05 01:59:59.999', to: '2025-10-05 02:30:00.000' },
    ]);
  });

  it('UTC never changes', () => {
    expect(transitions('UTC', ...Y2025)).toEqual([]);
  });
});

type Case = {
  /** The instant asked about. */
  readonly t: string;
  readonly day: string;
  readonly week: string;
  readonly month: string;
  readonly year: string;
  readonly nextDay: string;
  /** The wall clock at day and nextDay in the zone. */
  readonly dayWall: string;
  readonly nextDayWall: string;
};

const CASES: Record<string, readonly Case[]> = {
  // Chile: -03:00 in its summer, -04:00 in its winter.
  'America/Santiago': [
    // Saturday 5 April runs 25 hours: its 23:00 comes twice, Sunday starts at 00:00 -04:00.
    {
      t: '2025-04-06T02:30:00.000Z', // Saturday 23:30 -03:00, the first time
      day: '2025-04-05T03:00:00.000Z',
      week: '2025-03-31T03:00:00.000Z',
      month: '2025-04-01T03:00:00.000Z',
      year: '2025-01-01T03:00:00.000Z',
      nextDay: '2025-04-06T04:00:00.000Z',
      dayWall: '2025-04-05 00:00:00.000',
      nextDayWall: '2025-04-06 00:00:00.000',
    },
    {
      t: '2025-04-06T03:30:00.000Z', // Saturday 23:30 -04:00, the second time
      day: '2025-04-05T03:00:00.000Z',
      week: '2025-03-31T03:00:00.000Z',
      month: '2025-04-01T03:00:00.000Z',
      year: '2025-01-01T03:00:00.000Z',
      nextDay: '2025-04-06T04:00:00.000Z',
      dayWall: '2025-04-05 00:00:00.000',
      nextDayWall: '2025-04-06 00:00:00.000',
    },
    {
      t: '2025-04-06T04:00:00.000Z', // Sunday 00:00 -04:00
      day: '2025-04-06T04:00:00.000Z',
      week: '2025-03-31T03:00:00.000Z',
      month: '2025-04-01T03:00:00.000Z',
      year: '2025-01-01T03:00:00.000Z',
      nextDay: '2025-04-07T04:00:00.000Z',
      dayWall: '2025-04-06 00:00:00.000',
      nextDayWall: '2025-04-07 00:00:00.000',
    },
    {
      t: '2025-04-07T12:00:00.000Z', // Monday: a new week
      day: '2025-04-07T04:00:00.000Z',
      week: '2025-04-07T04:00:00.000Z',
      month: '2025-04-01T03:00:00.000Z',
      year: '2025-01-01T03:00:00.000Z',
      nextDay: '2025-04-08T04:00:00.000Z',
      dayWall: '2025-04-07 00:00:00.000',
      nextDayWall: '2025-04-08 00:00:00.000',
    },
    // Sunday 7 September has no 00:00: it starts at 01:00 -03:00 and runs 23 hours.
    {
      t: '2025-09-07T03:59:59.999Z', // Saturday 23:59:59.999 -04:00
      day: '2025-09-06T04:00:00.000Z',
      week: '2025-09-01T04:00:00.000Z',
      month: '2025-09-01T04:00:00.000Z',
      year: '2025-01-01T03:00:00.000Z',
      nextDay: '2025-09-07T04:00:00.000Z',
      dayWall: '2025-09-06 00:00:00.000',
      nextDayWall: '2025-09-07 01:00:00.000',
    },
    {
      t: '2025-09-07T04:00:00.000Z', // Sunday 01:00 -03:00, its first instant
      day: '2025-09-07T04:00:00.000Z',
      week: '2025-09-01T04:00:00.000Z',
      month: '2025-09-01T04:00:00.000Z',
      year: '2025-01-01T03:00:00.000Z',
      nextDay: '2025-09-08T03:00:00.000Z',
      dayWall: '2025-09-07 01:00:00.000',
      nextDayWall: '2025-09-08 00:00:00.000',
    },
    {
      t: '2025-09-08T02:59:59.999Z', // Sunday 23:59:59.999 -03:00
      day: '2025-09-07T04:00:00.000Z',
      week: '2025-09-01T04:00:00.000Z',
      month: '2025-09-01T04:00:00.000Z',
      year: '2025-01-01T03:00:00.000Z',
      nextDay: '2025-09-08T03:00:00.000Z',
      dayWall: '2025-09-07 01:00:00.000',
      nextDayWall: '2025-09-08 00:00:00.000',
    },
    {
      t: '2025-09-08T03:00:00.000Z', // Monday 00:00 -03:00
      day: '2025-09-08T03:00:00.000Z',
      week: '2025-09-08T03:00:00.000Z',
      month: '2025-09-01T04:00:00.000Z',
      year: '2025-01-01T03:00:00.000Z',
      nextDay: '2025-09-09T03:00:00.000Z',
      dayWall: '2025-09-08 00:00:00.000',
      nextDayWall: '2025-09-09 00:00:00.000',
    },
  ],
  // Cuba: -05:00 in winter, -04:00 in summer; both changes happen at midnight.
  'America/Havana': [
    {
      t: '2025-03-09T04:59:59.999Z', // Saturday 23:59:59.999 -05:00
      day: '2025-03-08T05:00:00.000Z',
      week: '2025-03-03T05:00:00.000Z',
      month: '2025-03-01T05:00:00.000Z',
      year: '2025-01-01T05:00:00.000Z',
      nextDay: '2025-03-09T05:00:00.000Z',
      dayWall: '2025-03-08 00:00:00.000',
      nextDayWall: '2025-03-09 01:00:00.000',
    },
    {
      t: '2025-03-09T05:00:00.000Z', // Sunday 01:00 -04:00: 00:00 was skipped
      day: '2025-03-09T05:00:00.000Z',
      week: '2025-03-03T05:00:00.000Z',
      month: '2025-03-01T05:00:00.000Z',
      year: '2025-01-01T05:00:00.000Z',
      nextDay: '2025-03-10T04:00:00.000Z',
      dayWall: '2025-03-09 01:00:00.000',
      nextDayWall: '2025-03-10 00:00:00.000',
    },
    {
      t: '2025-03-10T04:00:00.000Z', // Monday 00:00 -04:00
      day: '2025-03-10T04:00:00.000Z',
      week: '2025-03-10T04:00:00.000Z',
      month: '2025-03-01T05:00:00.000Z',
      year: '2025-01-01T05:00:00.000Z',
      nextDay: '2025-03-11T04:00:00.000Z',
      dayWall: '2025-03-10 00:00:00.000',
      nextDayWall: '2025-03-11 00:00:00.000',
    },
    // Sunday 2 November: 00:00-00:59 comes twice (-04:00, then -05:00); the day starts at the
    // first 00:00 and runs 25 hours.
    {
      t: '2025-11-02T03:59:59.999Z', // Saturday 23:59:59.999 -04:00
      day: '2025-11-01T04:00:00.000Z',
      week: '2025-10-27T04:00:00.000Z',
      month: '2025-11-01T04:00:00.000Z',
      year: '2025-01-01T05:00:00.000Z',
      nextDay: '2025-11-02T04:00:00.000Z',
      dayWall: '2025-11-01 00:00:00.000',
      nextDayWall: '2025-11-02 00:00:00.000',
    },
    {
      t: '2025-11-02T04:30:00.000Z', // Sunday 00:30 -04:00, the first time
      day: '2025-11-02T04:00:00.000Z',
      week: '2025-10-27T04:00:00.000Z',
      month: '2025-11-01T04:00:00.000Z',
      year: '2025-01-01T05:00:00.000Z',
      nextDay: '2025-11-03T05:00:00.000Z',
      dayWall: '2025-11-02 00:00:00.000',
      nextDayWall: '2025-11-03 00:00:00.000',
    },
    {
      t: '2025-11-02T05:00:00.000Z', // Sunday 00:00 -05:00, the second time
      day: '2025-11-02T04:00:00.000Z',
      week: '2025-10-27T04:00:00.000Z',
      month: '2025-11-01T04:00:00.000Z',
      year: '2025-01-01T05:00:00.000Z',
      nextDay: '2025-11-03T05:00:00.000Z',
      dayWall: '2025-11-02 00:00:00.000',
      nextDayWall: '2025-11-03 00:00:00.000',
    },
    {
      t: '2025-11-03T05:00:00.000Z', // Monday 00:00 -05:00
      day: '2025-11-03T05:00:00.000Z',
      week: '2025-11-03T05:00:00.000Z',
      month: '2025-11-01T04:00:00.000Z',
      year: '2025-01-01T05:00:00.000Z',
      nextDay: '2025-11-04T05:00:00.000Z',
      dayWall: '2025-11-03 00:00:00.000',
      nextDayWall: '2025-11-04 00:00:00.000',
    },
    // 1 November 2026 is a Sunday with a repeated midnight: the month starts at its first 00:00.
    {
      t: '2026-11-01T05:30:00.000Z', // Sunday 00:30 -05:00, the second time
      day: '2026-11-01T04:00:00.000Z',
      week: '2026-10-26T04:00:00.000Z',
      month: '2026-11-01T04:00:00.000Z',
      year: '2026-01-01T05:00:00.000Z',
      nextDay: '2026-11-02T05:00:00.000Z',
      dayWall: '2026-11-01 00:00:00.000',
      nextDayWall: '2026-11-02 00:00:00.000',
    },
    {
      t: '2026-11-20T12:00:00.000Z',
      day: '2026-11-20T05:00:00.000Z',
      week: '2026-11-16T05:00:00.000Z',
      month: '2026-11-01T04:00:00.000Z',
      year: '2026-01-01T05:00:00.000Z',
      nextDay: '2026-11-21T05:00:00.000Z',
      dayWall: '2026-11-20 00:00:00.000',
      nextDayWall: '2026-11-21 00:00:00.000',
    },
  ],
  // Lebanon: +02:00 in winter, +03:00 in summer.
  'Asia/Beirut': [
    {
      t: '2025-03-29T21:59:59.999Z', // Saturday 23:59:59.999 +02:00
      day: '2025-03-28T22:00:00.000Z',
      week: '2025-03-23T22:00:00.000Z',
      month: '2025-02-28T22:00:00.000Z',
      year: '2024-12-31T22:00:00.000Z',
      nextDay: '2025-03-29T22:00:00.000Z',
      dayWall: '2025-03-29 00:00:00.000',
      nextDayWall: '2025-03-30 01:00:00.000',
    },
    {
      t: '2025-03-30T10:00:00.000Z', // Sunday, which starts at 01:00 +03:00
      day: '2025-03-29T22:00:00.000Z',
      week: '2025-03-23T22:00:00.000Z',
      month: '2025-02-28T22:00:00.000Z',
      year: '2024-12-31T22:00:00.000Z',
      nextDay: '2025-03-30T21:00:00.000Z',
      dayWall: '2025-03-30 01:00:00.000',
      nextDayWall: '2025-03-31 00:00:00.000',
    },
    {
      t: '2025-03-30T21:00:00.000Z', // Monday 00:00 +03:00
      day: '2025-03-30T21:00:00.000Z',
      week: '2025-03-30T21:00:00.000Z',
      month: '2025-02-28T22:00:00.000Z',
      year: '2024-12-31T22:00:00.000Z',
      nextDay: '2025-03-31T21:00:00.000Z',
      dayWall: '2025-03-31 00:00:00.000',
      nextDayWall: '2025-04-01 00:00:00.000',
    },
    {
      t: '2025-04-01T12:00:00.000Z', // the first April month in summer time
      day: '2025-03-31T21:00:00.000Z',
      week: '2025-03-30T21:00:00.000Z',
      month: '2025-03-31T21:00:00.000Z',
      year: '2024-12-31T22:00:00.000Z',
      nextDay: '2025-04-01T21:00:00.000Z',
      dayWall: '2025-04-01 00:00:00.000',
      nextDayWall: '2025-04-02 00:00:00.000',
    },
    // Saturday 25 October runs 25 hours: 23:00-23:59 comes twice.
    {
      t: '2025-10-25T21:30:00.000Z', // Saturday 23:30 +02:00, the second time
      day: '2025-10-24T21:00:00.000Z',
      week: '2025-10-19T21:00:00.000Z',
      month: '2025-09-30T21:00:00.000Z',
      year: '2024-12-31T22:00:00.000Z',
      nextDay: '2025-10-25T22:00:00.000Z',
      dayWall: '2025-10-25 00:00:00.000',
      nextDayWall: '2025-10-26 00:00:00.000',
    },
    {
      t: '2025-10-25T22:00:00.000Z', // Sunday 00:00 +02:00
      day: '2025-10-25T22:00:00.000Z',
      week: '2025-10-19T21:00:00.000Z',
      month: '2025-09-30T21:00:00.000Z',
      year: '2024-12-31T22:00:00.000Z',
      nextDay: '2025-10-26T22:00:00.000Z',
      dayWall: '2025-10-26 00:00:00.000',
      nextDayWall: '2025-10-27 00:00:00.000',
    },
  ],
  // Lord Howe Island: +11:00 in summer, +10:30 in winter, changed at 02:00.
  'Australia/Lord_Howe': [
    {
      t: '2025-04-05T14:00:00.000Z', // Sunday 01:00 +11:00
      day: '2025-04-05T13:00:00.000Z',
      week: '2025-03-30T13:00:00.000Z',
      month: '2025-03-31T13:00:00.000Z',
      year: '2024-12-31T13:00:00.000Z',
      nextDay: '2025-04-06T13:30:00.000Z',
      dayWall: '2025-04-06 00:00:00.000',
      nextDayWall: '2025-04-07 00:00:00.000',
    },
    {
      t: '2025-04-06T13:29:59.999Z', // Sunday 23:59:59.999 +10:30: the day ran 24.5 hours
      day: '2025-04-05T13:00:00.000Z',
      week: '2025-03-30T13:00:00.000Z',
      month: '2025-03-31T13:00:00.000Z',
      year: '2024-12-31T13:00:00.000Z',
      nextDay: '2025-04-06T13:30:00.000Z',
      dayWall: '2025-04-06 00:00:00.000',
      nextDayWall: '2025-04-07 00:00:00.000',
    },
    {
      t: '2025-04-06T13:30:00.000Z', // Monday 00:00 +10:30
      day: '2025-04-06T13:30:00.000Z',
      week: '2025-04-06T13:30:00.000Z',
      month: '2025-03-31T13:00:00.000Z',
      year: '2024-12-31T13:00:00.000Z',
      nextDay: '2025-04-07T13:30:00.000Z',
      dayWall: '2025-04-07 00:00:00.000',
      nextDayWall: '2025-04-08 00:00:00.000',
    },
    {
      t: '2025-10-04T16:00:00.000Z', // Sunday 03:00 +11:00: the day runs 23.5 hours
      day: '2025-10-04T13:30:00.000Z',
      week: '2025-09-28T13:30:00.000Z',
      month: '2025-09-30T13:30:00.000Z',
      year: '2024-12-31T13:00:00.000Z',
      nextDay: '2025-10-05T13:00:00.000Z',
      dayWall: '2025-10-05 00:00:00.000',
      nextDayWall: '2025-10-06 00:00:00.000',
    },
    {
      t: '2025-10-05T13:00:00.000Z', // Monday 00:00 +11:00
      day: '2025-10-05T13:00:00.000Z',
      week: '2025-10-05T13:00:00.000Z',
      month: '2025-09-30T13:30:00.000Z',
      year: '2024-12-31T13:00:00.000Z',
      nextDay: '2025-10-06T13:00:00.000Z',
      dayWall: '2025-10-06 00:00:00.000',
      nextDayWall: '2025-10-07 00:00:00.000',
    },
  ],
  // Europe/Berlin changes at 02:00/03:00, not at midnight: its change days are 23 and 25 hours.
  'Europe/Berlin': [
    {
      t: '2025-03-30T12:00:00.000Z',
      day: '2025-03-29T23:00:00.000Z',
      week: '2025-03-23T23:00:00.000Z',
      month: '2025-02-28T23:00:00.000Z',
      year: '2024-12-31T23:00:00.000Z',
      nextDay: '2025-03-30T22:00:00.000Z',
      dayWall: '2025-03-30 00:00:00.000',
      nextDayWall: '2025-03-31 00:00:00.000',
    },
    {
      t: '2025-10-26T12:00:00.000Z',
      day: '2025-10-25T22:00:00.000Z',
      week: '2025-10-19T22:00:00.000Z',
      month: '2025-09-30T22:00:00.000Z',
      year: '2024-12-31T23:00:00.000Z',
      nextDay: '2025-10-26T23:00:00.000Z',
      dayWall: '2025-10-26 00:00:00.000',
      nextDayWall: '2025-10-27 00:00:00.000',
    },
  ],
  // Asia/Kolkata: +05:30 all year.
  'Asia/Kolkata': [
    {
      t: '2025-12-31T18:29:59.999Z', // Wednesday 31 December 23:59:59.999
      day: '2025-12-30T18:30:00.000Z',
      week: '2025-12-28T18:30:00.000Z',
      month: '2025-11-30T18:30:00.000Z',
      year: '2024-12-31T18:30:00.000Z',
      nextDay: '2025-12-31T18:30:00.000Z',
      dayWall: '2025-12-31 00:00:00.000',
      nextDayWall: '2026-01-01 00:00:00.000',
    },
    {
      t: '2025-12-31T18:30:00.000Z', // Thursday 1 January 2026 00:00
      day: '2025-12-31T18:30:00.000Z',
      week: '2025-12-28T18:30:00.000Z',
      month: '2025-12-31T18:30:00.000Z',
      year: '2025-12-31T18:30:00.000Z',
      nextDay: '2026-01-01T18:30:00.000Z',
      dayWall: '2026-01-01 00:00:00.000',
      nextDayWall: '2026-01-02 00:00:00.000',
    },
  ],
  UTC: [
    {
      t: '2024-12-31T23:59:59.999Z', // Tuesday; its week started on Monday 30 December
      day: '2024-12-31T00:00:00.000Z',
      week: '2024-12-30T00:00:00.000Z',
      month: '2024-12-01T00:00:00.000Z',
      year: '2024-01-01T00:00:00.000Z',
      nextDay: '2025-01-01T00:00:00.000Z',
      dayWall: '2024-12-31 00:00:00.000',
      nextDayWall: '2025-01-01 00:00:00.000',
    },
    {
      t: '2024-02-29T12:00:00.000Z', // a leap day, Thursday
      day: '2024-02-29T00:00:00.000Z',
      week: '2024-02-26T00:00:00.000Z',
      month: '2024-02-01T00:00:00.000Z',
      year: '2024-01-01T00:00:00.000Z',
      nextDay: '2024-03-01T00:00:00.000Z',
      dayWall: '2024-02-29 00:00:00.000',
      nextDayWall: '2024-03-01 00:00:00.000',
    },
  ],
};

/** Asserts the windows of every case, written out and against Intl. */
function checkCases(): void {
  for (const [tz, cases] of Object.entries(CASES)) {
    for (const c of cases) {
      const w = windowsOf(tz, at(c.t));
      const label = `${tz} at ${c.t}`;
      expect(
        { day: iso(w.day), week: iso(w.week), month: iso(w.month), year: iso(w.year), nextDay: iso(w.nextDay) },
        label,
      ).toEqual({ day: c.day, week: c.week, month: c.month, year: c.year, nextDay: c.nextDay });
      expect([wallOf(tz, w.day), wallOf(tz, w.nextDay)], label).toEqual([c.dayWall, c.nextDayWall]);
      // Each start is the first instant of its local date: the instant before is on another date.
      for (const start of [w.day, w.week, w.month, w.year, w.nextDay]) {
        expect(dateOf(tz, start - 1), `${label}: ${iso(start)}`).not.toBe(dateOf(tz, start));
      }
      expect(dateOf(tz, w.day), label).toBe(dateOf(tz, at(c.t)));
    }
  }
}

describe('windowsOf on the change days and the days around them', () => {
  it('starts each window at the first instant of its local date', () => {
    checkCases();
  });

  for (const [tz, cases] of Object.entries(CASES)) {
    it(`${tz}: the same answers from a cold cache`, async () => {
      // A fresh module: nothing cached, every answer computed for its own instant.
      vi.resetModules();
      const fresh = await import('../../src/decision/model/calendar.js');
      for (const c of [...cases].reverse()) {
        const w = fresh.windowsOf(tz, at(c.t));
        expect([iso(w.day), iso(w.nextDay)], `${tz} at ${c.t}`).toEqual([c.day, c.nextDay]);
      }
    });
  }

  it('refuses a zone it does not know, as Intl does', () => {
    expect(() => windowsOf('Mars/Olympus', at('2025-09-07T04:00:00.000Z'))).toThrow(RangeError);
  });

  it('answers from its cache within the day, and recomputes at the start of the next', () => {
    const first = windowsOf('America/Santiago', at('2025-09-07T04:00:00.000Z'));
    expect(windowsOf('America/Santiago', at('2025-09-08T02:59:59.999Z'))).toBe(first);
    const next = windowsOf('America/Santiago', at('2025-09-08T03:00:00.000Z'));
    expect(next).not.toBe(first);
    expect(iso(next.day)).toBe('2025-09-08T03:00:00.000Z');
  });
});

describe('windowsOf whatever the host time zone', () => {
  // @date-fns/tz resolves a wall-clock time through the host's own zone (Date's local
  // setters); the answers must not depend on it. (On a host in Australia/Lord_Howe, @date-fns/tz
  // 1.5 puts Santiago's 00:00 of 6 April 2025 at 03:30 UTC, a Saturday 23:30: calendar.ts checks
  // every instant it gets and searches when it is not the first of its date.)
  const hostZone = process.env.TZ;
  afterEach(() => {
    if (hostZone === undefined) delete process.env.TZ;
    else process.env.TZ = hostZone;
  });

  for (const host of ['Australia/Lord_Howe', 'America/Santiago', 'America/Havana', 'Asia/Beirut', 'Asia/Kolkata']) {
    it(`TZ=${host}`, async () => {
      process.env.TZ = host;
      vi.resetModules();
      const fresh = await import('../../src/decision/model/calendar.js');
      for (const [tz, cases] of Object.entries(CASES)) {
        for (const c of cases) {
          const w = fresh.windowsOf(tz, at(c.t));
          expect(
            [iso(w.day), iso(w.week), iso(w.month), iso(w.year), iso(w.nextDay)],
            `${tz} at ${c.t} on a host in ${host}`,
          ).toEqual([c.day, c.week, c.month, c.year, c.nextDay]);
        }
      }
    });
  }
});

// Zones with changes at and around midnight, half-hour and 45-minute offsets and shifts, both
// hemispheres, the date line.
const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Santiago',
  'America/Havana',
  'America/Asuncion',
  'America/St_Johns',
  'Asia/Beirut',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
] as const;
const FROM = Date.UTC(2024, 0, 1);
const TO = Date.UTC(2027, 0, 1);
/** Every offset change of the zones in 2024-2026, to draw instants around them. */
const CHANGES: readonly { tz: string; ms: number }[] = ZONES.flatMap((tz) =>
  transitions(tz, FROM, TO).map((c) => ({ tz, ms: at(c.at) })),
);

const ISO_DAY = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const weekdayFormats = new Map<string, Intl.DateTimeFormat>();
function weekdayOf(tz: string, ms: number): number {
  let f = weekdayFormats.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, weekday: 'short' });
    weekdayFormats.set(tz, f);
  }
  return ISO_DAY.indexOf(f.format(new Date(ms)));
}

/** The properties of the windows of `t` in `tz`, against Intl. */
function checkWindows(tz: string, t: number): void {
  const w = windowsOf(tz, t);
  const label = `${tz} at ${iso(t)}`;
  const today = dateOf(tz, t);
  expect(w.day <= t && t < w.nextDay, label).toBe(true);
  expect(dateOf(tz, w.day), label).toBe(today);
  expect(dateOf(tz, w.day - 1), label).not.toBe(today);
  expect(dateOf(tz, w.nextDay - 1), label).toBe(today);
  expect(dateOf(tz, w.nextDay) > today, label).toBe(true);
  // The week starts on the Monday of the same ISO week, at most 6 local days earlier.
  expect(weekdayOf(tz, w.week), label).toBe(0);
  expect(w.week <= w.day && w.day - w.week < 7 * 86_400_000 + 3 * 3_600_000, label).toBe(true);
  expect(dateOf(tz, w.week - 1) < dateOf(tz, w.week), label).toBe(true);
  expect(dateOf(tz, w.month), label).toBe(`${today.slice(0, 7)}-01`);
  expect(dateOf(tz, w.month - 1) < dateOf(tz, w.month), label).toBe(true);
  expect(dateOf(tz, w.year), label).toBe(`${today.slice(0, 4)}-01-01`);
  expect(dateOf(tz, w.year - 1) < dateOf(tz, w.year), label).toBe(true);
}

describe('windowsOf, property', () => {
  it('found offset changes to draw from in every zone that has them', () => {
    expect(new Set(CHANGES.map((c) => c.tz))).toEqual(
      new Set([
        'Europe/Berlin',
        'America/New_York',
        'America/Santiago',
        'America/Havana',
        'America/Asuncion',
        'America/St_Johns',
        'Asia/Beirut',
        'Australia/Lord_Howe',
        'Pacific/Chatham',
      ]),
    );
  });

  it('for any instant: dayStart <= t < nextDay, dayStart is on the local date of t, the instant before it is not', () => {
    const anywhere = fc.tuple(fc.constantFrom(...ZONES), fc.integer({ min: FROM, max: TO - 1 }));
    // Within a day and a bit of an offset change of the zone, to the ms.
    const nearChange = fc
      .tuple(fc.constantFrom(...CHANGES), fc.integer({ min: -30 * 3_600_000, max: 30 * 3_600_000 }))
      .map(([c, d]) => [c.tz, c.ms + d] as const);
    // The last and first ms around a change.
    const atChange = fc
      .tuple(fc.constantFrom(...CHANGES), fc.integer({ min: -2, max: 1 }))
      .map(([c, d]) => [c.tz, c.ms + d] as const);
    fc.assert(
      fc.property(fc.oneof(anywhere, nearChange, atChange), ([tz, t]) => {
        checkWindows(tz, t);
      }),
      { numRuns: 3000 },
    );
  });

  it('walking every zone hour by hour across its change days gives contiguous days', () => {
    for (const c of CHANGES) {
      let prev = windowsOf(c.tz, c.ms - 48 * 3_600_000);
      for (let t = c.ms - 48 * 3_600_000; t <= c.ms + 48 * 3_600_000; t += 15 * 60_000) {
        const w = windowsOf(c.tz, t);
        checkWindows(c.tz, t);
        // A new day starts where the previous one ended.
        if (w !== prev && w.day !== prev.day) expect(w.day, `${c.tz} at ${iso(t)}`).toBe(prev.nextDay);
        prev = w;
      }
    }
  });
});
