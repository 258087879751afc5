// A daily cap across a day whose local midnight does not exist, over HTTP against the built
// service in its own process (docs/holds.md "Windows"). America/Santiago skips 00:00 on the first
// Sunday of September on or after the 2nd (tz database): Saturday's 23:59:59.999 -04:00 is
// followed by Sunday's 01:00 -03:00, 04:00 UTC, where Sunday starts. The next such instant after
// the real now is found with Intl below, independently of the service's calendar.
//
// The service runs on a test double of the clock (test/fixtures/clock-offset.mjs, preloaded with
// --import): its Date.now() and `new Date()` start LEAD_MS before the jump and run at the real
// rate, in the main thread and in each shard worker. That JavaScript clock is the one that
// decides: the shard worker stamps each decision with it (the response's `timestamp`), the audit
// row's created_at is that stamp (not PostgreSQL's now()), the daily sums an actor is rebuilt with
// are the audit rows since the day start by that clock, and the usage of GET
// /api/v1/mandates/{id} takes its windows from Date.now() of the main thread. PostgreSQL's now()
// stays real: here it stamps only rows no window reads (agents', mandates', credentials' and
// principals' created_at, the receipt key's signs_from). The doubled clock must run ahead of it:
// a service whose clock is behind PostgreSQL's finds no receipt key signing yet and does not start.
//
// Two agents of one Principal in Santiago, daily cap 30, each approved 20 on Saturday. After the
// jump, one agent's actor is still in memory (its running total moves to Sunday's window), the
// other's is rebuilt from the audit log (as after an eviction or a restart): Saturday's 20 is
// in neither Sunday, so 20 is approved and 20 more declined, and the usage reports Sunday from
// 04:00 UTC with 20 used. A day started at 23:00 Saturday (03:00 UTC), as the calendar once did,
// reads Saturday's 20 into Sunday: the rebuilt agent declines its first 20 and the usage is off.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { authorizeBody } from '../fixtures/authorize-setup.js';
import { clockLines, principalIn, startServiceAt } from '../fixtures/drills/clock-service.js';
import type { ServiceProcess } from '../fixtures/drills/service-process.js';
import { request } from '../fixtures/server.js';

const SANTIAGO = 'America/Santiago';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The service's clock starts this long before the jump: its start-up and the Saturday spends fit in it. */
const LEAD_MS = 25_000;
/** How long after the jump (by the service's clock) the Sunday decisions start. */
const AFTER_MS = 1_000;

const wallClock = new Intl.DateTimeFormat('en-CA', {
  timeZone: SANTIAGO,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
/** The wall clock of `ms` in Santiago, 'YYYY-MM-DD HH:MM:SS' (Intl, not the service's code). */
function wallOf(ms: number): string {
  const p = Object.fromEntries(wallClock.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}
const dateOf = (ms: number) => wallOf(ms).slice(0, 10);

/** The first instant after `fromMs` that starts a Santiago date at 01:00 (its midnight skipped). */
function nextSkippedMidnight(fromMs: number): number {
  for (let t = Math.ceil(fromMs / HOUR) * HOUR; t < fromMs + 400 * DAY; t += HOUR) {
    if (dateOf(t) === dateOf(t - HOUR)) continue;
    let before = t - HOUR;
    let onOrAfter = t;
    while (onOrAfter - before > 1) {
      const mid = before + Math.floor((onOrAfter - before) / 2);
      if (dateOf(mid) === dateOf(t)) onOrAfter = mid;
      else before = mid;
    }
    if (wallOf(onOrAfter).endsWith(' 01:00:00')) return onOrAfter;
  }
  throw new Error(`no skipped midnight in ${SANTIAGO} within 400 days in this runtime's tz database`);
}

let svc: ServiceProcess | undefined;

afterAll(async () => {
  await svc?.cleanup();
});

describe(`a daily cap of 30 across ${SANTIAGO}'s skipped midnight, on the service's own clock`, () => {
  it('Saturday 23:59 spends stay in Saturday: on Sunday (from 01:00 local) 20 is approved, 20 more declined', async () => {
    const jump = nextSkippedMidnight(Date.now());
    const saturday = dateOf(jump - 1);
    const sunday = dateOf(jump);
    expect(wallOf(jump - 1)).toBe(`${saturday} 23:59:59`);
    expect(wallOf(jump)).toBe(`${sunday} 01:00:00`);
    expect(new Date(jump).toISOString()).toBe(`${sunday}T04:00:00.000Z`);

    const started = await startServiceAt(jump - LEAD_MS);
    svc = started.service;
    const service = started.service;
    const { offsetMs, serviceNow } = started;

    // A Principal in Santiago with two agents, each with a mandate capping the day at 30.
    const { apiKey, thresholds } = await principalIn(service, SANTIAGO);
    const agentWithCap = async () => {
      const agent = await request(service, 'POST', '/api/v1/agents', {
        apiKey,
        body: { display_name: 'Shopping agent', capabilities: ['PURCHASE'] },
      });
      expect(agent.status, agent.text).toBe(201);
      const mandate = await request(service, 'POST', '/api/v1/mandates', {
        apiKey,
        body: {
          agent_id: agent.body.id,
          // In the future of the service's clock (valid_from is its now).
          valid_until: new Date(jump + 30 * DAY).toISOString(),
          max_amount_per_transaction: '100.00',
          max_daily_amount: '30.00',
          currency: 'USD',
        },
      });
      expect(mandate.status, mandate.text).toBe(201);
      return { agentId: agent.body.id as string, mandateId: mandate.body.id as string };
    };
    const warm = await agentWithCap();
    const rebuilt = await agentWithCap();

    const decide = async (agentId: string, amount: string) => {
      const res = await request(service, 'POST', '/api/v1/authorize', {
        apiKey,
        body: authorizeBody(agentId, amount, { merchant_name: `Shop ${randomBytes(2).toString('hex')}` }),
      });
      expect(res.status, res.text).toBe(200);
      return res.body as {
        decision: string;
        reason_codes: string[];
        daily_amount_used: number;
        timestamp: string;
      };
    };
    const usage = async (mandateId: string) => {
      const res = await request(service, 'GET', `/api/v1/mandates/${mandateId}`, { apiKey });
      expect(res.status, res.text).toBe(200);
      return (res.body.usage as Record<string, Record<string, unknown>>).max_daily_amount;
    };

    // Saturday, in the last seconds before the jump (by the decisions' own timestamps).
    for (const { agentId } of [warm, rebuilt]) {
      const sat = await decide(agentId, '20.00');
      expect(sat.decision, JSON.stringify(sat)).toBe('APPROVE');
      const at = Date.parse(sat.timestamp);
      if (at >= jump) {
        throw new Error(`the service started too late: its Saturday decision came at ${sat.timestamp}, after the jump`);
      }
      expect(at).toBeGreaterThanOrEqual(jump - LEAD_MS);
      expect(dateOf(at)).toBe(saturday);
    }

    const wait = jump + AFTER_MS - serviceNow();
    expect(wait).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, wait));

    // Sunday. Soft checks from here: a calendar gone wrong shows every discrepancy at once.
    // The first agent's actor is still in memory from Saturday.
    const sun = await decide(warm.agentId, '20.00');
    expect(Date.parse(sun.timestamp)).toBeGreaterThanOrEqual(jump);
    expect(wallOf(Date.parse(sun.timestamp)).startsWith(`${sunday} 01:00:`)).toBe(true);
    expect.soft(sun.decision, JSON.stringify(sun)).toBe('APPROVE');
    expect.soft(sun.daily_amount_used).toBe(20);
    const over = await decide(warm.agentId, '20.00');
    expect.soft(over.decision).toBe('DECLINE');
    expect.soft(over.reason_codes).toContain('daily_limit_exceeded');

    // Every actor of the Principal is rebuilt from the audit log before its next decision.
    await thresholds(65_534);
    const first = await decide(rebuilt.agentId, '20.00');
    expect.soft(first.decision, JSON.stringify(first)).toBe('APPROVE');
    expect.soft(first.daily_amount_used).toBe(20);
    const second = await decide(rebuilt.agentId, '20.00');
    expect.soft(second.decision).toBe('DECLINE');
    expect.soft(second.reason_codes).toContain('daily_limit_exceeded');

    // The usage, read from PostgreSQL on the service's clock: Sunday from 04:00 UTC, 20 in it.
    for (const { mandateId } of [warm, rebuilt]) {
      expect.soft(await usage(mandateId)).toMatchObject({
        window: 'day',
        window_start: new Date(jump).toISOString(),
        limit: 30,
        used: 20,
        held: 0,
        remaining: 10,
      });
    }

    // The double reached the main thread and both shard workers (WORKERS=2), with one offset.
    const threads = clockLines(service);
    expect(new Set(threads.map((t) => t.thread)).size).toBeGreaterThanOrEqual(3);
    expect(threads.some((t) => t.thread === 0)).toBe(true);
    expect(new Set(threads.map((t) => t.offset_ms))).toEqual(new Set([offsetMs]));
  });
});
