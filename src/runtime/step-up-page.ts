// The confirmation page of a step-up (docs/step-up-confirmation.md "The confirmation page"): the
// person opens the link the step-up notifier e-mailed to the Principal's own address and sees
// what is asked (the agent, the merchant, the amount and currency, the agent's stated reason,
// the mandate), then approves or declines it.
//
// - GET /step-up/:token shows the page; opening it changes nothing (mail scanners fetch links).
// - POST /step-up/:token records the answer: one conditional UPDATE (the link's hash, PENDING,
//   not expired), so the link works once, whichever instance is asked; the step-up's event
//   (step_up.confirmed or step_up.declined, neither with the link or code) commits with it, and
//   the agent's actor reloads before the answer, so the agent's retry sees it at once.
// - What is approved is exactly what was shown: the form carries the amount, currency and
//   merchant it showed, and a form whose values differ from the step-up is refused.
// - CSRF: a random nonce in a SameSite=Strict, HttpOnly cookie set with the page, and a form
//   field that is the HMAC of that nonce keyed by the link's token (which only the person has);
//   a POST whose Origin or Sec-Fetch-Site names another site is refused before either is read.
// - Plain server-rendered HTML: no script at all, no external resource, one inline style block
//   allowed by its hash in a Content-Security-Policy of default-src 'none'; no referrer leaves.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Services } from '../app/services.js';
import type { Environment } from '../domain/environment.js';
import { formatAmount, fromDb } from '../domain/money.js';
import { parseStepUpLinkToken } from '../domain/step-up-link.js';
import { ApiError } from '../errors/registry.js';
import { outboxEvent, writeOutbox } from '../events/outbox.js';
import { RateLimiter } from '../http/rate-limit.js';
import type { Reply, RequestContext, RouteDef } from '../http/types.js';
import type { Sql } from '../storage/db.js';
import { invalidateAgent } from './engine-handle.js';
import { type StepUpEventRow, stepUpEventData } from './step-ups-routes.js';

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:1.0625rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f4f5}
main{max-width:36rem;margin:0 auto;padding:1.25rem 1rem 2rem}
h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0 1rem}
.card{background:#fff;border:1px solid #c4c4c8;border-radius:.5rem;padding:1rem 1.25rem;margin:0 0 1.25rem}
dl{margin:0}
dt{font-weight:600;color:#3f3f46;margin-top:.75rem}
dt:first-child{margin-top:0}
dd{margin:.125rem 0 0;overflow-wrap:anywhere}
.amount{font-size:1.75rem;font-weight:700;color:#111}
.muted{color:#52525b;font-size:.9375rem}
fieldset{border:0;margin:0;padding:0}
legend{font-weight:600;margin-bottom:.5rem;padding:0}
.check{display:flex;gap:.625rem;align-items:flex-start;margin:0 0 1rem}
.check input{width:1.375rem;height:1.375rem;margin:.125rem 0 0;flex:none}
.actions{display:flex;flex-wrap:wrap;gap:.75rem}
button{font:inherit;font-weight:600;min-height:3rem;padding:.625rem 1.25rem;border-radius:.375rem;border:2px solid transparent;cursor:pointer;flex:1 1 12rem}
.approve{background:#14532d;color:#fff}
.decline{background:#fff;color:#7f1d1d;border-color:#7f1d1d}
button:focus-visible,input:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.notice{border-left:.375rem solid #1d4ed8}
.notice.bad{border-left-color:#b91c1c}
.notice.good{border-left-color:#15803d}
`;
const STYLE_HASH = createHash('sha256').update(STYLE, 'utf8').digest('base64');

const HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
});

const CSRF_COOKIE = 'asas_step_up_csrf';

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;',
  );
}

function html(status: number, title: string, body: string, headers: Record<string, string> = {}): Reply {
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
  return { status, rawJson: page, headers: { ...HEADERS, ...headers } };
}

function notice(status: number, title: string, message: string, tone: 'bad' | 'good' | '' = 'bad'): Reply {
  return html(
    status,
    title,
    `<h1>${esc(title)}</h1>\n<div class="card notice ${tone}" role="status"><p>${message}</p></div>`,
  );
}

/** A step-up as the page reads it, with its mandate and agent. */
interface PageRow extends StepUpEventRow {
  client_id: string;
  principal_id: string;
  agent_name: string | null;
  status: 'PENDING' | 'CONFIRMED' | 'DECLINED' | 'USED';
  expired: boolean;
  intent: { intent_type?: string; task?: string; reasoning_summary?: string | null } | null;
  confirmed_via: string | null;
  confirmed_at: Date | null;
  declined_at: Date | null;
  mandate_id: string | null;
  mandate_currency: string | null;
  mandate_per_transaction: string | null;
  mandate_daily: string | null;
  mandate_valid_until: Date | null;
  proceeds_at: Date | null;
}

async function loadByLink(db: Sql, hash: string): Promise<PageRow | undefined> {
  const [row] = await db<PageRow[]>`
    select s.id, s.authorization_id, s.agent_id, s.principal_id, p.client_id, a.name as agent_name,
      s.amount::text as amount, s.currency, s.merchant_id, s.merchant_name, s.status, s.expires_at,
      (s.status = 'PENDING' and s.expires_at <= now()) as expired, s.intent, s.confirmed_via, s.confirmed_at,
      s.declined_at, m.id as mandate_id, m.currency as mandate_currency,
      m.max_amount_per_transaction::text as mandate_per_transaction, m.max_daily_amount::text as mandate_daily,
      m.valid_until as mandate_valid_until, s.proceeds_at
    from step_ups s
    join principals p on p.id = s.principal_id
    left join agents a on a.id = s.agent_id
    left join authorizations z on z.id = s.authorization_id
    left join mandates m on m.id = z.mandate_id
    where s.link_hash = ${hash}`;
  return row;
}

function money(amount: string | null, currency: string): string {
  return `${formatAmount(fromDb(amount) ?? 0n)} ${currency}`;
}

function utc(d: Date): string {
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

/** What the page shows the person, and what the form binds the answer to. */
function shownMerchant(r: PageRow): string {
  return r.merchant_id ?? r.merchant_name ?? '';
}

/**
 * What an approval is bound to, as the form carries it: a digest of the step-up and the amount,
 * currency and merchant the page showed. A digest, not the values: the merchant is the agent's
 * text, and a browser rewrites the line breaks of a form field (CR becomes LF, then CRLF), so a
 * name with a CR could never match itself and the page could not be answered at all.
 */
function bindingOf(r: PageRow): string {
  return createHash('sha256')
    .update(`${r.id}\n${formatAmount(fromDb(r.amount) ?? 0n)}\n${r.currency}\n${shownMerchant(r)}`, 'utf8')
    .digest('base64url');
}

/** The CSRF cookie of one link (one per link: a second link opened must not break the first's tab). */
function csrfCookieOf(linkHash: string): string {
  return `${CSRF_COOKIE}_${linkHash.slice(0, 16).replace(/[^A-Za-z0-9_-]/g, '')}`;
}

/** The HMAC of the cookie's nonce keyed by the link's token, as the form carries it. */
function csrfToken(linkToken: string, nonce: string, stepUpId: string): string {
  return createHmac('sha256', linkToken).update(`${nonce}:${stepUpId}`, 'utf8').digest('base64url');
}

function cookieOf(ctx: RequestContext, name: string): string | null {
  const header = ctx.headers.cookie;
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The answer of a link that no longer asks anything (used, answered otherwise, or expired). */
function closed(r: PageRow): Reply | null {
  if (r.status === 'PENDING' && !r.expired) return null;
  if (r.expired) {
    return notice(
      410,
      'This link has expired',
      `The request to pay ${esc(money(r.amount, r.currency))} expired on ${esc(utc(r.expires_at))}. Nothing was paid. If the purchase is still wanted, the agent has to ask again and you will get a new link.`,
    );
  }
  const when = r.status === 'DECLINED' ? r.declined_at : r.confirmed_at;
  const what = r.status === 'DECLINED' ? 'declined' : 'approved';
  const how = r.confirmed_via === 'link' || r.status === 'DECLINED' ? 'with this link' : 'another way';
  return notice(
    410,
    'This link has already been used',
    `This purchase was ${what} ${how}${when === null ? '' : ` on ${esc(utc(when))}`}. A link works only once.`,
  );
}

function reasonOf(r: PageRow): string {
  const i = r.intent;
  if (i === null) return '<dd class="muted">The agent gave no reason.</dd>';
  const parts: string[] = [];
  if (i.task) parts.push(`<dd>${esc(i.task)}</dd>`);
  if (i.reasoning_summary) parts.push(`<dd class="muted">${esc(i.reasoning_summary)}</dd>`);
  if (i.intent_type && i.intent_type !== 'unspecified')
    parts.push(`<dd class="muted">Kind: ${esc(i.intent_type)}</dd>`);
  return parts.length > 0 ? parts.join('\n') : '<dd class="muted">The agent gave no reason.</dd>';
}

function mandateOf(r: PageRow): string {
  if (r.mandate_id === null) return '<dd class="muted">No mandate was selected for this request.</dd>';
  const cur = r.mandate_currency ?? r.currency;
  const lines = [`<dd>${esc(r.mandate_id)}</dd>`];
  if (r.mandate_per_transaction !== null) {
    lines.push(`<dd class="muted">Up to ${esc(money(r.mandate_per_transaction, cur))} per purchase</dd>`);
  }
  if (r.mandate_daily !== null) lines.push(`<dd class="muted">Up to ${esc(money(r.mandate_daily, cur))} a day</dd>`);
  if (r.mandate_valid_until !== null)
    lines.push(`<dd class="muted">Valid until ${esc(utc(r.mandate_valid_until))}</dd>`);
  return lines.join('\n');
}

function page(r: PageRow, token: string, linkHash: string, nonce: string, secure: boolean): Reply {
  const amount = money(r.amount, r.currency);
  const merchant = r.merchant_name ?? r.merchant_id ?? 'an unnamed merchant';
  const proceeds =
    r.proceeds_at === null
      ? ''
      : `<div class="card notice" role="status"><p>Unless you decline it, this purchase will be approved at <strong>${esc(utc(r.proceeds_at))}</strong>.</p></div>\n`;
  const body = `<h1>Approve this purchase?</h1>
${proceeds}<div class="card">
<dl>
<dt>Amount</dt>
<dd class="amount">${esc(amount)}</dd>
<dt>Merchant</dt>
<dd>${esc(merchant)}${r.merchant_id !== null && r.merchant_name !== null ? ` <span class="muted">(${esc(r.merchant_id)})</span>` : ''}</dd>
<dt>Agent</dt>
<dd>${esc(r.agent_name ?? r.agent_id)} <span class="muted">(${esc(r.agent_id)})</span></dd>
<dt>The agent's reason</dt>
${reasonOf(r)}
<dt>Mandate</dt>
${mandateOf(r)}
<dt>Answer by</dt>
<dd>${esc(utc(r.expires_at))}</dd>
</dl>
</div>
<form method="post" action="/step-up/${esc(token)}" class="card">
<fieldset>
<legend>Your answer</legend>
<input type="hidden" name="csrf" value="${esc(csrfToken(token, nonce, r.id))}">
<input type="hidden" name="binding" value="${esc(bindingOf(r))}">
<p class="muted" id="only-this">Approving allows only this purchase: this amount, currency and merchant, once. Any change needs a new confirmation.</p>
<div class="actions">
<button type="submit" name="decision" value="approve" class="approve" aria-describedby="only-this">Approve ${esc(amount)}</button>
<button type="submit" name="decision" value="decline" class="decline">Decline</button>
</div>
</fieldset>
</form>
<p class="muted">Reference ${esc(r.id)}. If you did not expect this purchase, decline it.</p>`;
  const cookie = `${csrfCookieOf(linkHash)}=${nonce}; Path=/step-up/; HttpOnly; SameSite=Strict; Max-Age=3600${secure ? '; Secure' : ''}`;
  return html(200, `Approve ${amount} to ${merchant}?`, body, { 'set-cookie': cookie });
}

/**
 * A POST from another site (a form it hosts, a script) is refused before anything is read: by
 * Sec-Fetch-Site where the browser sends it, else by Origin. (Under Referrer-Policy no-referrer a
 * browser's own form POST carries `Origin: null`, so Origin alone cannot prove the page sent it;
 * the CSRF field does that.)
 */
function crossSite(ctx: RequestContext, publicHost: string | null): boolean {
  const site = ctx.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin';
  const origin = ctx.headers.origin;
  if (origin === undefined || origin === 'null') return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true;
  }
  return host !== ctx.headers.host && host !== publicHost;
}

export function stepUpPageRoutes(services: Services): RouteDef[] {
  const { dbs, events } = services;
  const { publicUrl } = services.config;
  const secure = publicUrl?.startsWith('https:') === true;
  const publicHost = publicUrl === null ? null : new URL(publicUrl).host;
  const limiter = new RateLimiter({
    requestsPerSecond: 5,
    burstRequests: 20,
    maxTrackedCredentials: 10_000,
    policyName: 'step_up_page',
  });
  const resolve = (ctx: RequestContext): { env: Environment; hash: string; token: string; db: Sql } | null => {
    limiter.check(ctx.ip, performance.now());
    const token = ctx.params.token as string;
    const parsed = parseStepUpLinkToken(token);
    if (parsed === null) return null;
    return { ...parsed, token, db: dbs.forEnv(parsed.env) };
  };
  const invalid = () =>
    notice(
      404,
      'This link is not valid',
      'Check that you opened the whole link from the e-mail. Nothing was approved. A link that was changed does not work.',
    );
  return [
    {
      method: 'GET',
      path: '/step-up/:token',
      auth: 'none',
      internal: true,
      secretPath: true,
      summary: 'The confirmation page of a step-up (the link e-mailed to the Principal)',
      handler: async (ctx) => {
        const link = resolve(ctx);
        if (link === null) return invalid();
        const row = await loadByLink(link.db, link.hash);
        if (row === undefined) return invalid();
        return closed(row) ?? page(row, link.token, link.hash, randomBytes(18).toString('base64url'), secure);
      },
    },
    {
      method: 'POST',
      path: '/step-up/:token',
      auth: 'none',
      internal: true,
      secretPath: true,
      summary: 'Approve or decline a step-up on its confirmation page',
      handler: async (ctx) => {
        if (crossSite(ctx, publicHost)) {
          return notice(403, 'This answer was refused', 'It did not come from the confirmation page itself.');
        }
        const link = resolve(ctx);
        if (link === null) return invalid();
        const type = (ctx.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (type !== 'application/x-www-form-urlencoded') throw new ApiError('unsupported_media_type');
        const form = new URLSearchParams(ctx.rawBody.toString('utf8'));
        const row = await loadByLink(link.db, link.hash);
        if (row === undefined) return invalid();
        const done = closed(row);
        if (done !== null) return done;
        const nonce = cookieOf(ctx, csrfCookieOf(link.hash));
        const csrf = form.get('csrf');
        if (nonce === null || csrf === null || !sameText(csrf, csrfToken(link.token, nonce, row.id))) {
          return notice(
            403,
            'This answer could not be verified',
            'Nothing was approved or declined. Open the link from the e-mail again and answer on that page.',
          );
        }
        const decision = form.get('decision');
        if (decision !== 'approve' && decision !== 'decline') {
          return notice(400, 'Choose approve or decline', 'Nothing was approved or declined.');
        }
        // An approval is of exactly what the page showed: a form bound to another amount, currency
        // or merchant approves nothing. A decline is always taken: it only keeps money from moving.
        const binding = form.get('binding');
        if (decision === 'approve' && (binding === null || !sameText(binding, bindingOf(row)))) {
          return notice(
            409,
            'This answer does not match the request',
            'The amount, currency or merchant sent differs from the purchase the agent asked for. Nothing was approved. Open the link from the e-mail again.',
          );
        }
        const approve = decision === 'approve';
        const updated = await link.db.begin(async (tx) => {
          const [u] = await tx<{ id: string; confirmed_at: Date | null; declined_at: Date | null }[]>`
            update step_ups set
              status = ${approve ? 'CONFIRMED' : 'DECLINED'},
              confirmed_at = ${approve ? tx`now()` : null}, confirmed_via = ${approve ? 'link' : null},
              declined_at = ${approve ? null : tx`now()`}
            where id = ${row.id} and link_hash = ${link.hash} and status = 'PENDING' and expires_at > now()
            returning id, confirmed_at, declined_at`;
          if (u === undefined) return false;
          await writeOutbox(tx, [
            outboxEvent(
              { clientId: row.client_id, principalId: row.principal_id, authorizationId: row.authorization_id },
              approve ? 'step_up.confirmed' : 'step_up.declined',
              stepUpEventData(row, approve ? 'link' : null),
            ),
          ]);
          return true;
        });
        if (!updated) {
          // Another tab or instance answered first, or the window ended meanwhile.
          const now = await loadByLink(link.db, link.hash);
          return (now === undefined ? null : closed(now)) ?? invalid();
        }
        events.nudge(link.env);
        // Before answering: the agent's actor, on whatever instance, reloads and sees the answer.
        await invalidateAgent(services, link.env, row.agent_id);
        const amount = esc(money(row.amount, row.currency));
        return approve
          ? notice(
              200,
              'Purchase approved',
              `Your agent may now pay ${amount} to ${esc(row.merchant_name ?? row.merchant_id ?? 'the merchant')}, once, until ${esc(utc(row.expires_at))}. Any other amount or merchant needs a new confirmation.`,
              'good',
            )
          : notice(
              200,
              'Purchase declined',
              `Your agent will not be allowed to pay ${amount} for this request.`,
              'good',
            );
      },
    },
  ];
}
