// The append-only security log: every operator, Client and Principal security action
// leaves exactly one record with who (actor kind and credential, never a raw key), what (action,
// target, changes without secrets), when and from where (the address the edge resolved through
// TRUSTED_PROXIES, and the request id); the operator pages through it newest first; the database
// refuses UPDATE, DELETE and TRUNCATE of it; an action whose record cannot be written does not
// happen.
// One server and one fixture for every kind of security action, so each action's record is
// checked in the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPrincipalRow } from '../fixtures/provision.js';
import { expectEnvelope, type HttpResult, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { sqlOn, type TestSql } from '../fixtures/test-db.js';

interface Entry {
  id: string;
  occurred_at: string;
  environment: 'live' | 'sandbox';
  actor: { kind: string; credential_id: string | null; client_id: string | null; principal_id: string | null };
  action: string;
  target: { type: string; id: string | null };
  changes: Record<string, unknown>;
  ip: string | null;
  request_id: string | null;
}

interface Expected {
  action: string;
  targetId: string | null;
  environment: 'live' | 'sandbox';
  actorKind: string;
  credentialId: string | null;
  ip: string;
  requestId: string;
}

let server: TestServer;
let live: TestSql;
let sandbox: TestSql;
const expected: Expected[] = [];
/** Every raw key and secret the test saw: none may appear in any record. */
const secrets: string[] = [];

// Each action comes "from" its own address through the trusted proxy (the test client).
let ipCounter = 1;
function nextIp(): string {
  return `203.0.113.${ipCounter++}`;
}

beforeAll(async () => {
  server = await startTestServer({ TRUSTED_PROXIES: '127.0.0.1/32' });
  live = sqlOn(server, 'live');
  sandbox = sqlOn(server, 'sandbox');
});
afterAll(async () => {
  await server?.close();
});

async function act(
  method: string,
  path: string,
  auth: { adminKey?: string; apiKey?: string },
  body: unknown,
  record: Omit<Expected, 'ip' | 'requestId'> | null,
): Promise<HttpResult> {
  const ip = nextIp();
  const res = await request(server, method, path, { ...auth, body, headers: { 'x-forwarded-for': ip } });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  const requestId = res.headers.get('x-request-id') as string;
  expect(requestId).toMatch(/^req_/);
  if (record !== null) expected.push({ ...record, ip, requestId });
  return res;
}

const admin = () => ({ adminKey: server.adminKey });

async function page(query: string): Promise<{ items: Entry[]; next_cursor: string | null }> {
  const res = await request<{ items: Entry[]; next_cursor: string | null }>(
    server,
    'GET',
    `/admin/v1/security-log${query}`,
    { adminKey: server.adminKey },
  );
  if (res.status !== 200) throw new Error(`security-log${query}: ${res.status} ${res.text}`);
  return res.body;
}

async function all(query: string, limit: number): Promise<Entry[]> {
  const out: Entry[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const sep = query === '' ? '?' : `${query}&`;
    const p = await page(`${sep}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
    expect(p.items.length).toBeLessThanOrEqual(limit);
    out.push(...p.items);
    if (p.next_cursor === null) return out;
    cursor = p.next_cursor;
  }
  throw new Error('paging did not end');
}

let clientId = '';
let clientLiveCredential = '';
let clientSandboxKey = '';
let clientSandboxCredential = '';
let principalId = '';
let principalKey = '';
let principalCredential = '';
let agentId = '';
let webhookId = '';

describe('security log: one record per action', () => {
  it('records operator actions: client creation, key issue, rotation, revocation', async () => {
    const created = await act('POST', '/admin/v1/clients', admin(), { name: 'Seclog Client' }, null);
    clientId = created.body.id as string;
    pushLast(created, 'client.created', clientId, 'live', 'operator', null);

    const liveKey = await act(
      'POST',
      `/admin/v1/clients/${clientId}/credentials`,
      admin(),
      { environment: 'live', scopes: 'principals' },
      null,
    );
    clientLiveCredential = (liveKey.body.credential as { id: string }).id;
    secrets.push(liveKey.body.api_key as string);
    pushLast(liveKey, 'credential.created', clientLiveCredential, 'live', 'operator', null);

    const sandboxKey = await act(
      'POST',
      `/admin/v1/clients/${clientId}/credentials`,
      admin(),
      { environment: 'sandbox' },
      null,
    );
    clientSandboxCredential = (sandboxKey.body.credential as { id: string }).id;
    clientSandboxKey = sandboxKey.body.api_key as string;
    secrets.push(clientSandboxKey);
    pushLast(sandboxKey, 'credential.created', clientSandboxCredential, 'sandbox', 'operator', null);

    principalId = await insertPrincipalRow(server, 'live', clientId);
    const pKey = await act(
      'POST',
      `/admin/v1/principals/${principalId}/credentials`,
      admin(),
      { environment: 'live' },
      null,
    );
    principalCredential = (pKey.body.credential as { id: string }).id;
    principalKey = pKey.body.api_key as string;
    secrets.push(principalKey);
    pushLast(pKey, 'credential.created', principalCredential, 'live', 'operator', null);

    const rotated = await act(
      'POST',
      `/admin/v1/credentials/${clientLiveCredential}/rotate`,
      admin(),
      { grace_seconds: 60 },
      null,
    );
    secrets.push(rotated.body.api_key as string);
    pushLast(rotated, 'credential.rotated', clientLiveCredential, 'live', 'operator', null);

    await act('POST', `/admin/v1/credentials/${clientLiveCredential}/revoke`, admin(), undefined, {
      action: 'credential.revoked',
      targetId: clientLiveCredential,
      environment: 'live',
      actorKind: 'operator',
      credentialId: null,
    });
  });

  it('records a sandbox Principal key issued by a Client', async () => {
    const sandboxPrincipal = await insertPrincipalRow(server, 'sandbox', clientId);
    const res = await act(
      'POST',
      `/api/v1/principals/${sandboxPrincipal}/sandbox-key`,
      { apiKey: clientSandboxKey },
      undefined,
      null,
    );
    secrets.push(res.body.api_key as string);
    const [row] = await sandbox<{ id: string }[]>`
      select id from credentials where principal_id = ${sandboxPrincipal}`;
    pushLast(res, 'credential.created', (row as { id: string }).id, 'sandbox', 'client', clientSandboxCredential);
  });

  it('records agent suspension, reactivation and revocation by the Principal', async () => {
    const agent = await act(
      'POST',
      '/api/v1/agents',
      { apiKey: principalKey },
      { display_name: 'Seclog agent', capabilities: ['PURCHASE'] },
      null,
    );
    agentId = agent.body.id as string;
    for (const [status, action] of [
      ['SUSPENDED', 'agent.suspended'],
      ['ACTIVE', 'agent.reactivated'],
      ['REVOKED', 'agent.revoked'],
    ] as const) {
      await act(
        'PATCH',
        `/api/v1/agents/${agentId}/status`,
        { apiKey: principalKey },
        { status, reason: `test ${status}` },
        { action, targetId: agentId, environment: 'live', actorKind: 'principal', credentialId: principalCredential },
      );
    }
    // A refused change (REVOKED is final) leaves no record.
    const refused = await request(server, 'PATCH', `/api/v1/agents/${agentId}/status`, {
      apiKey: principalKey,
      body: { status: 'ACTIVE', reason: 'undo' },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
  });

  it('records threshold changes and resets', async () => {
    const who = { environment: 'live', actorKind: 'principal', credentialId: principalCredential } as const;
    await act(
      'PUT',
      '/api/v1/thresholds',
      { apiKey: principalKey },
      { risk_velocity_max_count: 7 },
      { action: 'thresholds.updated', targetId: principalId, ...who },
    );
    await act('DELETE', '/api/v1/thresholds', { apiKey: principalKey }, undefined, {
      action: 'thresholds.reset',
      targetId: principalId,
      ...who,
    });
  });

  it('records webhook creation, update, disabling, re-enabling and deletion, never the secret', async () => {
    const who = { environment: 'live', actorKind: 'principal', credentialId: principalCredential } as const;
    const created = await act(
      'POST',
      '/api/v1/webhooks',
      { apiKey: principalKey },
      { url: 'https://example.com/hook', event_types: ['*'] },
      null,
    );
    webhookId = (created.body.webhook as { id: string }).id;
    secrets.push(created.body.signing_secret as string);
    pushLast(created, 'webhook.created', webhookId, 'live', 'principal', principalCredential);
    const path = `/api/v1/webhooks/${webhookId}`;
    const key = { apiKey: principalKey };
    await act(
      'PATCH',
      path,
      key,
      { description: 'renamed' },
      { action: 'webhook.updated', targetId: webhookId, ...who },
    );
    await act('PATCH', path, key, { active: false }, { action: 'webhook.disabled', targetId: webhookId, ...who });
    await act('PATCH', path, key, { active: true }, { action: 'webhook.reenabled', targetId: webhookId, ...who });
    await act('DELETE', path, key, undefined, { action: 'webhook.deleted', targetId: webhookId, ...who });
  });

  it('records a rejected admin key, once per source address per minute', async () => {
    const ip = nextIp();
    for (let i = 0; i < 3; i++) {
      const res = await request(server, 'GET', '/admin/v1/security-log', {
        adminKey: 'not-the-admin-key-at-all',
        headers: { 'x-forwarded-for': ip },
      });
      expectEnvelope(res, 403, 'forbidden');
      if (i === 0) {
        expected.push({
          action: 'admin_key.rejected',
          targetId: null,
          environment: 'live',
          actorKind: 'anonymous',
          credentialId: null,
          ip,
          requestId: res.headers.get('x-request-id') as string,
        });
      }
    }
    // The record is written after the 403 (not awaited): wait until it is there.
    for (let i = 0; i < 100; i++) {
      const rows = await live`select 1 from security_log where action = 'admin_key.rejected'`;
      if (rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  it('holds exactly the expected records, newest first, across pages of both databases', async () => {
    const entries = await all('', 4);
    const want = [...expected].reverse();
    expect(entries.map((e) => [e.action, e.target.id])).toEqual(want.map((w) => [w.action, w.targetId]));
    for (const [i, e] of entries.entries()) {
      const w = want[i] as Expected;
      expect(e.environment).toBe(w.environment);
      expect(e.actor.kind).toBe(w.actorKind);
      expect(e.actor.credential_id).toBe(w.credentialId);
      expect(e.ip).toBe(w.ip);
      expect(e.request_id).toBe(w.requestId);
      expect(e.id).toMatch(/^sec_/);
      expect(Date.parse(e.occurred_at)).toBeGreaterThan(Date.now() - 600_000);
      if (e.actor.kind === 'principal') expect(e.actor.principal_id).toBe(principalId);
      if (e.actor.kind === 'client') expect(e.actor.client_id).toBe(clientId);
    }
    // Newest first, and one page size does not change the sequence.
    const sorted = [...entries].sort((a, b) => Date.parse(b.occurred_at) - Date.parse(a.occurred_at));
    expect(entries.map((e) => e.occurred_at)).toEqual(sorted.map((e) => e.occurred_at));
    expect((await all('', 200)).map((e) => e.id)).toEqual(entries.map((e) => e.id));
    // No raw key, secret or key hash anywhere in the log.
    const text =
      JSON.stringify(await live`select * from security_log`) +
      JSON.stringify(await sandbox`select * from security_log`);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).not.toMatch(/mdt_(live|test)_|whsec_/);
  });

  it('records what changed', async () => {
    const [rotation] = (await page('?action=credential.rotated')).items;
    expect(rotation?.changes).toMatchObject({ grace_seconds: 60 });
    const [status] = (await page('?action=agent.revoked')).items;
    expect(status?.changes).toEqual({ from: 'ACTIVE', to: 'REVOKED', reason: 'test REVOKED' });
    const [thresholds] = (await page('?action=thresholds.updated')).items;
    expect(thresholds?.changes).toMatchObject({ fields_changed: ['risk_velocity_max_count'] });
    const [key] = (await page(`?action=credential.created&actor=${clientSandboxCredential}`)).items;
    expect(key?.changes).toMatchObject({ via: 'sandbox-key', environment: 'sandbox' });
  });

  it('filters by environment, action, actor and time', async () => {
    const sandboxOnly = await all('?environment=sandbox', 2);
    expect(sandboxOnly.map((e) => e.action)).toEqual(['credential.created', 'credential.created']);
    expect(sandboxOnly.every((e) => e.environment === 'sandbox')).toBe(true);
    expect((await all('?action=credential.created', 2)).length).toBe(4);
    const byPrincipalKey = await all(`?actor=${principalCredential}`, 3);
    expect(byPrincipalKey.length).toBe(expected.filter((e) => e.credentialId === principalCredential).length);
    expect((await all(`?actor=${principalId}`, 50)).length).toBe(byPrincipalKey.length);
    expect((await all('?actor=operator', 50)).length).toBe(expected.filter((e) => e.actorKind === 'operator').length);
    const everything = await all('', 200);
    const middle = everything[Math.floor(everything.length / 2)] as Entry;
    const since = await all(`?since=${encodeURIComponent(middle.occurred_at)}`, 200);
    expect(since.length).toBeGreaterThan(0);
    expect(since.every((e) => e.occurred_at >= middle.occurred_at)).toBe(true);
    const until = await all(`?until=${encodeURIComponent(middle.occurred_at)}`, 200);
    expect(until.every((e) => e.occurred_at < middle.occurred_at)).toBe(true);
    expect(since.length + until.length).toBeGreaterThanOrEqual(everything.length - 1);
  });

  it('refuses bad queries with 422 in the envelope, and the wrong plane with 403', async () => {
    for (const q of [
      '?cursor=bm90IGEgY3Vyc29y',
      '?action=credential.stolen',
      '?environment=prod',
      '?limit=0',
      '?since=yesterday',
      '?actor=acr_%00',
    ]) {
      const res = await request(server, 'GET', `/admin/v1/security-log${q}`, { adminKey: server.adminKey });
      expect(res.status, q).toBeGreaterThanOrEqual(400);
      expect(res.status, q).toBeLessThan(500);
      expectEnvelope(res, res.status);
    }
    // An API key on the operator plane is a rejected admin attempt too (and is recorded).
    const wrongPlane = await request(server, 'GET', '/admin/v1/security-log', { apiKey: principalKey });
    expectEnvelope(wrongPlane, 403, 'forbidden');
    expected.push({
      action: 'admin_key.rejected',
      targetId: null,
      environment: 'live',
      actorKind: 'anonymous',
      credentialId: null,
      ip: '127.0.0.1',
      requestId: wrongPlane.headers.get('x-request-id') as string,
    });
  });
});

describe('security log: append-only and atomic', () => {
  it('the database refuses UPDATE, DELETE and TRUNCATE of the log, in both databases', async () => {
    for (const sql of [live, sandbox]) {
      await expect(sql`update security_log set action = 'nothing'`).rejects.toThrow(/append-only/);
      await expect(sql`delete from security_log`).rejects.toThrow(/append-only/);
      await expect(sql`truncate security_log`).rejects.toThrow(/append-only/);
    }
    // (The last rejected admin key's record is written after its 403: allow it a moment.)
    const want = expected.filter((e) => e.environment === 'live').length;
    let n = 0;
    for (let i = 0; i < 100 && n !== want; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 20));
      const [count] = await live<{ n: string }[]>`select count(*)::text as n from security_log`;
      n = Number(count?.n);
    }
    expect(n).toBe(want);
  });

  it('an action whose record cannot be written does not happen', async () => {
    const spare = await request(server, 'POST', `/admin/v1/principals/${principalId}/credentials`, {
      adminKey: server.adminKey,
      body: { environment: 'live' },
    });
    expect(spare.status).toBe(201);
    const spareId = (spare.body.credential as { id: string }).id;
    const credentialState = async () =>
      (
        await live<
          { status: string; key_hash: Buffer }[]
        >`select status, key_hash from credentials where id = ${spareId}`
      )[0];
    const spareBefore = await credentialState();
    // Make every insert into the log fail, as a full disk or a broken table would.
    await live.unsafe(`
      create function refuse_security_log() returns trigger language plpgsql as $$
      begin raise exception 'security log unavailable'; end $$;
      create trigger refuse_security_log before insert on security_log
        for each row execute function refuse_security_log();`);
    try {
      const before = await live`select id from webhooks`;
      const hook = await request(server, 'POST', '/api/v1/webhooks', {
        apiKey: principalKey,
        body: { url: 'https://example.com/never', event_types: ['*'] },
      });
      expect(hook.status).toBeGreaterThanOrEqual(500);
      expect((await live`select id from webhooks`).length).toBe(before.length);

      const agent = await request(server, 'POST', '/api/v1/agents', {
        apiKey: principalKey,
        body: { display_name: 'Atomic agent', capabilities: ['PURCHASE'] },
      });
      expect(agent.status).toBe(201);
      const suspend = await request(server, 'PATCH', `/api/v1/agents/${agent.body.id as string}/status`, {
        apiKey: principalKey,
        body: { status: 'SUSPENDED', reason: 'no record, no change' },
      });
      expect(suspend.status).toBeGreaterThanOrEqual(500);
      const [row] = await live<{ status: string }[]>`select status from agents where id = ${agent.body.id as string}`;
      expect(row?.status).toBe('ACTIVE');

      const keys = await live`select id from credentials`;
      const issue = await request(server, 'POST', `/admin/v1/principals/${principalId}/credentials`, {
        adminKey: server.adminKey,
        body: { environment: 'live' },
      });
      expect(issue.status).toBeGreaterThanOrEqual(500);
      expect((await live`select id from credentials`).length).toBe(keys.length);

      const clients = await sandbox`select id from clients`;
      const client = await request(server, 'POST', '/admin/v1/clients', {
        adminKey: server.adminKey,
        body: { name: 'never' },
      });
      expect(client.status).toBeGreaterThanOrEqual(500);
      expect((await sandbox`select id from clients`).length).toBe(clients.length);

      const rotate = await request(server, 'POST', `/admin/v1/credentials/${spareId}/rotate`, {
        adminKey: server.adminKey,
        body: {},
      });
      expect(rotate.status).toBeGreaterThanOrEqual(500);
      const revoke = await request(server, 'POST', `/admin/v1/credentials/${spareId}/revoke`, {
        adminKey: server.adminKey,
      });
      expect(revoke.status).toBeGreaterThanOrEqual(500);
      const spareAfter = await credentialState();
      expect(spareAfter?.status).toBe('active');
      expect(spareAfter?.key_hash.equals(spareBefore?.key_hash as Buffer)).toBe(true);
    } finally {
      await live.unsafe(`drop trigger refuse_security_log on security_log; drop function refuse_security_log();`);
    }
  });
});

describe('security log: text PostgreSQL cannot store in jsonb', () => {
  it('an unpaired surrogate in a recorded field never turns the action into a 5xx', async () => {
    const agent = await request(server, 'POST', '/api/v1/agents', {
      apiKey: principalKey,
      body: { display_name: 'Surrogate agent', capabilities: ['PURCHASE'] },
    });
    expect(agent.status).toBe(201);
    const id = agent.body.id as string;
    // Sent as raw JSON text: the escapes reach the service as lone UTF-16 surrogates.
    const res = await request(server, 'PATCH', `/api/v1/agents/${id}/status`, {
      apiKey: principalKey,
      raw: '{"status":"SUSPENDED","reason":"odd \\udfff\\ud800 text"}',
      headers: { 'content-type': 'application/json' },
    });
    const records = await live<{ changes: { reason: string } }[]>`
      select changes from security_log where target_id = ${id} and action = 'agent.suspended'`;
    if (res.status === 200) {
      // Accepted: the record holds the text as a text column would (U+FFFD for each).
      expect(records.map((r) => r.changes.reason)).toEqual(['odd \uFFFD\uFFFD text']);
    } else {
      // Refused at the edge: a 4xx in the envelope, and no record of an action that did not happen.
      expectEnvelope(res, res.status);
      expect(res.status).toBeLessThan(500);
      expect(records).toEqual([]);
    }
  });
});

function pushLast(
  res: HttpResult,
  action: string,
  targetId: string,
  environment: 'live' | 'sandbox',
  actorKind: string,
  credentialId: string | null,
): void {
  expected.push({
    action,
    targetId,
    environment,
    actorKind,
    credentialId,
    ip: `203.0.113.${ipCounter - 1}`,
    requestId: res.headers.get('x-request-id') as string,
  });
}
