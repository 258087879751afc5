// A webhook retry that is pending when the service stops is not lost: the next process on the
// same database resumes it, with the same event_id and body, and records the outcome.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { envelope, insertOutbox } from '../fixtures/outbox.js';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { PG_BASE_URL, request, TEST_POOLS } from '../fixtures/server.js';
import { startReceiver } from '../fixtures/webhook-receiver.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { startApp } = (await import(`${DIST}app/app.js`)) as typeof import('../../src/app/app.js');
const { loadConfig } = (await import(`${DIST}config/config.js`)) as typeof import('../../src/config/config.js');

const dataDir = mkdtempSync(join(tmpdir(), 'asas-retry-'));
const dbName = `t_${randomBytes(6).toString('hex')}`;
const adminKey = `admin_${randomBytes(16).toString('hex')}`;
const env = {
  PORT: '0',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  WORKERS: '1',
  ...TEST_POOLS,
  ADMIN_KEY: adminKey,
  DATABASE_URL: `${PG_BASE_URL}/${dbName}`,
  WEBHOOK_URL_POLICY: 'any',
  // The retry comes due while the first process is already gone.
  WEBHOOK_RETRY_SCHEDULE_MS: '2000',
  WEBHOOK_TIMEOUT_MS: '1000',
};

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  const sql = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  try {
    for (const n of [dbName, `${dbName}_sandbox`]) await sql.unsafe(`drop database if exists "${n}" with (force)`);
  } finally {
    await sql.end({ timeout: 5 });
  }
});

describe('webhook retries across a restart', () => {
  it('a retry pending at shutdown is delivered by the next process, same event_id and body', async () => {
    const receiver = await startReceiver((_req, index) => (index === 0 ? 503 : 200));
    const first = await startApp(loadConfig(env));
    let key: string;
    let webhookId: string;
    const event = envelope('gate.fired', {
      agent_id: 'agt_restart',
      authorization_id: 'auth_restart',
      gate: 'mandate_exceeded',
      decision: 'DECLINE',
      amount: '12.50',
      currency: 'USD',
      merchant: 'Shop',
      trust_score: 0.8,
      risk_score: 0.1,
    });
    try {
      const target = { url: first.url, adminKey };
      const client = await provisionClient(target);
      const prn = await insertPrincipalRow(
        { dbUrls: first.services.dbs.urls },
        'live',
        client.clientId,
        client.programId,
      );
      key = (await issuePrincipalKey(target, prn, 'live')).apiKey;
      const created = await request(first, 'POST', '/api/v1/webhooks', {
        apiKey: key,
        body: { url: `${receiver.url}/hook`, event_types: ['gate.fired'] },
      });
      expect(created.status).toBe(201);
      webhookId = (created.body.webhook as { id: string }).id;
      await insertOutbox(first.services.dbs.urls.live, client.clientId, prn, [event]);
      // The first attempt fails; its retry is scheduled 2 s later.
      await receiver.waitFor(1, 10_000);
    } finally {
      await first.close();
    }
    expect(receiver.requests).toHaveLength(1);

    const second = await startApp(loadConfig(env));
    try {
      const [failed, retried] = await receiver.waitFor(2, 15_000);
      expect(retried?.body).toBe(failed?.body);
      expect(JSON.parse(retried?.body as string).event_id).toBe(event.event_id);
      expect(retried?.headers['webhook-id']).toBe(failed?.headers['webhook-id']);
      // The second process recorded the success.
      let hook: Record<string, unknown> = {};
      for (let i = 0; i < 50; i++) {
        hook = (await request(second, 'GET', `/api/v1/webhooks/${webhookId}`, { apiKey: key })).body;
        if (hook.last_status_code === 200) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(hook.last_status_code).toBe(200);
      expect(hook.consecutive_failures).toBe(0);
    } finally {
      await second.close();
      await receiver.close();
    }
    expect(receiver.requests).toHaveLength(2);
  });
});
