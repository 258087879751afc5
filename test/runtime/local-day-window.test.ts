// The daily window of a Principal in America/Santiago over HTTP (docs/holds.md "Windows"): the
// usage of GET /api/v1/mandates/{id} reports the windows in the zone, and a daily cap counts
// from the first instant of the local date, to the ms, after a reload (the sums read from the
// audit log) as in the usage.
//
// The service decides on the real clock: there is no way to start it on a chosen day, so this
// test runs on whatever day it is in Santiago, not necessarily one whose midnight is skipped.
// The change days themselves (7 September 2025, its skipped 00:00; America/Havana's repeated
// 00:00) are decided at chosen instants through the shard's own load and evaluate in
// test/pipeline/local-day-cap.test.ts, and windowsOf is checked on them in
// test/pipeline/calendar-transitions.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWith, approve, decide, principal, usage } from '../fixtures/holds.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';
import { withDb } from '../fixtures/test-db.js';

const SANTIAGO = 'America/Santiago';
const DAY = 86_400_000;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const dates = new Intl.DateTimeFormat('en-CA', {
  timeZone: SANTIAGO,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});
/** The local date of `ms` in Santiago, 'YYYY-MM-DD' (Intl, independent of the service's code). */
const dateOf = (ms: number) => dates.format(new Date(ms));

/** The first instant whose Santiago date is `date` or later: a search to the ms over Intl. */
function firstInstantOf(date: string): number {
  const wall = Date.parse(`${date}T00:00:00.000Z`);
  let before = wall - 26 * 3_600_000;
  let onOrAfter = wall + 26 * 3_600_000;
  while (onOrAfter - before > 1) {
    const mid = before + Math.floor((onOrAfter - before) / 2);
    if (dateOf(mid) >= date) onOrAfter = mid;
    else before = mid;
  }
  return onOrAfter;
}

/** The windows of `ms` in Santiago, from Intl: day, ISO week (Monday), month, year. */
function expectedWindows(ms: number): { day: number; week: number; month: number; year: number } {
  const today = dateOf(ms);
  const noon = Date.parse(`${today}T12:00:00.000Z`);
  const monday = new Date(noon - ((new Date(noon).getUTCDay() + 6) % 7) * DAY).toISOString().slice(0, 10);
  return {
    day: firstInstantOf(today),
    week: firstInstantOf(monday),
    month: firstInstantOf(`${today.slice(0, 7)}-01`),
    year: firstInstantOf(`${today.slice(0, 4)}-01-01`),
  };
}

/** Makes every actor of the Principal reload from PostgreSQL (a thresholds change invalidates them). */
async function reload(apiKey: string): Promise<void> {
  const res = await request(server, 'PUT', '/api/v1/thresholds', {
    apiKey,
    body: { rapid_fire_max_count: 65_534, risk_velocity_max_count: 65_534 },
  });
  expect(res.status, res.text).toBe(200);
}

/** Moves an audit row to `ms` (a decision at that instant, as far as the windows can tell). */
async function moveTo(authorizationId: string, ms: number): Promise<void> {
  const moved = await withDb(
    server,
    'live',
    (sql) => sql`update authorizations set created_at = ${new Date(ms)} where id = ${authorizationId} returning id`,
  );
  expect(moved).toHaveLength(1);
}

/**
 * Runs `scenario` with the windows of now; again, once, when Santiago's date changed while it ran
 * (started just before local midnight).
 */
async function onOneLocalDay(scenario: (w: ReturnType<typeof expectedWindows>) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const w = expectedWindows(Date.now());
    try {
      await scenario(w);
      if (expectedWindows(Date.now()).day === w.day) return;
    } catch (err) {
      if (expectedWindows(Date.now()).day === w.day || attempt >= 2) throw err;
    }
    if (attempt >= 2) throw new Error("Santiago's date changed twice during the test");
  }
}

describe('a Principal in America/Santiago', () => {
  it("reports its caps' windows at the first instant of the local day, week, month and year", async () => {
    const who = await principal(server);
    const put = await request(server, 'PUT', `/api/v1/principals/${who.principalId}/timezone`, {
      apiKey: who.apiKey,
      body: { timezone: SANTIAGO },
    });
    expect(put.status, put.text).toBe(200);
    const { mandateId } = await agentWith(server, who, {
      max_daily_amount: '30.00',
      max_weekly_amount: '100.00',
      max_monthly_amount: '1000.00',
      max_yearly_amount: '5000.00',
    });
    await onOneLocalDay(async (w) => {
      const u = await usage(server, who, mandateId);
      expect({
        day: u.max_daily_amount?.window_start,
        week: u.max_weekly_amount?.window_start,
        month: u.max_monthly_amount?.window_start,
        year: u.max_yearly_amount?.window_start,
      }).toEqual({
        day: new Date(w.day).toISOString(),
        week: new Date(w.week).toISOString(),
        month: new Date(w.month).toISOString(),
        year: new Date(w.year).toISOString(),
      });
    });
  });

  it('counts a daily cap from the local day start to the ms: the last ms of yesterday is not today', async () => {
    const who = await principal(server);
    const put = await request(server, 'PUT', `/api/v1/principals/${who.principalId}/timezone`, {
      apiKey: who.apiKey,
      body: { timezone: SANTIAGO },
    });
    expect(put.status, put.text).toBe(200);
    await onOneLocalDay(async (w) => {
      const { agentId, mandateId } = await agentWith(server, who, {
        max_amount_per_transaction: '100.00',
        max_daily_amount: '30.00',
        max_weekly_amount: '1000.00',
      });
      const yesterday = await approve(server, who, agentId, '20.00');
      const today = await approve(server, who, agentId, '10.00');
      // The 20 becomes a decision of yesterday's last ms, the 10 one of today's first instant.
      await moveTo(yesterday, w.day - 1);
      await moveTo(today, w.day);
      await reload(who.apiKey);

      const u = await usage(server, who, mandateId);
      expect(u.max_daily_amount).toMatchObject({
        window_start: new Date(w.day).toISOString(),
        used: 10,
        held: 0,
        remaining: 20,
      });
      // The week holds both unless it started today (a Monday).
      expect(u.max_weekly_amount?.used).toBe(w.week < w.day ? 30 : 10);

      // The actor rebuilt from the audit log agrees: 10 + 20 fills the cap, 0.01 more does not fit.
      const fill = await decide(server, who, agentId, '20.00');
      expect(fill.decision, JSON.stringify(fill)).toBe('APPROVE');
      expect(fill.daily_amount_used).toBe(30);
      const over = await decide(server, who, agentId, '0.01');
      expect(over.decision).toBe('DECLINE');
      expect(over.reason_codes).toContain('daily_limit_exceeded');
      expect(over.reason_detail).toContain(SANTIAGO);
    });
  });
});
