// The calendar windows of the caps (docs/holds.md "Windows"): day, ISO week (Monday), month and
// year starts in a Principal's IANA time zone, across daylight-saving changes.
import { describe, expect, it } from 'vitest';
import { isTimeZone, windowsOf } from '../../src/decision/model/calendar.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe('windowsOf', () => {
  it('UTC: midnight, Monday, the 1st and 1 January', () => {
    // Wednesday 2025-01-01 15:00 UTC: its week started on Monday 2024-12-30.
    const w = windowsOf('UTC', Date.UTC(2025, 0, 1, 15));
    expect([iso(w.day), iso(w.week), iso(w.month), iso(w.year), iso(w.nextDay)]).toEqual([
      '2025-01-01T00:00:00.000Z',
      '2024-12-30T00:00:00.000Z',
      '2025-01-01T00:00:00.000Z',
      '2025-01-01T00:00:00.000Z',
      '2025-01-02T00:00:00.000Z',
    ]);
  });

  it('Europe/Berlin: local midnight in winter (+01:00) and summer (+02:00)', () => {
    // 2025-03-31 00:30 local (summer time since the 30th) is 2025-03-30 22:30 UTC.
    const w = windowsOf('Europe/Berlin', Date.UTC(2025, 2, 30, 22, 30));
    expect(iso(w.day)).toBe('2025-03-30T22:00:00.000Z');
    expect(iso(w.week)).toBe('2025-03-30T22:00:00.000Z'); // Monday 31 March
    expect(iso(w.month)).toBe('2025-02-28T23:00:00.000Z'); // 1 March, still winter time
    expect(iso(w.year)).toBe('2024-12-31T23:00:00.000Z');
    expect(iso(w.nextDay)).toBe('2025-03-31T22:00:00.000Z');
  });

  it('America/New_York: the day of the autumn change is 25 hours long', () => {
    // Sunday 2025-11-02, clocks go back at 02:00 EDT: the day runs 04:00Z to 05:00Z next day.
    const w = windowsOf('America/New_York', Date.UTC(2025, 10, 2, 12));
    expect(iso(w.day)).toBe('2025-11-02T04:00:00.000Z');
    expect(iso(w.nextDay)).toBe('2025-11-03T05:00:00.000Z');
    expect(iso(w.week)).toBe('2025-10-27T04:00:00.000Z');
    expect(iso(w.month)).toBe('2025-11-01T04:00:00.000Z');
  });

  it('Pacific/Kiritimati (+14): the local day starts at 10:00 UTC the day before', () => {
    const w = windowsOf('Pacific/Kiritimati', Date.UTC(2025, 5, 15, 9, 59));
    expect(iso(w.day)).toBe('2025-06-14T10:00:00.000Z');
    const after = windowsOf('Pacific/Kiritimati', Date.UTC(2025, 5, 15, 10, 0));
    expect(iso(after.day)).toBe('2025-06-15T10:00:00.000Z');
  });

  it('knows IANA names only', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});
