// The step-up notifier (docs/step-up-confirmation.md "The person's e-mail"): every
// STEP_UP_NOTIFY_INTERVAL_MS each instance takes the step-ups whose e-mail is still to send, and
// sends each one, with nodemailer over SMTP_URL, to the address the Principal registered with its
// own credential (principals.confirmation_email): a single-use link to the confirmation page and
// the one-time code. Neither ever reaches the Client: no event, webhook, NATS subject or outbox
// row carries them, and the database keeps only their hashes.
//
// One instance sends each e-mail: a row is claimed with FOR UPDATE SKIP LOCKED and leased by
// moving notify_after ahead, and the new code and link hashes commit with the lease, before
// the e-mail leaves (a link is never valid without its hash, and a crash after the commit only
// means the next attempt makes a new code and link, which replace the first). After
// MAX_ATTEMPTS failed sendings the row is 'failed' (the Principal's credential still confirms).
//
// Against approval fatigue (migrations/0292): the Principal's max_confirmations_per_hour caps the
// e-mails of a rolling hour (the claim locks the Principal's row, so instances count in turn;
// a step-up over the cap is 'capped', never e-mailed); and a step-up within the Principal's
// notify-and-proceed amount is e-mailed as a notice and confirms itself (confirmed_via
// 'veto_window') veto_seconds after the e-mail went out, unless the person declined it first.
// Each round also makes those due confirmations, with their step_up.confirmed events, and has
// the agents' actors reload.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Environment } from '../domain/environment.js';
import { formatAmount, fromDb } from '../domain/money.js';
import { hashStepUpCode, newStepUpCode } from '../domain/step-up-code.js';
import { hashStepUpLinkToken, newStepUpLinkToken } from '../domain/step-up-link.js';
import { outboxEvent, writeOutbox } from '../events/outbox.js';
import type { SecretBox } from '../secrets/box.js';
import { notifySecretAad } from '../secrets/service.js';
import type { Databases, Sql } from '../storage/db.js';
import { PeriodicJob } from '../storage/periodic-job.js';
import type { WebhookHttpClient } from '../webhooks/http-client.js';
import { signedHeaders } from '../webhooks/signature.js';
import { stepUpEventData } from './step-ups-routes.js';

/** Sendings of one step-up's e-mail before it is 'failed'. */
export const MAX_ATTEMPTS = 5;
/** E-mails one round sends per database at most (the next round takes the rest). */
const ROUND_LIMIT = 50;

export interface StepUpNotifierOptions {
  /** SMTP_URL; null: nothing is sent (rows with an address are marked no_channel). */
  readonly smtpUrl: string | null;
  readonly from: string;
  readonly timeoutMs: number;
  /** PUBLIC_URL, else the edge's own address: the link is `<baseUrl>/step-up/<token>`. */
  readonly baseUrl: string;
  readonly intervalMs: number;
  /** Opens the Principals' endpoint secrets (migration 0293). */
  readonly secrets: SecretBox;
  /** Posts to a Principal's notification endpoint (the webhooks' SSRF-safe client and URL policy). */
  readonly http: Pick<WebhookHttpClient, 'post' | 'close'>;
  /** After step-ups confirmed themselves (veto window): outbox rows to relay, actors to reload. */
  readonly onConfirmed: (env: Environment, agentIds: readonly string[]) => Promise<void>;
}

interface Claimed {
  id: string;
  agent_id: string;
  agent_name: string | null;
  amount: string;
  currency: string;
  merchant_id: string | null;
  merchant_name: string | null;
  expires_at: Date;
  notify_attempts: number;
  email: string | null;
  notify_url: string | null;
  notify_secret_sealed: string | null;
  status: string;
  expired: boolean;
  principal_id: string;
  cap: number | null;
  /** The e-mail is a notice: the step-up confirms itself after this many seconds unless declined. */
  veto_seconds: number | null;
}

/** A step-up that confirmed itself, with what its event says. */
interface Proceeded {
  id: string;
  agent_id: string;
  authorization_id: string;
  principal_id: string;
  client_id: string;
  amount: string;
  currency: string;
  merchant_id: string | null;
  merchant_name: string | null;
  expires_at: Date;
}

/** One line of a header or the text: no control characters, bounded. */
function oneLine(s: string, max: number): string {
  const flat = s.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export class StepUpNotifier {
  readonly #options: StepUpNotifierOptions;
  readonly #log: Logger;
  readonly #transport: Transporter | null;
  readonly #job: PeriodicJob;

  constructor(dbs: Pick<Databases, 'forEnv' | 'isOpen'>, log: Logger, options: StepUpNotifierOptions) {
    this.#options = options;
    this.#log = log;
    this.#transport =
      options.smtpUrl === null
        ? null
        : nodemailer.createTransport({
            url: options.smtpUrl,
            connectionTimeout: options.timeoutMs,
            greetingTimeout: options.timeoutMs,
            socketTimeout: options.timeoutMs,
            // The message leaves in the round that made its code: no queue of our own in nodemailer.
            pool: false,
          });
    this.#job = PeriodicJob.perDatabase({
      dbs,
      intervalMs: options.intervalMs,
      log,
      failed: 'step-up notifier round failed; retried at the next interval',
      overlap: 'again',
      round: (sql, env) => this.#round(sql, env),
    });
    this.#job.start();
    void this.run();
  }

  /** One round over the open databases (joined by a round already running, then once more). */
  run(): Promise<void> {
    return this.#job.run();
  }

  async close(): Promise<void> {
    await this.#job.close();
    this.#transport?.close();
    await this.#options.http.close();
  }

  async #round(sql: Sql, env: Environment): Promise<void> {
    for (let i = 0; i < ROUND_LIMIT; i++) {
      if (!(await this.#one(sql, env))) break;
    }
    await this.#proceed(sql, env);
  }

  /** Confirms the notify-and-proceed step-ups whose veto window ended undeclined. */
  async #proceed(sql: Sql, env: Environment): Promise<void> {
    const done = await sql.begin(async (tx) => {
      const rows = await tx<Proceeded[]>`
        update step_ups s set status = 'CONFIRMED', confirmed_at = now(), confirmed_via = 'veto_window'
        from principals p
        where p.id = s.principal_id and s.id in (
          select id from step_ups
          where status = 'PENDING' and proceeds_at <= now() and expires_at > now()
          order by proceeds_at
          limit ${ROUND_LIMIT}
          for update skip locked)
        returning s.id, s.agent_id, s.authorization_id, s.principal_id, p.client_id, s.amount::text as amount,
          s.currency, s.merchant_id, s.merchant_name, s.expires_at`;
      await writeOutbox(
        tx,
        rows.map((r) =>
          outboxEvent(
            { clientId: r.client_id, principalId: r.principal_id, authorizationId: r.authorization_id },
            'step_up.confirmed',
            stepUpEventData(r, 'veto_window'),
          ),
        ),
      );
      return rows;
    });
    if (done.length > 0) await this.#options.onConfirmed(env, [...new Set(done.map((r) => r.agent_id))]);
  }

  /** Claims and sends one e-mail; false when there was nothing to send. */
  async #one(sql: Sql, env: Environment): Promise<boolean> {
    const leaseMs = this.#options.timeoutMs * 4;
    const claim = await sql.begin(async (tx) => {
      const [row] = await tx<Claimed[]>`
        select s.id, s.agent_id, a.name as agent_name, s.amount::text as amount, s.currency, s.merchant_id,
          s.merchant_name, s.expires_at, s.notify_attempts, p.confirmation_email as email, s.status,
          p.confirmation_notify_url as notify_url, p.confirmation_notify_secret_sealed as notify_secret_sealed,
          (s.expires_at <= now()) as expired, s.principal_id, p.confirmation_max_per_hour as cap,
          case when p.notify_proceed_currency = s.currency and s.amount <= p.notify_proceed_max_amount
            then p.notify_proceed_veto_seconds end as veto_seconds
        from step_ups s
        join principals p on p.id = s.principal_id
        left join agents a on a.id = s.agent_id
        where s.notify_status = 'pending' and (s.notify_after is null or s.notify_after <= now())
        order by s.created_at
        limit 1
        for update of s skip locked`;
      if (row === undefined) return null;
      // Nothing to ask any more (confirmed with the credential, or expired), or no one to ask.
      const reachable = (row.email !== null && this.#transport !== null) || row.notify_url !== null;
      if (row.status !== 'PENDING' || row.expired || !reachable) {
        const outcome = row.status !== 'PENDING' || row.expired ? 'none' : 'no_channel';
        await tx`update step_ups set notify_status = ${outcome} where id = ${row.id}`;
        return { row, code: null, token: null };
      }
      if (row.cap !== null && row.notify_attempts === 0) {
        // The Principal's row is the lock every instance counts under.
        await tx`select 1 from principals where id = ${row.principal_id} for update`;
        const [count] = await tx<{ n: number }[]>`
          select count(*)::int as n from step_ups
          where principal_id = ${row.principal_id} and notify_claimed_at > now() - interval '1 hour'`;
        if ((count?.n ?? 0) >= row.cap) {
          await tx`update step_ups set notify_status = 'capped' where id = ${row.id}`;
          return { row, code: null, token: null };
        }
      }
      const code = newStepUpCode();
      const token = newStepUpLinkToken(env);
      await tx`
        update step_ups set code_hash = ${hashStepUpCode(row.id, code)}, link_hash = ${hashStepUpLinkToken(token)},
          failed_attempts = 0, notify_attempts = notify_attempts + 1,
          notify_claimed_at = coalesce(notify_claimed_at, now()),
          notify_after = now() + ${`${leaseMs} milliseconds`}::interval
        where id = ${row.id}`;
      return { row, code, token };
    });
    if (claim === null) return false;
    const { row, code, token } = claim;
    if (code === null || token === null) {
      if (row.email !== null && this.#transport === null) {
        this.#log.warn({ env, step_up_id: row.id }, 'step-up e-mail not sent: SMTP_URL is not set');
      }
      return true;
    }
    const linkHash = hashStepUpLinkToken(token);
    try {
      await this.#send(row, code, token);
      // A notice: the veto window runs from when the e-mail went out.
      const proceeds = row.veto_seconds === null ? null : `${row.veto_seconds} seconds`;
      await sql`
        update step_ups set notify_status = 'sent', notified_at = now(),
          proceeds_at = ${proceeds === null ? null : sql`now() + ${proceeds}::interval`}
        where id = ${row.id} and link_hash = ${linkHash}`;
    } catch (err) {
      const attempts = row.notify_attempts + 1;
      const last = attempts >= MAX_ATTEMPTS;
      this.#log.warn({ err, env, step_up_id: row.id, attempts }, 'step-up e-mail failed');
      // Backoff 1, 2, 4, 8 s; the lease already holds the row until then at the latest.
      await sql`
        update step_ups set
          notify_status = ${last ? 'failed' : 'pending'},
          notify_after = now() + ${`${1000 * 2 ** (attempts - 1)} milliseconds`}::interval
        where id = ${row.id} and link_hash = ${linkHash}`;
    }
    return true;
  }

  async #send(row: Claimed, code: string, token: string): Promise<void> {
    if (row.email === null && row.notify_url !== null) return this.#post(row, code, token);
    const amount = `${formatAmount(fromDb(row.amount) ?? 0n)} ${row.currency}`;
    const merchant = oneLine(row.merchant_name ?? row.merchant_id ?? 'an unnamed merchant', 120);
    const agent = oneLine(row.agent_name ?? row.agent_id, 120);
    const link = `${this.#options.baseUrl}/step-up/${token}`;
    const expires = row.expires_at
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC');
    const notice = row.veto_seconds !== null;
    const proceeds = new Date(Date.now() + (row.veto_seconds ?? 0) * 1000)
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC');
    const text = (
      notice
        ? [
            `Your agent "${agent}" will pay ${amount} to ${merchant} at ${proceeds} unless you decline it.`,
            '',
            'Open this link to see the purchase and decline it (or approve it now):',
            link,
            '',
            `Or give the agent this one-time code to approve it now: ${code}`,
            '',
            `The link works once, until ${expires}.`,
            'If you did not expect this purchase, decline it now.',
          ]
        : [
            `Your agent "${agent}" asks to pay ${amount} to ${merchant}.`,
            '',
            'Open this link to see the purchase and approve or decline it:',
            link,
            '',
            `Or give the agent this one-time code if you approve: ${code}`,
            '',
            `The link and the code work once, until ${expires}.`,
            'If you did not expect this purchase, decline it or ignore this message: nothing is paid without your approval.',
          ]
    )
      .concat(`Reference: ${row.id}`)
      .join('\n');
    await (this.#transport as Transporter).sendMail({
      from: this.#options.from,
      to: row.email as string,
      subject: oneLine(
        notice ? `Paying ${amount} to ${merchant} unless you decline` : `Approve ${amount} to ${merchant}?`,
        160,
      ),
      text,
    });
  }
  /**
   * The Principal's notification endpoint instead of an e-mail: one JSON POST with the link and the
   * code, signed with the Standard Webhooks headers (webhook-id is the step-up and attempt);
   * anything but a 2xx fails the attempt, which is retried like an e-mail.
   */
  async #post(row: Claimed, code: string, token: string): Promise<void> {
    const secret = this.#options.secrets
      .open(row.notify_secret_sealed as string, notifySecretAad(row.principal_id))
      .toString('utf8');
    const body = JSON.stringify({
      type: 'step_up.confirmation_requested',
      step_up_id: row.id,
      agent_id: row.agent_id,
      agent_name: row.agent_name,
      amount: formatAmount(fromDb(row.amount) ?? 0n),
      currency: row.currency,
      merchant_id: row.merchant_id,
      merchant_name: row.merchant_name,
      link: `${this.#options.baseUrl}/step-up/${token}`,
      code,
      expires_at: row.expires_at.toISOString(),
      proceeds_at: row.veto_seconds === null ? null : new Date(Date.now() + row.veto_seconds * 1000).toISOString(),
    });
    const id = `${row.id}.${row.notify_attempts + 1}`;
    const headers = signedHeaders(secret, id, 'step_up.confirmation_requested', body);
    const res = await this.#options.http.post(row.notify_url as string, body, { ...headers });
    if (!res.ok) throw new Error(`notification endpoint: ${res.error ?? 'failed'}`);
  }
}
