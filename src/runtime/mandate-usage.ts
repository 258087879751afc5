// The `usage` of GET /api/v1/mandates/{mandate_id} (docs/holds.md "Usage"): for each cap the
// mandate has, in the current calendar window of the Principal's time zone (the whole life for
// max_total_amount), what is used (captured holds and automatic approvals, less what releases,
// expiries, partial captures and refunds gave back), what is held (open holds) and what remains.
// Read from PostgreSQL, the truth the agent's actor is rebuilt from: three aggregate queries on
// the mandate's rows.

import { windowsOf } from '../decision/model/calendar.js';
import { fromDb, toJsonNumber, type Units } from '../domain/money.js';
import type { Db as Sql } from '../onboarding/idempotency.js';
import type { PrincipalRow } from '../storage/rows/principals.js';
import type { RuntimeMandateRow } from './mandate-store.js';

type Window = 'day' | 'week' | 'month' | 'year' | 'total';

const CAPS: readonly { name: keyof RuntimeMandateRow; window: Window; kind: 'amount' | 'count' }[] = [
  { name: 'max_daily_amount', window: 'day', kind: 'amount' },
  { name: 'max_weekly_amount', window: 'week', kind: 'amount' },
  { name: 'max_monthly_amount', window: 'month', kind: 'amount' },
  { name: 'max_yearly_amount', window: 'year', kind: 'amount' },
  { name: 'max_total_amount', window: 'total', kind: 'amount' },
  { name: 'max_daily_count', window: 'day', kind: 'count' },
  { name: 'max_monthly_count', window: 'month', kind: 'count' },
];

interface Sums {
  day: string;
  day_n: number;
  week: string;
  week_n: number;
  month: string;
  month_n: number;
  year: string;
  year_n: number;
  total: string;
  total_n: number;
}

const ZERO: Sums = {
  day: '0',
  day_n: 0,
  week: '0',
  week_n: 0,
  month: '0',
  month_n: 0,
  year: '0',
  year_n: 0,
  total: '0',
  total_n: 0,
};

export async function mandateUsage(db: Sql, m: RuntimeMandateRow): Promise<Record<string, Record<string, unknown>>> {
  const caps = CAPS.filter((c) => m[c.name] !== null && m[c.name] !== undefined);
  if (caps.length === 0) return {};
  const [tzRow] = await db<
    Pick<PrincipalRow, 'timezone'>[]
  >`select timezone from principals where id = ${m.principal_id}`;
  const w = windowsOf(tzRow?.timezone ?? 'UTC', Date.now());
  const at = (col: string) => db`
    coalesce(sum(amt) filter (where ${db(col)} >= ${new Date(w.day)}), 0)::text as day,
    coalesce(sum(n) filter (where ${db(col)} >= ${new Date(w.day)}), 0)::int as day_n,
    coalesce(sum(amt) filter (where ${db(col)} >= ${new Date(w.week)}), 0)::text as week,
    coalesce(sum(n) filter (where ${db(col)} >= ${new Date(w.week)}), 0)::int as week_n,
    coalesce(sum(amt) filter (where ${db(col)} >= ${new Date(w.month)}), 0)::text as month,
    coalesce(sum(n) filter (where ${db(col)} >= ${new Date(w.month)}), 0)::int as month_n,
    coalesce(sum(amt) filter (where ${db(col)} >= ${new Date(w.year)}), 0)::text as year,
    coalesce(sum(n) filter (where ${db(col)} >= ${new Date(w.year)}), 0)::int as year_n,
    coalesce(sum(amt), 0)::text as total, coalesce(sum(n), 0)::int as total_n`;
  const [approved] = await db<Sums[]>`
    select ${at('created_at')} from (select amount as amt, 1 as n, created_at from authorizations
      where agent_id = ${m.agent_id} and mandate_id = ${m.id} and decision = 'APPROVE') x`;
  const [credited] = await db<Sums[]>`
    select ${at('authorized_at')} from (select amount as amt, count_back as n, authorized_at from budget_credits
      where agent_id = ${m.agent_id} and mandate_id = ${m.id}) x`;
  const [held] = await db<Sums[]>`
    select ${at('authorized_at')} from (select amount as amt, 1 as n, authorized_at from holds
      where agent_id = ${m.agent_id} and mandate_id = ${m.id} and status = 'HELD') x`;
  const a = approved ?? ZERO;
  const c = credited ?? ZERO;
  const h = held ?? ZERO;
  const starts: Record<Window, number | null> = { day: w.day, week: w.week, month: w.month, year: w.year, total: null };
  const out: Record<string, Record<string, unknown>> = {};
  for (const cap of caps) {
    const key = cap.window;
    const nKey = `${key}_n` as keyof Sums;
    const value = (s: Sums): Units =>
      cap.kind === 'amount' ? (fromDb(s[key] as string) ?? 0n) : BigInt(s[nKey] as number);
    const limit = cap.kind === 'amount' ? (fromDb(m[cap.name] as string) ?? 0n) : BigInt(m[cap.name] as number);
    const heldNow = value(h);
    const used = value(a) - value(c) - heldNow;
    const left = limit - used - heldNow;
    const show = (u: Units) => (cap.kind === 'amount' ? toJsonNumber(u) : Number(u));
    out[cap.name] = {
      window: key,
      window_start: starts[key] === null ? null : new Date(starts[key] as number).toISOString(),
      limit: show(limit),
      used: show(used),
      held: show(heldNow),
      remaining: show(left > 0n ? left : 0n),
    };
  }
  return out;
}
