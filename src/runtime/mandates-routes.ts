// POST /api/v1/mandates, GET /api/v1/mandates/:mandate_id, GET /api/v1/mandates/agent/:agent_id:
// the runtime-plane mandates of SPEC.md. A new mandate reaches its agent's actor before the
// agent's next decision (invalidateAgent after the insert commits).
import type { Services } from '../app/services.js';
import { assertOwnAgent } from '../auth/agent-keys.js';
import { isIsoCurrency } from '../domain/currency.js';
import { newId } from '../domain/ids.js';
import { runtimeMandateHash } from '../domain/mandate-hash.js';
import { formatAmount, toDb } from '../domain/money.js';
import { ApiError, type ErrorDetail } from '../errors/registry.js';
import { exactAmounts } from '../http/json-source.js';
import { json, type RouteDef } from '../http/types.js';
import type { AgentRow } from '../storage/rows/agents.js';
import type { MandateRow } from '../storage/rows/mandates.js';
import { assertOwnedAgent } from './agent-store.js';
import { bodyOf, idParam } from './context.js';
import { invalidateAgent } from './engine-handle.js';
import {
  countries,
  EXTRA_AMOUNT_FIELDS,
  type ExtraLimitsInput,
  extraTerms,
  extraValues,
  limit,
  readExtraLimits,
} from './mandate-limits.js';
import {
  assertMandateRoom,
  listAgentMandates,
  loadOwnedMandate,
  type MandateStatus,
  mandateView,
} from './mandate-store.js';
import { readTerms, type TermsInput } from './mandate-terms.js';
import { mandateUsage } from './mandate-usage.js';

interface CreateBody extends ExtraLimitsInput, TermsInput {
  min_amount_per_transaction?: string | number;
  agent_id: string;
  valid_from?: string;
  valid_until: string;
  max_amount_per_transaction: string | number;
  currency: string;
  max_daily_amount?: string | number;
  max_monthly_amount?: string | number;
  allowed_mccs?: string[];
  blocked_mccs?: string[];
  allowed_countries?: string[];
  blocked_countries?: string[];
  allowed_chains?: string[];
  allowed_assets?: string[];
  allowed_counterparties?: string[];
}

const AMOUNT_PATHS = [
  ['max_amount_per_transaction'],
  ['max_daily_amount'],
  ['max_monthly_amount'],
  ['min_amount_per_transaction'],
  ...EXTRA_AMOUNT_FIELDS.map((f) => [f]),
];

function unique(values: string[] | undefined): string[] | null {
  return values === undefined ? null : [...new Set(values)];
}

function sorted(values: string[] | null): string[] | null {
  return values === null ? null : [...values].sort();
}

export function mandatesRoutes(services: Services): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/mandates',
      auth: 'principal',
      body: 'RuntimeMandateCreateRequest',
      response: 'RuntimeMandate',
      successStatus: 201,
      operationId: 'createMandate',
      summary: "Grant one of the caller's agents a mandate",
      handler: async (ctx) => {
        const { auth, db } = ctx;
        exactAmounts(ctx, AMOUNT_PATHS);
        const b = bodyOf<CreateBody>(ctx);
        const problems: ErrorDetail[] = [];
        const now = Date.now();
        const validUntil = new Date(b.valid_until);
        const validFrom = b.valid_from === undefined ? new Date(now) : new Date(b.valid_from);
        if (!(validUntil.getTime() > now)) problems.push({ field: 'valid_until', message: 'must be in the future' });
        if (!(validFrom.getTime() < validUntil.getTime())) {
          problems.push({ field: 'valid_from', message: 'must be before valid_until' });
        }
        const perTx = limit(b.max_amount_per_transaction, 'max_amount_per_transaction', b.currency, problems);
        const daily = limit(b.max_daily_amount, 'max_daily_amount', b.currency, problems);
        const monthly = limit(b.max_monthly_amount, 'max_monthly_amount', b.currency, problems);
        const extra = readExtraLimits(b, b.currency, (field, message) => problems.push({ field, message }));
        if (!isIsoCurrency(b.currency))
          problems.push({ field: 'currency', message: 'is not an ISO 4217 currency code' });
        const terms = readTerms(b, b.min_amount_per_transaction, b.currency, perTx, now, (field, message) =>
          problems.push({ field, message }),
        );
        const allowedCountries = countries(b.allowed_countries, 'allowed_countries', problems);
        const blockedCountries = countries(b.blocked_countries, 'blocked_countries', problems);
        if (problems.length > 0 || perTx === null)
          throw new ApiError('validation_error', undefined, { details: problems });

        // One transaction: the agent check, the per-agent mandate bound and the insert.
        const created = await db.begin(async (tx) => {
          const agents = await tx<Pick<AgentRow, 'program_id' | 'status'>[]>`
            select program_id, status from agents where id = ${b.agent_id} and principal_id = ${auth.principalId}`;
          const agent = agents[0];
          if (agent === undefined) throw new ApiError('agent_not_found');
          if (agent.status === 'REVOKED') {
            throw new ApiError('validation_error', undefined, {
              details: [
                { field: 'agent_id', code: 'not_allowed', message: 'the agent is REVOKED and cannot receive mandates' },
              ],
            });
          }

          const allowedMccs = unique(b.allowed_mccs);
          const blockedMccs = unique(b.blocked_mccs);
          const chains = unique(b.allowed_chains);
          const assets = unique(b.allowed_assets);
          const counterparties = unique(b.allowed_counterparties);
          const crypto = chains !== null || assets !== null || counterparties !== null;
          const rails = crypto ? ['card', 'crypto'] : ['card'];
          const id = newId('mnd');
          const hash = runtimeMandateHash({
            agent_id: b.agent_id,
            principal_id: auth.principalId,
            rails,
            limits: {
              currency: b.currency,
              max_amount_per_transaction: formatAmount(perTx),
              max_daily_amount: daily === null ? null : formatAmount(daily),
              max_monthly_amount: monthly === null ? null : formatAmount(monthly),
              ...extraTerms(extra),
            },
            allowed_mccs: sorted(allowedMccs),
            blocked_mccs: sorted(blockedMccs),
            allowed_countries: sorted(allowedCountries),
            blocked_countries: sorted(blockedCountries),
            crypto: crypto
              ? { chains: sorted(chains), assets: sorted(assets), counterparties: sorted(counterparties) }
              : null,
            valid_from: validFrom.toISOString(),
            valid_until: validUntil.toISOString(),
            terms: terms ?? undefined,
          });
          await assertMandateRoom(tx, b.agent_id);
          const x = extraValues(extra);
          const rows = await tx<Pick<MandateRow, 'id'>[]>`
            insert into mandates as m (id, agent_id, principal_id, program_id, status, rails, currency,
              max_amount_per_transaction, max_daily_amount, max_monthly_amount, allowed_mccs, blocked_mccs,
              allowed_countries, blocked_countries, allowed_chains, allowed_assets, allowed_counterparties,
              crypto, valid_from, valid_until, mandate_hash, max_weekly_amount, max_yearly_amount, max_total_amount,
              max_daily_count, max_monthly_count, hold_expiry_seconds, budget_alert_share, terms)
            values (${id}, ${b.agent_id}, ${auth.principalId}, ${agent.program_id}, 'ACTIVE', ${rails},
              ${b.currency}, ${toDb(perTx)}, ${daily === null ? null : toDb(daily)},
              ${monthly === null ? null : toDb(monthly)}, ${allowedMccs}, ${blockedMccs}, ${allowedCountries},
              ${blockedCountries}, ${chains}, ${assets}, ${counterparties},
              ${crypto ? tx.json({ chains: chains ?? [], assets: assets ?? [], counterparties: counterparties ?? [] }) : null},
              ${validFrom}, ${validUntil}, ${hash}, ${x[0] ?? null}, ${x[1] ?? null}, ${x[2] ?? null}, ${x[3] ?? null},
              ${x[4] ?? null}, ${x[5] ?? null}, ${x[6] ?? null}, ${terms === null ? null : tx.json(terms as never)})
            returning m.id`;
          return (rows[0] as { id: string }).id;
        });
        await invalidateAgent(services, auth.environment, b.agent_id);
        return json(201, mandateView(await loadOwnedMandate(db, auth.principalId, created)));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/mandates/:mandate_id',
      auth: 'principal',
      response: 'RuntimeMandate',
      operationId: 'getMandate',
      agentKey: 'handler',
      summary: "One of the caller's mandates",
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const row = await loadOwnedMandate(db, auth.principalId, idParam(ctx, 'mandate_id', 'mandate_not_found'));
        assertOwnAgent(auth, row.agent_id);
        // Used, held and remaining per cap in its current window (mandate-usage.ts).
        return json(200, { ...mandateView(row), usage: await mandateUsage(db, row) });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/mandates/agent/:agent_id',
      auth: 'principal',
      query: 'RuntimeMandateListQuery',
      response: 'RuntimeMandateList',
      operationId: 'listAgentMandates',
      agentKey: 'path',
      summary: "The mandates of one of the caller's agents, newest first",
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const agentId = idParam(ctx, 'agent_id', 'agent_not_found');
        await assertOwnedAgent(db, auth.principalId, agentId);
        const status = (ctx.query.status as MandateStatus | undefined) ?? null;
        const rows = await listAgentMandates(db, agentId, status);
        return json(200, { mandates: rows.map(mandateView), total: rows.length });
      },
    },
  ];
}
