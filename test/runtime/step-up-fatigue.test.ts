// Against approval fatigue (docs/step-up-confirmation.md "Fewer, better questions"), over HTTP
// with a real SMTP server started here: the Principal's cap on confirmation e-mails per hour, and
// notify-and-proceed for small amounts (an e-mailed notice, a veto window on the page, then the
// step-up confirms itself and the agent's retry is approved).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../fixtures/engine-setup.js';
import { agentWith, principal } from '../fixtures/holds.js';
import type { TestPrincipal } from '../fixtures/runtime-principal.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';
import { startSmtpServer, type TestSmtpServer } from '../fixtures/smtp.js';
import { answerOnPage, decide, stepUpMail } from '../fixtures/step-up-mail.js';

let server: TestServer;
let smtp: TestSmtpServer;

async function prepare(channel: Record<string, unknown>): Promise<TestPrincipal> {
  const who = await principal(server);
  const put = async (path: string, body: unknown) => {
    const res = await request(server, 'PUT', path, { apiKey: who.apiKey, body });
    expect(res.status, res.text).toBe(200);
    return res;
  };
  await put('/api/v1/thresholds', { authorize_step_up_threshold: 0 });
  await put(`/api/v1/principals/${who.principalId}/confirmation-channel`, {
    email: `${who.principalId.toLowerCase()}@example.test`,
    ...channel,
  });
  await put(`/api/v1/principals/${who.principalId}/step-up-policy`, { confirmation: 'principal' });
  return who;
}

async function stepUpOf(who: TestPrincipal, amount: string): Promise<{ agentId: string; id: string }> {
  const { agentId } = await agentWith(server, who, {});
  const res = await decide(server, who, agentId, amount);
  expect(res.decision, JSON.stringify(res.reason_codes)).toBe('STEP_UP');
  return { agentId, id: res.step_up_id as string };
}

/** The step-up once its e-mail is no longer pending. */
async function settled(who: TestPrincipal, id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const res = await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: who.apiKey });
    if (res.body.notification !== 'pending') return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`step-up ${id} still pending`);
}

/** Moves a notice's veto window into the past (the time the test does not wait). */
function endVetoWindow(id: string) {
  return query(
    server,
    'live',
    (sql) => sql`update step_ups set proceeds_at = now() - interval '1 second' where id = ${id}`,
  );
}

async function statusOf(who: TestPrincipal, id: string, want: string): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) {
    body = (await request(server, 'GET', `/api/v1/step-ups/${id}`, { apiKey: who.apiKey })).body;
    if (body.status === want) return body;
    await new Promise((r) => setTimeout(r, 50));
  }
  return body;
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startTestServer({ SMTP_URL: smtp.url, STEP_UP_NOTIFY_INTERVAL_MS: '100' });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

describe('the confirmation channel settings', () => {
  it('are read back, checked, and off by default', async () => {
    const who = await prepare({});
    const path = `/api/v1/principals/${who.principalId}/confirmation-channel`;
    const plain = await request(server, 'GET', path, { apiKey: who.apiKey });
    expect(plain.body).toMatchObject({ max_confirmations_per_hour: null, notify_and_proceed: null });
    const set = await request(server, 'PUT', path, {
      apiKey: who.apiKey,
      body: {
        email: 'pat@example.test',
        max_confirmations_per_hour: 5,
        notify_and_proceed: { currency: 'USD', max_amount: '15', veto_seconds: 300 },
      },
    });
    expect(set.body).toMatchObject({
      max_confirmations_per_hour: 5,
      notify_and_proceed: { currency: 'USD', max_amount: '15.00', veto_seconds: 300 },
    });
    for (const bad of [
      { max_confirmations_per_hour: 0 },
      { notify_and_proceed: { currency: 'usd', max_amount: '15', veto_seconds: 300 } },
      { notify_and_proceed: { currency: 'USD', max_amount: '-1', veto_seconds: 300 } },
      { notify_and_proceed: { currency: 'USD', max_amount: '15', veto_seconds: 5 } },
    ]) {
      const res = await request(server, 'PUT', path, {
        apiKey: who.apiKey,
        body: { email: 'pat@example.test', ...bad },
      });
      expectEnvelope(res, 422, 'validation_error');
    }
  });
});

describe('the hourly cap', () => {
  it('e-mails at most max_confirmations_per_hour; beyond it capped, and the credential still confirms', async () => {
    const who = await prepare({ max_confirmations_per_hour: 2 });
    const first = await stepUpOf(who, '11.00');
    const second = await stepUpOf(who, '12.00');
    await stepUpMail(smtp, first.id);
    await stepUpMail(smtp, second.id);
    const third = await stepUpOf(who, '13.00');
    const capped = await settled(who, third.id);
    expect(capped).toMatchObject({ status: 'PENDING', notification: 'capped' });
    expect(smtp.mails.some((m) => m.text.includes(third.id))).toBe(false);
    const ok = await request(server, 'POST', `/api/v1/step-ups/${third.id}/confirm`, { apiKey: who.apiKey });
    expect(ok.body).toMatchObject({ status: 'CONFIRMED', confirmed_via: 'credential' });
  });
});

describe('notify-and-proceed', () => {
  it('e-mails a notice; undeclined after the veto window the step-up confirms itself and the retry approves', async () => {
    const who = await prepare({ notify_and_proceed: { currency: 'USD', max_amount: '15.00', veto_seconds: 300 } });
    const { agentId, id } = await stepUpOf(who, '14.00');
    const { mail } = await stepUpMail(smtp, id);
    expect(mail.subject).toBe('Paying 14.00 USD to Corner Grocery unless you decline');
    expect(mail.text).toMatch(/will pay 14\.00 USD to Corner Grocery at .* unless you decline it/);
    const pending = await settled(who, id);
    expect(pending.status).toBe('PENDING');
    const proceedsAt = Date.parse(pending.proceeds_at as string);
    expect(proceedsAt).toBeGreaterThan(Date.now() + 250_000);
    expect(proceedsAt).toBeLessThanOrEqual(Date.now() + 300_000);
    // Still a STEP_UP while the window runs.
    expect((await decide(server, who, agentId, '14.00', { step_up_confirmed: true })).decision).toBe('STEP_UP');
    await endVetoWindow(id);
    const confirmed = await statusOf(who, id, 'CONFIRMED');
    expect(confirmed).toMatchObject({ status: 'CONFIRMED', confirmed_via: 'veto_window', proceeds_at: null });
    const events = await query(
      server,
      'live',
      (sql) => sql<{ data: Record<string, unknown> }[]>`select payload->'data' as data from outbox_events
        where event_type = 'step_up.confirmed' and payload->'data'->>'step_up_id' = ${id}`,
    );
    expect(events.map((e) => e.data.confirmed_via)).toEqual(['veto_window']);
    const retry = await decide(server, who, agentId, '14.00', { step_up_confirmed: true });
    expect(retry).toMatchObject({ decision: 'APPROVE', reason_codes: ['step_up_confirmed'], step_up_id: id });
  });

  it('a notice declined on the page in time never proceeds; above the amount it is a question', async () => {
    const who = await prepare({ notify_and_proceed: { currency: 'USD', max_amount: '15.00', veto_seconds: 300 } });
    const { agentId, id } = await stepUpOf(who, '15.00');
    const { link } = await stepUpMail(smtp, id);
    expect((await settled(who, id)).notification).toBe('sent');
    const page = await fetch(link);
    expect(await page.text()).toContain('Unless you decline it, this purchase will be approved at');
    expect((await answerOnPage(link, 'decline')).status).toBe(200);
    await endVetoWindow(id);
    await new Promise((r) => setTimeout(r, 400));
    expect((await settled(who, id)).status).toBe('DECLINED');
    expect(await decide(server, who, agentId, '15.00', { step_up_confirmed: true })).toMatchObject({
      decision: 'DECLINE',
      reason_codes: ['step_up_declined'],
    });

    const larger = await stepUpOf(who, '15.01');
    const { mail } = await stepUpMail(smtp, larger.id);
    expect(mail.subject).toBe('Approve 15.01 USD to Corner Grocery?');
    expect((await settled(who, larger.id)).proceeds_at).toBeNull();
  });
});
