// Recurrence across a period's edge in two time zones, over HTTP against the built service in its
// own process (docs/mandate-lifecycle.md "Terms"): a mandate with `recurrence: {frequency:
// DAILY}` pays at most once per local day of the Principal's time zone. The service runs on a test
// double of the clock (test/fixtures/clock-offset.mjs, as test/drills/local-day-dst-http.test.ts
// explains) started LEAD_MS before the next local midnight of the zone, found with Intl below,
// independently of the service's calendar. Before midnight: one approval, then
// `recurrence_period_used`; after it: one approval again, in the actor that stayed in memory and in
// one rebuilt from the audit log. New York (UTC-5/-4) and Tokyo (UTC+9) put the edge on different
// UTC dates, so a period taken in UTC, or in the other zone, fails one of them. The same for an
// imported AP2 open Payment Mandate (payment.agent_recurrence DAILY, built with @sd-jwt/core from
// test keys), each payment a closed mandate presented to POST /api/v1/authorize/ap2.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentWithKey,
  chainOf,
  closedMandate,
  newAgentKey,
  newIssuer,
  openContent,
  openMandate,
} from '../fixtures/ap2.js';
import { authorizeBody } from '../fixtures/authorize-setup.js';
import { principalIn, startServiceAt } from '../fixtures/drills/clock-service.js';
import type { ServiceProcess } from '../fixtures/drills/service-process.js';
import { request } from '../fixtures/server.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The service's clock starts this long before local midnight: its start-up and the first decisions fit in it. */
const LEAD_MS = 25_000;
/** How long after midnight (by the service's clock) the next day's decisions start. */
const AFTER_MS = 1_000;

/** The local date of `ms` in `tz`, 'YYYY-MM-DD' (Intl, not the service's code). */
function dateIn(tz: string, ms: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(ms),
  );
}

/** The first instant after `fromMs` at which a new local date of `tz` starts. */
function nextMidnight(tz: string, fromMs: number): number {
  let before = fromMs;
  let after = fromMs + DAY;
  if (dateIn(tz, before) === dateIn(tz, after)) throw new Error(`no date change in ${tz} within a day`);
  while (after - before > 1) {
    const mid = before + Math.floor((after - before) / 2);
    if (dateIn(tz, mid) === dateIn(tz, fromMs)) before = mid;
    else after = mid;
  }
  return after;
}

let svc: ServiceProcess | undefined;

afterEach(async () => {
  await svc?.cleanup();
  svc = undefined;
});

describe.each(['America/New_York', 'Asia/Tokyo'])('a DAILY recurrence across local midnight in %s', (tz) => {
  it('pays once before midnight and once after it, in a warm and in a rebuilt actor', async () => {
    // At least LEAD_MS + a margin away, so the service's clock starts in the future of the real one.
    const midnight = nextMidnight(tz, Date.now() + 2 * LEAD_MS);
    const before = dateIn(tz, midnight - 1);
    const after = dateIn(tz, midnight);
    expect(after).not.toBe(before);

    const started = await startServiceAt(midnight - LEAD_MS);
    svc = started.service;
    const service = started.service;
    const { apiKey, clientKey, principalId, thresholds } = await principalIn(service, tz);
    const agentWithRecurrence = async () => {
      const agent = await request(service, 'POST', '/api/v1/agents', {
        apiKey,
        body: { display_name: 'Subscription agent', capabilities: ['PURCHASE'] },
      });
      expect(agent.status, agent.text).toBe(201);
      const mandate = await request(service, 'POST', '/api/v1/mandates', {
        apiKey,
        body: {
          agent_id: agent.body.id,
          valid_until: new Date(midnight + 30 * DAY).toISOString(),
          max_amount_per_transaction: '100.00',
          max_daily_amount: '500.00',
          currency: 'USD',
          recurrence: { frequency: 'DAILY' },
        },
      });
      expect(mandate.status, mandate.text).toBe(201);
      return agent.body.id as string;
    };
    const warm = await agentWithRecurrence();
    const rebuilt = await agentWithRecurrence();
    // The AP2 agent: its open mandate recurs DAILY; a closed mandate is signed (iat) on the
    // service's clock for each payment.
    const issuer = await newIssuer();
    const keys = await request(service, 'PUT', `/api/v1/principals/${principalId}/ap2-issuer-keys`, {
      apiKey: clientKey,
      body: { keys: [issuer.publicJwk] },
    });
    expect(keys.status, keys.text).toBe(200);
    const ap2Key = newAgentKey();
    const ap2Agent = await agentWithKey(service, { apiKey, principalId }, ap2Key);
    const open = await openMandate(
      issuer,
      openContent(ap2Key, [
        { type: 'payment.amount_range', currency: 'USD', max: 10_000 },
        { type: 'payment.agent_recurrence', frequency: 'DAILY' },
      ]),
    );
    const imported = await request(service, 'POST', `/api/v1/agents/${ap2Agent}/ap2-mandates`, {
      apiKey,
      body: { credential: open },
    });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.recurrence).toEqual({ frequency: 'DAILY' });
    const present = async () => {
      const closed = await closedMandate(ap2Key, open, {
        amount: 999,
        iat: Math.floor(started.serviceNow() / 1000),
      });
      const res = await request(service, 'POST', '/api/v1/authorize/ap2', {
        apiKey,
        body: {
          agent_id: ap2Agent,
          payment_mandate: chainOf(open, closed),
          intent_context: { intent_type: 'purchase', task_reference: 'daily paper' },
        },
      });
      expect(res.status, res.text).toBe(200);
      return res.body as { decision: string; reason_codes: string[]; timestamp: string };
    };

    const decide = async (agentId: string) => {
      const res = await request(service, 'POST', '/api/v1/authorize', {
        apiKey,
        body: authorizeBody(agentId, '9.99', { merchant_name: `Daily paper ${randomBytes(2).toString('hex')}` }),
      });
      expect(res.status, res.text).toBe(200);
      return res.body as { decision: string; reason_codes: string[]; timestamp: string };
    };

    // The last seconds of the day before midnight (by the decisions' own timestamps).
    for (const agentId of [warm, rebuilt]) {
      const first = await decide(agentId);
      expect(first.decision, JSON.stringify(first)).toBe('APPROVE');
      const at = Date.parse(first.timestamp);
      if (at >= midnight) throw new Error(`the service started too late: ${first.timestamp} is after midnight`);
      expect(dateIn(tz, at)).toBe(before);
      const again = await decide(agentId);
      expect(again.decision, JSON.stringify(again)).toBe('DECLINE');
      expect(again.reason_codes).toContain('recurrence_period_used');
    }

    const ap2First = await present();
    expect(ap2First.decision, JSON.stringify(ap2First)).toBe('APPROVE');
    expect(dateIn(tz, Date.parse(ap2First.timestamp))).toBe(before);
    const ap2Again = await present();
    expect(ap2Again.decision, JSON.stringify(ap2Again)).toBe('DECLINE');
    expect(ap2Again.reason_codes).toContain('recurrence_period_used');

    const wait = midnight + AFTER_MS - started.serviceNow();
    expect(wait).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, wait));

    // The next local day: the warm actor's period moves on in memory; then every actor of the
    // Principal is rebuilt from the audit log (a thresholds change) before the other's decisions.
    for (const agentId of [warm, rebuilt]) {
      if (agentId === rebuilt) await thresholds(65_534);
      const next = await decide(agentId);
      expect(dateIn(tz, Date.parse(next.timestamp))).toBe(after);
      expect.soft(next.decision, `${agentId} ${JSON.stringify(next)}`).toBe('APPROVE');
      const again = await decide(agentId);
      expect.soft(again.decision).toBe('DECLINE');
      expect.soft(again.reason_codes).toContain('recurrence_period_used');
    }
    // The AP2 agent's actor was rebuilt too (the thresholds change reloads every actor).
    const ap2Next = await present();
    expect(dateIn(tz, Date.parse(ap2Next.timestamp))).toBe(after);
    expect.soft(ap2Next.decision, JSON.stringify(ap2Next)).toBe('APPROVE');
    const ap2Later = await present();
    expect.soft(ap2Later.decision).toBe('DECLINE');
    expect.soft(ap2Later.reason_codes).toContain('recurrence_period_used');
  });
});
