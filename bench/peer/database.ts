// The conventional peer's database: its schema, and the agents, mandates and API keys the bench
// seeds so the peer answers the same request mix as the service (same agent ids, same keys,
// same mandate limits). Created fresh on the PostgreSQL server the service uses, dropped after.
import { createHash, randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { socketTarget } from '../../src/storage/db.js';

/**
 * A conventional layout: keys by hash, agents, mandates (amounts NUMERIC), running spend per
 * mandate and window (updated in the decision's transaction, so a cap never reads a sum of
 * audit rows), the audit trail with an index per agent and time, and a transactional outbox.
 */
export const PEER_SCHEMA = `
create table peer_api_keys (key_hash bytea primary key, principal_id text not null);
create table peer_agents (
  id text primary key,
  principal_id text not null,
  status text not null default 'ACTIVE'
);
create table peer_mandates (
  id text primary key,
  agent_id text not null references peer_agents (id),
  status text not null default 'ACTIVE',
  currency text not null,
  max_per_transaction numeric(26, 8) not null,
  max_daily numeric(26, 8),
  max_monthly numeric(26, 8),
  blocked_mccs text[] not null default '{}',
  blocked_countries text[] not null default '{}',
  valid_from timestamptz not null default now(),
  valid_until timestamptz,
  created_at timestamptz not null default clock_timestamp()
);
create index peer_mandates_agent on peer_mandates (agent_id, created_at desc) where status = 'ACTIVE';
create table peer_spend (
  mandate_id text not null references peer_mandates (id),
  window_key text not null,
  amount numeric(26, 8) not null,
  count integer not null,
  primary key (mandate_id, window_key)
);
create table peer_audit (
  id text primary key,
  agent_id text not null,
  principal_id text not null,
  mandate_id text,
  amount numeric(26, 8) not null,
  currency text not null,
  merchant_name text,
  merchant_id text,
  mcc text,
  country text,
  decision text not null,
  reason_codes text[] not null,
  intent_context jsonb,
  created_at timestamptz not null default now()
);
create index peer_audit_agent_time on peer_audit (agent_id, created_at);
create table peer_outbox (
  id bigserial primary key,
  event_type text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  published_at timestamptz
);
create index peer_outbox_unpublished on peer_outbox (id) where published_at is null;
`;

export function keyHash(apiKey: string): Buffer {
  return createHash('sha256').update(apiKey).digest();
}

export interface PeerMandateSeed {
  readonly maxPerTransaction: string;
  readonly maxDaily: string | null;
  readonly maxMonthly: string | null;
  readonly blockedMccs: readonly string[];
  readonly blockedCountries: readonly string[];
  readonly currency: string;
  /** ISO time after which the mandate has expired, or null. */
  readonly validUntil: string | null;
}

export interface PeerSeed {
  readonly principals: readonly {
    readonly principalId: string;
    readonly apiKey: string;
    readonly agents: readonly { readonly agentId: string; readonly mandate: PeerMandateSeed }[];
  }[];
}

export interface PeerDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

function withDatabase(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

function open(url: string) {
  const t = socketTarget(url);
  return postgres(t.url, { ...t.options, max: 1, onnotice: () => {} });
}

/** Creates a fresh database for the peer on the server of `baseUrl`, with its schema and seed. */
export async function createPeerDatabase(baseUrl: string, seed: PeerSeed): Promise<PeerDatabase> {
  const name = `asas_peer_${randomBytes(4).toString('hex')}`;
  const admin = open(withDatabase(baseUrl, 'postgres'));
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = withDatabase(baseUrl, name);
  const sql = open(url);
  try {
    await sql.unsafe(PEER_SCHEMA);
    for (const p of seed.principals) {
      await sql`insert into peer_api_keys ${sql({ key_hash: keyHash(p.apiKey), principal_id: p.principalId })}`;
      if (p.agents.length === 0) continue;
      await sql`insert into peer_agents ${sql(p.agents.map((a) => ({ id: a.agentId, principal_id: p.principalId })))}`;
      const rows = p.agents.map((a, i) => ({
        id: `pmd_${i}_${a.agentId}`,
        agent_id: a.agentId,
        currency: a.mandate.currency,
        max_per_transaction: a.mandate.maxPerTransaction,
        max_daily: a.mandate.maxDaily,
        max_monthly: a.mandate.maxMonthly,
        blocked_mccs: sql.array([...a.mandate.blockedMccs]),
        blocked_countries: sql.array([...a.mandate.blockedCountries]),
        valid_until: a.mandate.validUntil,
      }));
      for (let i = 0; i < rows.length; i += 500) await sql`insert into peer_mandates ${sql(rows.slice(i, i + 500))}`;
    }
    await sql`analyze`;
  } finally {
    await sql.end({ timeout: 5 });
  }
  return {
    url,
    async drop() {
      const a = open(withDatabase(baseUrl, 'postgres'));
      try {
        await a.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await a.end({ timeout: 5 });
      }
    },
  };
}
