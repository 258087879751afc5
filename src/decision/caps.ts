// The caps of a mandate beyond the per-transaction limit (docs/holds.md "Limits"): amounts per
// calendar day, week, month and year in the Principal's time zone and over the mandate's whole
// life, and counts per day and month. Each cap emits budget.threshold_reached once its usage
// reaches the mandate's budget_alert_share of it, and budget.exhausted once it is used up or a
// request is declined for it, each at most once per window (the `alerted` bits of the mandate,
// cleared when the window moves, and set at load for what was already reached).
import { formatAmount, type Units } from '../domain/money.js';
import type { MandateState } from './agent-state.js';
import { isoOf } from './model/calendar.js';
import type { AuthorizeRequest } from './model/contract.js';
import type { Work } from './work.js';

export type CapWindow = 'day' | 'week' | 'month' | 'year' | 'total';

/**
 * Whether a request may be decided under mandate `m` (as selectMandate picks): a presentation
 * (`mandateId`, POST /authorize/ap2) only under the mandate it names; any other request never
 * under a presentation-only mandate (an imported AP2 open mandate is spent only by presenting a
 * closed one), so such a mandate gives an ordinary request no room: no cap, no coverage.
 */
export function spendableBy(m: MandateState, mandateId: string | undefined): boolean {
  return mandateId !== undefined ? m.id === mandateId : m.terms?.presentationOnly !== true;
}

export interface Cap {
  readonly name: string;
  readonly window: CapWindow;
  readonly kind: 'amount' | 'count';
  /** The decline reason when a request would go over the cap. */
  readonly reason: string;
  limit(m: MandateState): bigint | null;
  used(m: MandateState): bigint;
  start(m: MandateState): number | null;
}

const amountCap = (
  name: string,
  window: CapWindow,
  reason: string,
  limit: (m: MandateState) => Units | null,
  used: (m: MandateState) => Units,
  start: (m: MandateState) => number | null,
): Cap => ({ name, window, kind: 'amount', reason, limit, used, start });

const countCap = (
  name: string,
  window: CapWindow,
  reason: string,
  limit: (m: MandateState) => number | null,
  used: (m: MandateState) => number,
  start: (m: MandateState) => number | null,
): Cap => ({
  name,
  window,
  kind: 'count',
  reason,
  limit: (m) => {
    const l = limit(m);
    return l === null ? null : BigInt(l);
  },
  used: (m) => BigInt(used(m)),
  start,
});

export const CAPS: readonly Cap[] = [
  amountCap(
    'max_daily_amount',
    'day',
    'daily_limit_exceeded',
    (m) => m.daily,
    (m) => m.dayAmount,
    (m) => m.dayKey,
  ),
  amountCap(
    'max_weekly_amount',
    'week',
    'weekly_limit_exceeded',
    (m) => m.weekly,
    (m) => m.weekAmount,
    (m) => m.weekKey,
  ),
  amountCap(
    'max_monthly_amount',
    'month',
    'monthly_limit_exceeded',
    (m) => m.monthly,
    (m) => m.monthAmount,
    (m) => m.monthKey,
  ),
  amountCap(
    'max_yearly_amount',
    'year',
    'yearly_limit_exceeded',
    (m) => m.yearly,
    (m) => m.yearAmount,
    (m) => m.yearKey,
  ),
  amountCap(
    'max_total_amount',
    'total',
    'total_limit_exceeded',
    (m) => m.total,
    (m) => m.totalAmount,
    () => null,
  ),
  countCap(
    'max_daily_count',
    'day',
    'daily_count_exceeded',
    (m) => m.dailyCount,
    (m) => m.dayCount,
    (m) => m.dayKey,
  ),
  countCap(
    'max_monthly_count',
    'month',
    'monthly_count_exceeded',
    (m) => m.monthlyCount,
    (m) => m.monthCount,
    (m) => m.monthKey,
  ),
];

/** Bit of cap i's threshold alert; the exhausted alert is the next bit. */
const thresholdBit = (i: number) => 1 << (2 * i);
const exhaustedBit = (i: number) => 1 << (2 * i + 1);

function alertsOf(window: CapWindow): number {
  let bits = 0;
  CAPS.forEach((c, i) => {
    if (c.window === window) bits |= thresholdBit(i) | exhaustedBit(i);
  });
  return bits;
}

export const DAY_ALERTS = alertsOf('day');
export const WEEK_ALERTS = alertsOf('week');
export const MONTH_ALERTS = alertsOf('month');
export const YEAR_ALERTS = alertsOf('year');

const SHARE_ONE = 100_000_000n;

function reached(used: bigint, limit: bigint, share: Units): boolean {
  return used * SHARE_ONE >= limit * share;
}

/** At load: the alerts the current usage has already earned count as sent (no repeat after a reload). */
export function markReached(m: MandateState): void {
  CAPS.forEach((c, i) => {
    const limit = c.limit(m);
    if (limit === null) return;
    const used = c.used(m);
    if (reached(used, limit, m.alertShare)) m.alerted |= thresholdBit(i);
    if (used >= limit) m.alerted |= exhaustedBit(i);
  });
}

function text(c: Cap, v: bigint): string | number {
  return c.kind === 'amount' ? formatAmount(v, 0) : Number(v);
}

/**
 * The budget events of a decision, once its totals are recorded (record.ts): an APPROVE (a hold
 * included) that brings a cap to its alert share or uses it up, or a DECLINE for a cap.
 */
export function budgetEvents(agentId: string, req: AuthorizeRequest, w: Work): void {
  const m = w.mandate;
  if (m === null) return;
  const declinedFor = w.decision === 'DECLINE' ? w.reasons : null;
  CAPS.forEach((c, i) => {
    const limit = c.limit(m);
    if (limit === null) return;
    const used = c.used(m);
    const base = () => ({
      agent_id: agentId,
      mandate_id: m.id,
      authorization_id: w.authorizationId,
      cap: c.name,
      window: c.window,
      window_start: c.start(m) === null ? null : isoOf(c.start(m) as number),
      limit: text(c, limit),
      used: text(c, used),
      remaining: text(c, limit > used ? limit - used : 0n),
      currency: c.kind === 'amount' ? m.currency : null,
    });
    if (declinedFor !== null) {
      if ((declinedFor as readonly string[]).includes(c.reason) && (m.alerted & exhaustedBit(i)) === 0) {
        m.alerted |= exhaustedBit(i);
        w.events.push({ eventType: 'budget.exhausted', data: { ...base(), declined_amount: req.amount } });
      }
      return;
    }
    if (w.decision !== 'APPROVE') return;
    if ((m.alerted & thresholdBit(i)) === 0 && reached(used, limit, m.alertShare)) {
      m.alerted |= thresholdBit(i);
      w.events.push({
        eventType: 'budget.threshold_reached',
        data: { ...base(), share: Number(m.alertShare) / 1e8 },
      });
    }
    if ((m.alerted & exhaustedBit(i)) === 0 && used >= limit) {
      m.alerted |= exhaustedBit(i);
      w.events.push({ eventType: 'budget.exhausted', data: { ...base(), declined_amount: null } });
    }
  });
}
