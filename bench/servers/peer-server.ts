// The conventional peer of the bench (docs/benchmarks.md "The conventional peer"): how a
// competent team would build POST /api/v1/authorize without actors. Fastify with a JSON-schema
// validated body, postgres.js with a connection pool and prepared statements, and one
// transaction per decision:
//
//   BEGIN
//   1. read the agent (locked FOR UPDATE, so two decisions for one agent never race on its
//      caps), its ACTIVE mandates and their spend of today and this month, authenticating the
//      API key in the same query
//   2. decide the mandate gates in JavaScript (bench/peer/decide.ts)
//   3. one statement: insert the audit row, insert the outbox row (the event to publish), and
//      add the amount to the spend rows when approved
//   COMMIT, then answer.
//
// Usage: node peer-server.js [port]; DATABASE_URL names its database (bench/peer/database.ts),
// PEER_POOL the connections per process (default 16), PEER_PROCESSES the number of processes
// sharing the port through node:cluster (default 1). Prints "PORT <n>" once listening.
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import postgres from 'postgres';
import { toAlpha3 } from '../../src/domain/country.js';
import { formatAmount, parseAmount } from '../../src/domain/money.js';
import { socketTarget } from '../../src/storage/db.js';
import { keyHash } from '../peer/database.js';
import { decidePeer, type PeerMandate, spendKeys } from '../peer/decide.js';

const processes = Math.max(1, Number(process.env.PEER_PROCESSES ?? 1));
const pool = Math.max(1, Number(process.env.PEER_POOL ?? 16));
const port = Number(process.argv[2] ?? 0);

interface AuthorizeBody {
  agent_id: string;
  amount: string | number;
  currency: string;
  merchant_name?: string;
  merchant_id?: string;
  mcc?: string;
  country?: string;
  session_id?: string;
  intent_context?: Record<string, unknown>;
}

const BODY_SCHEMA = {
  type: 'object',
  required: ['agent_id', 'amount', 'currency'],
  properties: {
    agent_id: { type: 'string', minLength: 1, maxLength: 64 },
    amount: { type: ['string', 'number'] },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    merchant_name: { type: 'string', maxLength: 200 },
    merchant_id: { type: 'string', maxLength: 200 },
    mcc: { type: 'string', pattern: '^[0-9]{4}$' },
    country: { type: 'string', minLength: 2, maxLength: 3 },
    session_id: { type: 'string', maxLength: 200 },
    intent_context: { type: 'object' },
  },
} as const;

interface MandateRow {
  principal_id: string;
  agent_status: string;
  id: string | null;
  currency: string;
  max_per_transaction: string;
  max_daily: string | null;
  max_monthly: string | null;
  blocked_mccs: string[];
  blocked_countries: string[];
  valid_from: Date;
  valid_until: Date | null;
  day_amount: string;
  month_amount: string;
}

async function serve(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (url === undefined) throw new Error('peer server: DATABASE_URL is required');
  const target = socketTarget(url);
  const sql = postgres(target.url, { ...target.options, max: pool, onnotice: () => {} });
  const app = Fastify({ logger: false });

  app.post<{ Body: AuthorizeBody }>('/api/v1/authorize', { schema: { body: BODY_SCHEMA } }, async (req, reply) => {
    const apiKey = req.headers['x-api-key'];
    if (typeof apiKey !== 'string' || apiKey.length === 0) {
      return reply.code(401).send({ error: { code: 'unauthorized', message: 'X-API-Key is required' } });
    }
    const b = req.body;
    const amount = parseAmount(b.amount);
    if (amount === null || amount === 0n) {
      return reply.code(400).send({ error: { code: 'invalid_amount', message: 'amount must be a positive decimal' } });
    }
    let country: string | null = null;
    if (b.country !== undefined) {
      country = toAlpha3(b.country);
      if (country === null) {
        return reply.code(400).send({ error: { code: 'invalid_country', message: 'country must be ISO 3166-1' } });
      }
    }
    const nowMs = Date.now();
    const keys = spendKeys(nowMs);
    const hash = keyHash(apiKey);
    const authorizationId = `auth_${randomUUID().replaceAll('-', '')}`;
    const answer = await sql.begin(async (tx) => {
      const rows = await tx<MandateRow[]>`
        select a.principal_id, a.status as agent_status, m.id, m.currency, m.max_per_transaction,
               m.max_daily, m.max_monthly, m.blocked_mccs, m.blocked_countries, m.valid_from,
               m.valid_until, coalesce(d.amount, 0) as day_amount, coalesce(mo.amount, 0) as month_amount
          from peer_agents a
          join peer_api_keys k on k.key_hash = ${hash} and k.principal_id = a.principal_id
          left join peer_mandates m on m.agent_id = a.id and m.status = 'ACTIVE'
          left join peer_spend d on d.mandate_id = m.id and d.window_key = ${keys.day}
          left join peer_spend mo on mo.mandate_id = m.id and mo.window_key = ${keys.month}
         where a.id = ${b.agent_id}
         order by m.created_at desc
           for update of a`;
      const first = rows[0];
      if (first === undefined) return null;
      const mandates: PeerMandate[] = rows
        .filter((r) => r.id !== null)
        .map((r) => ({
          id: r.id as string,
          currency: r.currency,
          maxPerTransaction: r.max_per_transaction,
          maxDaily: r.max_daily,
          maxMonthly: r.max_monthly,
          blockedMccs: r.blocked_mccs,
          blockedCountries: r.blocked_countries,
          validFromMs: r.valid_from.getTime(),
          validUntilMs: r.valid_until === null ? null : r.valid_until.getTime(),
          dayAmount: r.day_amount,
          monthAmount: r.month_amount,
        }));
      const d =
        first.agent_status === 'ACTIVE'
          ? decidePeer(mandates, { amount, currency: b.currency, mcc: b.mcc ?? null, country }, nowMs)
          : { decision: 'DECLINE' as const, reasons: ['agent_inactive'], mandateId: mandates[0]?.id ?? null };
      const amountText = formatAmount(amount);
      const entry = {
        authorization_id: authorizationId,
        agent_id: b.agent_id,
        principal_id: first.principal_id,
        mandate_id: d.mandateId,
        decision: d.decision,
        reason_codes: d.reasons,
        amount: amountText,
        currency: b.currency,
        merchant_name: b.merchant_name ?? null,
        merchant_id: b.merchant_id ?? null,
        mcc: b.mcc ?? null,
        country,
        timestamp: new Date(nowMs).toISOString(),
      };
      const event = JSON.stringify({
        event_type: 'authorization.decided',
        event_id: `evt_${randomUUID().replaceAll('-', '')}`,
        timestamp: entry.timestamp,
        data: entry,
      });
      await tx`
        with audit as (
          insert into peer_audit (id, agent_id, principal_id, mandate_id, amount, currency, merchant_name,
                                  merchant_id, mcc, country, decision, reason_codes, intent_context)
          values (${authorizationId}, ${b.agent_id}, ${first.principal_id}, ${d.mandateId}, ${amountText},
                  ${b.currency}, ${entry.merchant_name}, ${entry.merchant_id}, ${entry.mcc}, ${country},
                  ${d.decision}, string_to_array(${d.reasons.join(',')}, ','),
                  ${b.intent_context === undefined ? null : JSON.stringify(b.intent_context)}::jsonb)
        ), outbox as (
          insert into peer_outbox (event_type, payload) values ('authorization.decided', ${event}::jsonb)
        )
        insert into peer_spend (mandate_id, window_key, amount, count)
        select ${d.mandateId}, w, ${amountText}::numeric, 1
          from unnest(array[${keys.day}, ${keys.month}]::text[]) as w
         where ${d.decision === 'APPROVE'}
        on conflict (mandate_id, window_key)
        do update set amount = peer_spend.amount + excluded.amount, count = peer_spend.count + 1`;
      return entry;
    });
    if (answer === null) {
      return reply.code(404).send({ error: { code: 'agent_not_found', message: 'no such agent for this key' } });
    }
    return reply.code(200).send(answer);
  });

  const address = await app.listen({ host: '127.0.0.1', port });
  const bound = Number(new URL(address).port);
  if (cluster.isWorker) process.send?.({ port: bound });
  else process.stdout.write(`PORT ${bound}\n`);
  process.on('SIGTERM', () => {
    void app
      .close()
      .then(() => sql.end({ timeout: 2 }))
      .finally(() => process.exit(0));
  });
}

if (processes > 1 && cluster.isPrimary) {
  let announced = false;
  for (let i = 0; i < processes; i++) {
    const w = cluster.fork();
    w.on('message', (m: { port?: number }) => {
      if (typeof m.port === 'number' && !announced) {
        announced = true;
        process.stdout.write(`PORT ${m.port}\n`);
      }
    });
  }
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
    setTimeout(() => process.exit(0), 200);
  });
} else {
  await serve();
}
