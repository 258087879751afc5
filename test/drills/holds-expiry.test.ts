// Hold expiry survives a restart (docs/holds.md "Expiry"): holds are rows in PostgreSQL, so a
// hold that falls due while no instance runs is expired by the first sweep of the next one,
// its budget comes back and authorization.expired is recorded once. A capture racing the expiry
// has exactly one winner. Two in-process services on one database, one after the other.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { authorizeBody, relaxRateGates } from '../fixtures/engine-setup.js';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { PG_BASE_URL, request, TEST_POOLS } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { startApp } = (await import(`${DIST}app/app.js`)) as typeof import('../../dist/src/app/app.js');
const { loadConfig } = (await import(`${DIST}config/config.js`)) as typeof import('../../dist/src/config/config.js');

const name = `t_${randomBytes(6).toString('hex')}`;
const adminKey = `admin_${randomBytes(16).toString('hex')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'asas-holds-'));

function start() {
  return startApp(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_KEY: adminKey,
      DATA_DIR: dataDir,
      DATABASE_URL: `${PG_BASE_URL}/${name}`,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      WORKERS: '2',
      ...TEST_POOLS,
      RATE_LIMIT_REQUESTS_PER_SECOND: '0',
      RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '0',
      HOLD_EXPIRY_SWEEP_MS: '200',
    }),
  );
}

const db = postgres(`${PG_BASE_URL}/${name}`, { max: 1, onnotice: () => {}, connect_timeout: 5 });

afterAll(async () => {
  await db.end({ timeout: 5 });
  rmSync(dataDir, { recursive: true, force: true });
  const admin = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  for (const n of [name, `${name}_sandbox`]) await admin.unsafe(`drop database if exists "${n}" with (force)`);
  await admin.end({ timeout: 5 });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | null>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('hold expiry', () => {
  it('expires a hold that fell due while no instance ran, once, and gives its budget back', async () => {
    let app = await start();
    const target = { url: app.url, adminKey };
    const client = await provisionClient(target);
    const principalId = await insertPrincipalRow(
      { dbUrls: app.services.dbs.urls },
      'live',
      client.clientId,
      client.programId,
    );
    const { apiKey } = await issuePrincipalKey(target, principalId, 'live');
    await relaxRateGates(target, apiKey);
    const agent = await request(target, 'POST', '/api/v1/agents', {
      apiKey,
      body: { display_name: 'Shopping agent', capabilities: ['PURCHASE'] },
    });
    const agentId = agent.body.id as string;
    const mandate = await request(target, 'POST', '/api/v1/mandates', {
      apiKey,
      body: {
        agent_id: agentId,
        valid_until: new Date(Date.now() + 86_400_000).toISOString(),
        max_amount_per_transaction: '20.00',
        max_daily_amount: '20.00',
        currency: 'USD',
        hold_expiry_seconds: 2,
      },
    });
    expect(mandate.status, mandate.text).toBe(201);
    const decide = async (amount: string, manual = false) => {
      const res = await request(app, 'POST', '/api/v1/authorize', {
        apiKey,
        body: authorizeBody(agentId, { amount, ...(manual ? { capture_method: 'manual' } : {}) }),
      });
      expect(res.status).toBe(200);
      return res.body;
    };
    const a = await decide('10.00', true);
    const b = await decide('10.00', true);
    expect([a.status, b.status]).toEqual(['HELD', 'HELD']);
    expect((await decide('0.01')).reason_codes).toContain('daily_limit_exceeded');
    const cap = await request(app, 'POST', `/api/v1/authorizations/${a.authorization_id}/capture`, {
      apiKey,
      body: { amount: '5' },
    });
    expect(cap.status, cap.text).toBe(200);

    // Stop, let hold b fall due with no instance running, start again on the same database.
    await app.close();
    await sleep(2_500);
    const [due] = await db<
      { status: string }[]
    >`select status from holds where authorization_id = ${b.authorization_id as string}`;
    expect(due?.status).toBe('HELD');
    app = await start();
    await until('the expiry', async () => {
      const [r] = await db<{ status: string }[]>`
        select status from holds where authorization_id = ${b.authorization_id as string}`;
      return r?.status === 'EXPIRED' ? r : null;
    });
    const expired = await db<{ data: Record<string, unknown> }[]>`
      select payload->'data' as data from outbox_events
      where event_type = 'authorization.expired' and authorization_id = ${b.authorization_id as string}`;
    expect(expired).toHaveLength(1);
    expect(expired[0]?.data).toMatchObject({ status: 'EXPIRED', released_amount: '10', agent_id: agentId });
    const late = await request(app, 'POST', `/api/v1/authorizations/${b.authorization_id}/capture`, {
      apiKey,
      body: {},
    });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('hold_not_active');
    // 5 captured of a, b expired: 15.00 is free again, exactly.
    expect((await decide('10.00')).decision).toBe('APPROVE');
    expect((await decide('5.00')).decision).toBe('APPROVE');
    expect((await decide('0.01')).reason_codes).toContain('daily_limit_exceeded');

    // A capture racing the expiry: each hold ends CAPTURED or EXPIRED, with exactly one event.
    const m2 = await request(app, 'POST', '/api/v1/mandates', {
      apiKey,
      body: {
        agent_id: agentId,
        valid_until: new Date(Date.now() + 86_400_000).toISOString(),
        max_amount_per_transaction: '20.00',
        max_monthly_amount: '1000.00',
        currency: 'EUR',
        hold_expiry_seconds: 1,
      },
    });
    expect(m2.status, m2.text).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await request(app, 'POST', '/api/v1/authorize', {
        apiKey,
        body: authorizeBody(agentId, { amount: '1.00', currency: 'EUR', capture_method: 'manual' }),
      });
      expect(res.body.status, res.text).toBe('HELD');
      ids.push(res.body.authorization_id as string);
    }
    await sleep(800);
    const captures = await Promise.all(
      ids.map(async (id, i) => {
        await sleep(i * 40);
        return request(app, 'POST', `/api/v1/authorizations/${id}/capture`, { apiKey, body: {} });
      }),
    );
    await until('every hold settled', async () => {
      const [r] = await db<{ n: number }[]>`
        select count(*)::int as n from holds where authorization_id in ${db(ids)} and status = 'HELD'`;
      return r?.n === 0 ? r : null;
    });
    const rows = await db<{ authorization_id: string; status: string; events: number }[]>`
      select h.authorization_id, h.status,
        (select count(*)::int from outbox_events e where e.authorization_id = h.authorization_id
           and e.event_type in ('authorization.captured', 'authorization.expired')) as events
      from holds h where h.authorization_id in ${db(ids)}`;
    for (const r of rows) {
      const res = captures[ids.indexOf(r.authorization_id)];
      expect(r.events).toBe(1);
      if (r.status === 'CAPTURED') expect(res?.status).toBe(200);
      else {
        expect(r.status).toBe('EXPIRED');
        expect(res?.status).toBe(409);
      }
    }
    await app.close();
  });
});
