// The step-up's link and one-time code reach the person through the Principal's own channel
// (docs/step-up-confirmation.md): an e-mail, sent with nodemailer to a real SMTP server started
// here, to the address the Principal registered with its own credential. The Client's events
// (the stored outbox, NATS on the PostgreSQL run, the webhook bodies) and every table of the
// service carry neither the code nor the link; the database keeps only their hashes.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteStream, ownStream, type StreamEnv, storedMessages } from '../fixtures/drills/nats-stream.js';
import { query, relaxRateGates } from '../fixtures/engine-setup.js';
import { agentWith, principal } from '../fixtures/holds.js';
import { envelope, insertOutbox } from '../fixtures/outbox.js';
import { issuePrincipalKey } from '../fixtures/provision.js';
import { newPrincipal, type TestPrincipal } from '../fixtures/runtime-principal.js';
import { EMBEDDED, expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { startSmtpServer, type TestSmtpServer } from '../fixtures/smtp.js';
import { decide, stepUpMail } from '../fixtures/step-up-mail.js';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

let server: TestServer;
let smtp: TestSmtpServer;
let receiver: Receiver;
let stream: StreamEnv | null = null;
/** Policy 'principal', an address registered, every decision a STEP_UP. */
let p: TestPrincipal;
/** The same Principal's agent key: scoped to authorize only. */
let agentKey: string;
let webhookId: string;
const EMAIL = 'pat.person@example.test';
/** Everything the service logs, at debug level. */
const logLines: string[] = [];

function channel(who: TestPrincipal, apiKey: string, body?: unknown) {
  const path = `/api/v1/principals/${who.principalId}/confirmation-channel`;
  return body === undefined ? request(server, 'GET', path, { apiKey }) : request(server, 'PUT', path, { apiKey, body });
}

async function prepare(who: TestPrincipal): Promise<void> {
  const t = await request(server, 'PUT', '/api/v1/thresholds', {
    apiKey: who.apiKey,
    body: { authorize_step_up_threshold: 0 },
  });
  expect(t.status, t.text).toBe(200);
  const policy = await request(server, 'PUT', `/api/v1/principals/${who.principalId}/step-up-policy`, {
    apiKey: who.apiKey,
    body: { confirmation: 'principal' },
  });
  expect(policy.status, policy.text).toBe(200);
}

/** Every text of every table of the live database, one string per row. */
async function everyStoredRow(): Promise<string[]> {
  const rows = await query(server, 'live', async (sql) => {
    const tables = await sql<{ name: string }[]>`
      select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE'`;
    const out: { row: string }[] = [];
    for (const { name } of tables) {
      const found = await sql<{ row: string }[]>`select t::text as row from ${sql(name)} t`;
      for (const r of found) out.push({ row: `${name}: ${r.row}` });
    }
    return out;
  });
  return rows.map((r) => r.row);
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startReceiver();
  stream = EMBEDDED ? null : ownStream('stepupmail');
  server = await startTestServer(
    {
      SMTP_URL: smtp.url,
      SMTP_FROM: 'ASAS <confirm@asas.test>',
      STEP_UP_NOTIFY_INTERVAL_MS: '100',
      CLIENT_TENANCY: 'on',
      ...(stream ?? {}),
    },
    { log: pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) }) },
  );
  p = await principal(server);
  agentKey = (await issuePrincipalKey(server, p.principalId, 'live', { scopes: 'authorize' })).apiKey;
  await prepare(p);
  const hook = await request(server, 'POST', '/api/v1/webhooks', {
    apiKey: p.apiKey,
    body: { url: receiver.url, event_types: ['*'] },
  });
  expect(hook.status, hook.text).toBe(201);
  webhookId = (hook.body.webhook as { id: string }).id;
}, 60_000);
afterAll(async () => {
  await server?.close();
  await smtp?.close();
  await receiver?.close();
  if (stream !== null) await deleteStream(stream.NATS_STREAM);
});

describe('the confirmation channel', () => {
  it("is set and read only with the Principal's own credential", async () => {
    const first = await channel(p, p.apiKey);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({
      principal_id: p.principalId,
      email: null,
      notify_url: null,
      max_confirmations_per_hour: null,
      notify_and_proceed: null,
      updated_at: null,
    });
    // The agent's key, a key of another scope, and the Client's key acting for its only Principal.
    expectEnvelope(await channel(p, agentKey, { email: 'agent@evil.test' }), 403, 'forbidden');
    const thresholdsOnly = await issuePrincipalKey(server, p.principalId, 'live', { scopes: 'thresholds' });
    expectEnvelope(await channel(p, thresholdsOnly.apiKey, { email: 'x@evil.test' }), 403, 'forbidden');
    const byClient = await channel(p, p.clientKey, { email: 'client@evil.test' });
    expectEnvelope(byClient, 403, 'forbidden');
    expect(byClient.text).toContain("Principal's own credential");
    expectEnvelope(await channel(p, p.clientKey), 403, 'forbidden');
    // Nor can the Client's key switch the person's confirmation off.
    const policyOff = await request(server, 'PUT', `/api/v1/principals/${p.principalId}/step-up-policy`, {
      apiKey: p.clientKey,
      body: { confirmation: 'agent' },
    });
    expectEnvelope(policyOff, 403, 'forbidden');
    expectEnvelope(await channel(p, p.apiKey, { email: 'not an address' }), 422, 'validation_error');

    const set = await channel(p, p.apiKey, { email: EMAIL });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ principal_id: p.principalId, email: EMAIL });
    expect(Date.parse(set.body.updated_at as string)).toBeGreaterThan(Date.now() - 60_000);
    const log = await query(
      server,
      'live',
      (
        sql,
      ) => sql`select action, changes::text as changes from security_log where action = 'confirmation_channel.updated'
        and target_id = ${p.principalId}`,
    );
    expect(log).toHaveLength(1);
    expect(log[0]?.changes).not.toContain(EMAIL);
  });
});

describe('a key the Client issued the Principal (sandbox-key)', () => {
  it('sets neither the channel nor the policy, and confirms no step-up without its code', async () => {
    const sb = await newPrincipal(server, 'sandbox');
    await relaxRateGates(server, sb.apiKey);
    await prepare(sb);
    const minted = await request(server, 'POST', `/api/v1/principals/${sb.principalId}/sandbox-key`, {
      apiKey: sb.clientKey,
    });
    expect(minted.status, minted.text).toBe(201);
    const clientsKey = minted.body.api_key as string;
    expectEnvelope(await channel(sb, clientsKey, { email: 'client@evil.test' }), 403, 'forbidden');
    const policyOff = await request(server, 'PUT', `/api/v1/principals/${sb.principalId}/step-up-policy`, {
      apiKey: clientsKey,
      body: { confirmation: 'agent' },
    });
    expectEnvelope(policyOff, 403, 'forbidden');
    const { agentId } = await agentWith(server, sb, {});
    const res = await decide(server, sb, agentId, '12.00');
    const id = res.step_up_id as string;
    expect(id).toMatch(/^stp_/);
    expectEnvelope(
      await request(server, 'POST', `/api/v1/step-ups/${id}/confirm`, { apiKey: clientsKey }),
      403,
      'step_up_confirmation_forbidden',
    );
    // The Principal's own key (issued by the operator) still does all three.
    expect((await channel(sb, sb.apiKey, { email: 'pat@example.test' })).status).toBe(200);
    const own = await request(server, 'POST', `/api/v1/step-ups/${id}/confirm`, { apiKey: sb.apiKey });
    expect(own.body).toMatchObject({ status: 'CONFIRMED', confirmed_via: 'credential' });
  });
});

describe('a STEP_UP under the principal policy', () => {
  it('e-mails the link and code to the address; no event, webhook, NATS message or row carries them', async () => {
    const { agentId } = await agentWith(server, p, {});
    const res = await decide(server, p, agentId, '12.00');
    expect(res.decision).toBe('STEP_UP');
    const id = res.step_up_id as string;
    const { mail, link, token, code } = await stepUpMail(smtp, id);
    expect(mail.to).toEqual([EMAIL]);
    expect(mail.from).toBe('confirm@asas.test');
    expect(mail.subject).toBe('Approve 12.00 USD to Corner Grocery?');
    expect(link).toBe(`${server.url}/step-up/${token}`);
    expect(token.startsWith('live.')).toBe(true);

    // Only hashes are kept, and the step-up says the e-mail went out.
    const [row] = await query(
      server,
      'live',
      (sql) =>
        sql<{ code_hash: string; link_hash: string }[]>`select code_hash, link_hash from step_ups where id = ${id}`,
    );
    expect(row?.code_hash).toBe(createHash('sha256').update(`${id}:${code}`).digest('hex'));
    expect(row?.link_hash).toBe(createHash('sha256').update(token).digest('hex'));
    // 'sent' is recorded once the SMTP server accepted the message, just after it arrived there.
    let status = await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: agentKey });
    for (let i = 0; i < 50 && status.body.notification === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: agentKey });
    }
    expect(status.body).toMatchObject({ status: 'PENDING', notification: 'sent' });

    // The person gives the agent the code; the agent confirms with its own key, then retries.
    const confirmed = await request(server, 'POST', `/api/v1/step-ups/${id}/confirm`, {
      apiKey: agentKey,
      body: { code: code.toLowerCase() },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'CONFIRMED', confirmed_via: 'code' });
    const retry = await decide(server, p, agentId, '12.00', { step_up_confirmed: true });
    expect(retry).toMatchObject({ decision: 'APPROVE', reason_codes: ['step_up_confirmed'], step_up_id: id });

    // The Client's side: the webhook bodies of step_up.created and step_up.confirmed.
    const hooks = await receiver.waitFor(2, 15_000, (r) => r.body.includes(id));
    const types = hooks.map((h) => JSON.parse(h.body).event_type).sort();
    expect(types).toEqual(['step_up.confirmed', 'step_up.created']);
    const createdEvent = JSON.parse(hooks.find((h) => h.body.includes('step_up.created'))?.body as string);
    expect(createdEvent.data.step_up_id).toBe(id);
    expect(createdEvent.data).not.toHaveProperty('confirmation_code');
    const secretParts = [code, token, token.slice('live.'.length)];
    for (const h of receiver.requests) for (const s of secretParts) expect(h.body).not.toContain(s);

    // The link's page, now used, answers 410; the request log names the route, not the token.
    expect((await fetch(link)).status).toBe(410);
    expect(logLines.some((l) => l.includes('"path":"/step-up/:token"'))).toBe(true);
    for (const l of logLines) for (const s of secretParts) expect(l).not.toContain(s);

    // The stored outbox and every other table.
    const rows = await everyStoredRow();
    expect(rows.some((r) => r.startsWith('outbox_') && r.includes(id))).toBe(true);
    for (const r of rows) for (const s of secretParts) expect(r, r).not.toContain(s);

    // NATS (the PostgreSQL run publishes there; the embedded run has no NATS).
    if (stream !== null) {
      const nc = await connect({ servers: stream.NATS_URL });
      try {
        let messages = await storedMessages(nc, stream.NATS_STREAM);
        for (let i = 0; i < 50 && !messages.some((m) => m.string().includes('step_up.confirmed')); i++) {
          await new Promise((r) => setTimeout(r, 100));
          messages = await storedMessages(nc, stream.NATS_STREAM);
        }
        const texts = messages.map((m) => m.string());
        expect(texts.filter((t) => t.includes(id)).length).toBeGreaterThanOrEqual(2);
        for (const t of texts) for (const s of secretParts) expect(t).not.toContain(s);
      } finally {
        await nc.close();
      }
    }
  });

  it('without an address sends nothing: notification no_channel, the credential still confirms', async () => {
    const q = await principal(server);
    await prepare(q);
    const { agentId } = await agentWith(server, q, {});
    const res = await decide(server, q, agentId, '11.00');
    const id = res.step_up_id as string;
    let status = await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: q.apiKey });
    for (let i = 0; i < 50 && status.body.notification === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: q.apiKey });
    }
    expect(status.body.notification).toBe('no_channel');
    expect(smtp.mails.some((m) => m.text.includes(id))).toBe(false);
    // No code was ever made: any code is wrong, and counted.
    expectEnvelope(
      await request(server, 'POST', `/api/v1/step-ups/${id}/confirm`, {
        apiKey: q.apiKey,
        body: { code: 'K7QM3XHP9T' },
      }),
      422,
      'invalid_step_up_code',
    );
    const ok = await request(server, 'POST', `/api/v1/step-ups/${id}/confirm`, { apiKey: q.apiKey });
    expect(ok.body).toMatchObject({ status: 'CONFIRMED', confirmed_via: 'credential' });
  });
});

describe('migration 0291', () => {
  it('scrubs the codes that step_up.created carried before from the stored outbox and webhook bodies', async () => {
    const old = envelope('step_up.created', {
      agent_id: 'agt_old',
      step_up_id: 'stp_old',
      confirmation_code: 'K7QM3XHP9T',
      merchant: 'Quote "Shop"',
    });
    const plain = envelope('step_up.created', { agent_id: 'agt_plain', step_up_id: null, confirmation_code: null });
    // Another Principal's events (no webhook of its own), so no delivery is made of them meanwhile.
    const q = await principal(server);
    await insertOutbox(server.dbUrls.live, q.clientId, q.principalId, [old, plain]);
    await query(
      server,
      'live',
      (sql) => sql`insert into webhook_deliveries (webhook_id, event_id, event_type, body, status)
        values (${webhookId}, ${old.event_id}, 'step_up.created', ${JSON.stringify(old)}, 'succeeded')`,
    );
    const migration = readFileSync(new URL('../../migrations/0291_scrub_step_up_codes.sql', import.meta.url), 'utf8');
    await query(server, 'live', async (sql) => {
      await sql.unsafe(migration);
      return [];
    });
    const [stored] = await query(
      server,
      'live',
      (sql) =>
        sql<{ payload: Record<string, unknown> }[]>`select payload from outbox_events where event_id = ${old.event_id}`,
    );
    expect(stored?.payload).toEqual({ ...old, data: { ...old.data, confirmation_code: null } });
    const [kept] = await query(
      server,
      'live',
      (sql) =>
        sql<
          { payload: Record<string, unknown> }[]
        >`select payload from outbox_events where event_id = ${plain.event_id}`,
    );
    expect(kept?.payload).toEqual(plain);
    const [body] = await query(
      server,
      'live',
      (sql) => sql<{ body: string }[]>`select body from webhook_deliveries where event_id = ${old.event_id}`,
    );
    expect(JSON.parse(body?.body as string)).toEqual({ ...old, data: { ...old.data, confirmation_code: null } });
    const rows = await everyStoredRow();
    expect(rows.some((r) => r.includes('K7QM3XHP9T'))).toBe(false);
  });
});
