// Mandates granted on the onboarding plane. They are rows of the shared `mandates` table, read
// by the runtime plane and the decision engine: amounts are exact NUMERIC, countries alpha-3,
// crypto chains and assets also copied into allowed_chains / allowed_assets.
import { toAlpha3 } from '../domain/country.js';
import { currencyExponent, isIsoCurrency } from '../domain/currency.js';
import { newId } from '../domain/ids.js';
import { type MandateTerms, mandateHash } from '../domain/mandate-hash.js';
import { formatAmount, fromDb, readAmount, SCALE, toDb, toJsonNumber, type Units } from '../domain/money.js';
import {
  EXTRA_AMOUNT_FIELDS,
  type ExtraLimitsInput,
  extraTerms,
  extraValues,
  extraView,
  readExtraLimits,
} from '../runtime/mandate-limits.js';
import { assertMandateRoom } from '../runtime/mandate-store.js';
import { readTerms, type TermsInput, termsView } from '../runtime/mandate-terms.js';
import { Problems } from '../validation/storable.js';
import type { Tx } from './idempotency.js';

/** Default validity of an onboarding mandate (SPEC: "about one year"). */
export const DEFAULT_VALIDITY_DAYS = 365;

type Amount = string | number;

/** schemas/OnboardMandateCreateRequest.json */
export interface MandateInput extends TermsInput {
  rails: ('card' | 'crypto')[];
  limits: { max_amount_per_transaction: Amount; max_daily_amount: Amount; currency: string } & ExtraLimitsInput & {
      min_amount_per_transaction?: Amount;
    };
  allowed_mccs?: string[];
  allowed_countries?: string[];
  crypto?: { chains: string[]; assets: string[]; max_transfer?: Amount };
  valid_until?: string;
}

/** schemas/OnboardMandate.json */
export interface MandateRecord {
  id: string;
  agent_id: string;
  program_id: string | null;
  status: 'ACTIVE';
  rails: string[];
  limits: { max_amount_per_transaction: number; max_daily_amount: number; currency: string } & Record<
    string,
    number | string | null
  >;
  allowed_mccs: string[] | null;
  allowed_countries: string[] | null;
  crypto: { chains: string[]; assets: string[]; max_transfer: number | null } | null;
  mandate_hash: string;
  valid_from: string;
  valid_until: string;
  created_at: string;
  allowed_payees: string[] | null;
  merchant_lock: boolean;
  execution_window: unknown;
  recurrence: unknown;
}

const sortedSet = (values: readonly string[]): string[] => [...new Set(values)].sort();

/**
 * The amount fields of a mandate body below `root` (e.g. ['mandate'] on /onboard): JSON numbers
 * there are read from their source text (src/http/json-source.ts exactAmounts) before any check.
 */
export function mandateAmountPaths(root: readonly string[] = []): string[][] {
  return [
    [...root, 'limits', 'max_amount_per_transaction'],
    [...root, 'limits', 'max_daily_amount'],
    [...root, 'limits', 'min_amount_per_transaction'],
    ...EXTRA_AMOUNT_FIELDS.map((f) => [...root, 'limits', f]),
    [...root, 'crypto', 'max_transfer'],
  ];
}

/**
 * A limit greater than 0 with at most `maxPlaces` decimals as written: the currency's ISO 4217
 * minor units for limits, the service's 8-place scale for crypto.max_transfer (src/domain/currency.ts).
 */
function positive(value: Amount, field: string, maxPlaces: number, currency: string, problems: Problems): Units | null {
  const units = typeof value === 'string' ? readAmount(value.trim(), maxPlaces, currency) : 'must be a decimal amount';
  if (typeof units === 'string') problems.add(field, units);
  else if (units <= 0n) problems.add(field, 'must be greater than 0');
  else return units;
  return null;
}

/**
 * Checks a mandate beyond its schema (amounts > 0, ISO 4217 currency, ISO 3166 countries,
 * crypto block iff crypto rail, valid_until in the future) and stores it for `agent`.
 */
export async function createMandate(
  tx: Tx,
  agent: { id: string; principal_id: string; program_id: string | null },
  input: MandateInput,
  root = '',
): Promise<MandateRecord> {
  const problems = new Problems(root);
  const currency = input.limits.currency;
  if (!isIsoCurrency(currency)) problems.add('limits.currency', 'is not an ISO 4217 currency code');
  // An unknown currency is refused above; its amounts are then only held to the 8-place scale.
  const places = currencyExponent(currency) ?? SCALE;
  const perTx = positive(
    input.limits.max_amount_per_transaction,
    'limits.max_amount_per_transaction',
    places,
    currency,
    problems,
  );
  const daily = positive(input.limits.max_daily_amount, 'limits.max_daily_amount', places, currency, problems);
  const extra = readExtraLimits(input.limits, currency, (field, message) => problems.add(`limits.${field}`, message));

  const stored = readTerms(
    input,
    input.limits.min_amount_per_transaction,
    currency,
    perTx,
    Date.now(),
    (field, message) => problems.add(field === 'min_amount_per_transaction' ? `limits.${field}` : field, message),
  );

  let countries: string[] | null = null;
  if (input.allowed_countries !== undefined) {
    countries = [];
    input.allowed_countries.forEach((c, i) => {
      const alpha3 = toAlpha3(c);
      if (alpha3 === null) problems.add(`allowed_countries.${i}`, 'is not an ISO 3166-1 country code');
      else countries?.push(alpha3);
    });
    countries = sortedSet(countries);
  }

  const rails = sortedSet(input.rails);
  const wantsCrypto = rails.includes('crypto');
  let crypto: { chains: string[]; assets: string[]; max_transfer: Units | null } | null = null;
  if (wantsCrypto && input.crypto === undefined) problems.add('crypto', 'is required when rails includes crypto');
  if (!wantsCrypto && input.crypto !== undefined) problems.add('crypto', 'is only allowed when rails includes crypto');
  if (wantsCrypto && input.crypto !== undefined) {
    const max =
      input.crypto.max_transfer === undefined
        ? null
        : positive(input.crypto.max_transfer, 'crypto.max_transfer', SCALE, currency, problems);
    crypto = { chains: sortedSet(input.crypto.chains), assets: sortedSet(input.crypto.assets), max_transfer: max };
  }

  const now = new Date();
  let validUntil = new Date(now.getTime() + DEFAULT_VALIDITY_DAYS * 24 * 60 * 60 * 1000);
  if (input.valid_until !== undefined) {
    const t = new Date(input.valid_until);
    if (Number.isNaN(t.getTime())) problems.add('valid_until', 'is not a valid date-time');
    else if (t.getTime() <= now.getTime()) problems.add('valid_until', 'must be in the future');
    else validUntil = t;
  }
  problems.throwIfAny();
  await assertMandateRoom(tx, agent.id);

  const mccs = input.allowed_mccs === undefined ? null : sortedSet(input.allowed_mccs);
  const terms: MandateTerms = {
    agent_id: agent.id,
    principal_id: agent.principal_id,
    rails,
    limits: {
      currency,
      max_amount_per_transaction: formatAmount(perTx as Units),
      max_daily_amount: formatAmount(daily as Units),
      ...extraTerms(extra),
    },
    allowed_mccs: mccs,
    allowed_countries: countries,
    crypto:
      crypto === null
        ? null
        : {
            chains: crypto.chains,
            assets: crypto.assets,
            max_transfer: crypto.max_transfer === null ? null : formatAmount(crypto.max_transfer),
          },
    valid_from: now.toISOString(),
    valid_until: validUntil.toISOString(),
    terms: stored ?? undefined,
  };
  const hash = mandateHash(terms);
  const id = newId('mnd');
  const x = extraValues(extra);
  await tx`insert into mandates (id, agent_id, principal_id, program_id, status, rails, currency,
      max_amount_per_transaction, max_daily_amount, allowed_mccs, allowed_countries, allowed_chains,
      allowed_assets, crypto, valid_from, valid_until, mandate_hash, created_at, max_weekly_amount, max_yearly_amount,
      max_total_amount, max_daily_count, max_monthly_count, hold_expiry_seconds, budget_alert_share, terms)
    values (${id}, ${agent.id}, ${agent.principal_id}, ${agent.program_id}, 'ACTIVE', ${rails}, ${currency},
      ${toDb(perTx as Units)}, ${toDb(daily as Units)}, ${mccs}, ${countries}, ${crypto?.chains ?? null},
      ${crypto?.assets ?? null}, ${terms.crypto === null ? null : tx.json(terms.crypto)}, ${now}, ${validUntil},
      ${hash}, ${now}, ${x[0] ?? null}, ${x[1] ?? null}, ${x[2] ?? null}, ${x[3] ?? null}, ${x[4] ?? null},
      ${x[5] ?? null}, ${x[6] ?? null}, ${stored === null ? null : tx.json(stored as never)})`;
  return {
    id,
    agent_id: agent.id,
    program_id: agent.program_id,
    status: 'ACTIVE',
    rails,
    limits: {
      max_amount_per_transaction: toJsonNumber(perTx as Units),
      max_daily_amount: toJsonNumber(daily as Units),
      currency,
      ...setOnly(extraView(extraRow(x))),
      ...(stored?.min_amount_per_transaction === undefined
        ? {}
        : { min_amount_per_transaction: toJsonNumber(fromDb(stored.min_amount_per_transaction) as Units) }),
    },
    allowed_mccs: mccs,
    allowed_countries: countries,
    crypto:
      crypto === null
        ? null
        : {
            chains: crypto.chains,
            assets: crypto.assets,
            max_transfer: crypto.max_transfer === null ? null : toJsonNumber(crypto.max_transfer),
          },
    mandate_hash: hash,
    valid_from: terms.valid_from,
    valid_until: terms.valid_until,
    created_at: now.toISOString(),
    ...(termsView(stored, false) as Pick<
      MandateRecord,
      'allowed_payees' | 'merchant_lock' | 'execution_window' | 'recurrence'
    >),
  };
}

/** The stored column values (extraValues order) as the row extraView reads. */
function extraRow(x: (string | number | null)[]): Parameters<typeof extraView>[0] {
  return {
    max_weekly_amount: x[0] as string | null,
    max_yearly_amount: x[1] as string | null,
    max_total_amount: x[2] as string | null,
    max_daily_count: x[3] as number | null,
    max_monthly_count: x[4] as number | null,
    hold_expiry_seconds: x[5] as number | null,
    budget_alert_share: x[6] as string | null,
  };
}

/** The limits that were set (the onboarding limits object names only those). */
function setOnly(view: Record<string, number | null>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(view)) if (v !== null) out[k] = v;
  return out;
}
