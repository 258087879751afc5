// --scenario agents: memory stays bounded when a million distinct agents are touched.
//
// Provisioning goes through the API: a Client, its Program and Client key (operator plane), one
// Principal with its first agent (POST /api/v1/onboard), its key, its thresholds. The N agents,
// each with one mandate, are then written straight into the service's live database with COPY,
// NOT through the API: two API calls per agent take hours for a million, COPY about a minute.
// The rows are the ones POST /api/v1/agents and POST /api/v1/mandates write
// (src/runtime/agents-routes.ts, src/runtime/mandates-routes.ts, migrations/0001_core.sql):
// same columns and values, ids from the same generator (newId), mandate_hash from the same
// function over the same terms, created_at/updated_at from the same column defaults. One
// difference: the did:key is made from 32 random bytes, where the API makes it from a freshly
// generated Ed25519 key whose private half it discards (130 µs each; the service never uses
// the key, only the DID's form and uniqueness). To prove the rest, one agent and mandate are
// created through the API first and, after the first COPY batch, a seeded pair is compared
// with it column by column; the run stops when they differ in anything but ids, names, DIDs,
// timestamps and the hash (which is recomputed from the API's own row and must match).
//
// Then POST /api/v1/authorize is sent once for every agent, in seeding order (each one cold),
// from `connections` keep-alive connections (closed loop), while the caller samples the
// server's RSS and /metrics gauges.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { ed25519DidKey } from '../../src/domain/did.js';
import { newId } from '../../src/domain/ids.js';
import { runtimeMandateHash } from '../../src/domain/mandate-hash.js';
import { formatAmount, parseAmount, toDb, type Units } from '../../src/domain/money.js';
import { socketTarget } from '../../src/storage/db.js';
import { BenchConnection, buildRequest, type Completion } from '../load/connection.js';
import { type LoadResult, newHistogram, summarise } from '../load/run-load.js';
import {
  type ApiTarget,
  type ClientSetup,
  createAgentWithMandate,
  type MandateSpec,
  onboardPrincipal,
  type PrincipalSetup,
  provisionClient,
  putThresholds,
} from '../provision.js';
import { classifyDecision } from './authorize-mix.js';

/** The mandate of every agent (as the authorize mix's): the request below is always approved. */
export const AGENT_MANDATE: MandateSpec = {
  maxPerTransaction: '500.00',
  maxDaily: '100000000.00',
  maxMonthly: '1000000000.00',
  blockedMccs: ['7995'],
  blockedCountries: ['PRK', 'IRN'],
};

export interface AgentsSetup {
  readonly client: ClientSetup;
  readonly principal: PrincipalSetup;
  /** The agent created through the API to check the seeded rows against. */
  readonly referenceAgentId: string;
}

export async function provisionAgentsPrincipal(t: ApiTarget): Promise<AgentsSetup> {
  const client = await provisionClient(t, `bench agents ${new Date().toISOString()}`);
  const principal = await onboardPrincipal(t, client, 'agents');
  // One request per agent: the frequency gates never fire; lift them anyway so a rerun over the
  // same agents (or a slow machine's retries) stays a stream of approvals.
  await putThresholds(t, principal, { rapid_fire_max_count: 65_535, risk_velocity_max_count: 65_535 });
  const referenceAgentId = await createAgentWithMandate(t, principal, 'bench reference agent', AGENT_MANDATE);
  return { client, principal, referenceAgentId };
}

/** Opens a connection to a database URL (libpq's ?host=/socket form included). */
export function connectDb(url: string): postgres.Sql {
  const target = socketTarget(url);
  return postgres(target.url, { ...target.options, max: 1, onnotice: () => {} });
}

/**
 * The live database of a service the bench started on the PostgreSQL server of `baseUrl`: the
 * asas_bench_* database holding the Principal just provisioned.
 */
export async function findServiceDatabase(baseUrl: string, principalId: string): Promise<string> {
  const u = new URL(baseUrl);
  u.pathname = '/postgres';
  const admin = connectDb(u.toString());
  try {
    const dbs = await admin<{ datname: string }[]>`
      select datname from pg_database
      where datname like 'asas\\_bench\\_%' and datname not like '%\\_sandbox' order by oid desc`;
    for (const { datname } of dbs) {
      u.pathname = `/${datname}`;
      const db = connectDb(u.toString());
      try {
        const rows = await db`select 1 from principals where id = ${principalId}`.catch(() => []);
        if (rows.length > 0) return u.toString();
      } finally {
        await db.end({ timeout: 5 });
      }
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
  throw new Error(`no asas_bench_* database on ${u.host} holds Principal ${principalId}`);
}

const COPY_BATCH = 50_000;

interface SeedContext {
  readonly principalId: string;
  readonly clientId: string;
  readonly programId: string;
  readonly validFrom: Date;
  readonly validUntil: Date;
}

function units(text: string | undefined): Units | null {
  return text === undefined ? null : parseAmount(text);
}

/** mandate_hash of AGENT_MANDATE for `agentId`, with the terms POST /api/v1/mandates hashes. */
function mandateHashOf(c: SeedContext, agentId: string): string {
  const m = AGENT_MANDATE;
  const fmt = (t: string | undefined) => (t === undefined ? null : formatAmount(units(t) as Units));
  const sorted = (xs: readonly string[] | undefined) => (xs === undefined ? null : [...new Set(xs)].sort());
  return runtimeMandateHash({
    agent_id: agentId,
    principal_id: c.principalId,
    rails: ['card'],
    limits: {
      currency: m.currency ?? 'USD',
      max_amount_per_transaction: fmt(m.maxPerTransaction),
      max_daily_amount: fmt(m.maxDaily),
      max_monthly_amount: fmt(m.maxMonthly),
    },
    allowed_mccs: null,
    blocked_mccs: sorted(m.blockedMccs),
    allowed_countries: null,
    blocked_countries: sorted(m.blockedCountries),
    crypto: null,
    valid_from: c.validFrom.toISOString(),
    valid_until: c.validUntil.toISOString(),
  });
}

/** The COPY lines of one agent and its mandate, as POST /api/v1/agents and /mandates store them. */
function seedRows(c: SeedContext, i: number, key: Buffer): { agentId: string; agent: string; mandate: string } {
  const agentId = newId('agt');
  const did = ed25519DidKey(key);
  // agents: (id, principal_id, client_id, program_id, name, did, did_method, status, trust_level,
  // capabilities, metadata, public_key_jwk); kya_score, status_reason, external_agent_ref stay
  // NULL and created_at/updated_at take their defaults, as on the API's insert.
  const agent = `${agentId}\t${c.principalId}\t${c.clientId}\t${c.programId}\tbench agent ${i}\t${did}\tkey\tACTIVE\tREGISTERED\t{PURCHASE}\t\\N\t\\N\n`;
  const m = AGENT_MANDATE;
  const perTx = units(m.maxPerTransaction) as Units;
  const daily = units(m.maxDaily);
  const monthly = units(m.maxMonthly);
  const blockedMccs = m.blockedMccs === undefined ? null : [...new Set(m.blockedMccs)];
  const blockedCountries = m.blockedCountries === undefined ? null : [...new Set(m.blockedCountries)];
  const currency = m.currency ?? 'USD';
  const mandateId = newId('mnd');
  const hash = mandateHashOf(c, agentId);
  const arr = (xs: readonly string[] | null) => (xs === null ? '\\N' : `{${xs.join(',')}}`);
  const num = (u: Units | null) => (u === null ? '\\N' : toDb(u));
  // mandates: (id, agent_id, principal_id, program_id, status, rails, currency, limits, lists,
  // crypto, valid_from, valid_until, mandate_hash); created_at takes its default.
  const mandate = `${mandateId}\t${agentId}\t${c.principalId}\t${c.programId}\tACTIVE\t{card}\t${currency}\t${toDb(perTx)}\t${num(daily)}\t${num(monthly)}\t\\N\t${arr(blockedMccs)}\t\\N\t${arr(blockedCountries)}\t\\N\t\\N\t\\N\t\\N\t${c.validFrom.toISOString()}\t${c.validUntil.toISOString()}\t${hash}\n`;
  return { agentId, agent, mandate };
}

async function copyLines(sql: postgres.Sql, statement: string, lines: readonly string[]): Promise<void> {
  const writable = await sql.unsafe(statement).writable();
  await pipeline(Readable.from(chunks(lines)), writable);
}

function* chunks(lines: readonly string[]): Generator<string> {
  for (let i = 0; i < lines.length; i += 1000) yield lines.slice(i, i + 1000).join('');
}

const AGENT_COLUMNS =
  'id, principal_id, client_id, program_id, name, did, did_method, status, trust_level, capabilities, metadata, public_key_jwk';
const MANDATE_COLUMNS =
  'id, agent_id, principal_id, program_id, status, rails, currency, max_amount_per_transaction, max_daily_amount, max_monthly_amount, allowed_mccs, blocked_mccs, allowed_countries, blocked_countries, allowed_chains, allowed_assets, allowed_counterparties, crypto, valid_from, valid_until, mandate_hash';

/**
 * Seeds `count` agents with a mandate each under the Principal, in COPY batches of 50 000 (each
 * batch its own transaction, agents before their mandates). Returns the agent ids in order.
 */
export async function seedAgents(
  databaseUrl: string,
  s: AgentsSetup,
  count: number,
  log: (line: string) => void,
): Promise<string[]> {
  const sql = connectDb(databaseUrl);
  try {
    const now = Date.now();
    const c: SeedContext = {
      principalId: s.principal.principalId,
      clientId: s.client.clientId,
      programId: s.client.programId,
      validFrom: new Date(now),
      validUntil: new Date(now + 365 * 86_400_000),
    };
    const ids: string[] = [];
    const started = performance.now();
    for (let from = 0; from < count; from += COPY_BATCH) {
      const n = Math.min(COPY_BATCH, count - from);
      const keys = randomBytes(32 * n);
      const agents: string[] = new Array(n);
      const mandates: string[] = new Array(n);
      for (let j = 0; j < n; j++) {
        const r = seedRows(c, from + j, keys.subarray(32 * j, 32 * j + 32));
        ids.push(r.agentId);
        agents[j] = r.agent;
        mandates[j] = r.mandate;
      }
      await copyLines(sql, `copy agents (${AGENT_COLUMNS}) from stdin`, agents);
      await copyLines(sql, `copy mandates (${MANDATE_COLUMNS}) from stdin`, mandates);
      if (from === 0) await checkAgainstApi(sql, s, ids[0] as string);
      log(`  seeded ${from + n} agents (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
    await sql`analyze agents`;
    await sql`analyze mandates`;
    return ids;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const PER_ROW_AGENT = new Set(['id', 'name', 'did', 'created_at', 'updated_at']);
const PER_ROW_MANDATE = new Set(['id', 'agent_id', 'valid_from', 'valid_until', 'mandate_hash', 'created_at']);

/**
 * Compares a seeded agent and mandate with the ones the API created (every column but the
 * per-row ones), and recomputes the API mandate's hash with the seeding code's terms.
 */
async function checkAgainstApi(sql: postgres.Sql, s: AgentsSetup, seededAgentId: string): Promise<void> {
  const [apiAgent] = await sql<Record<string, unknown>[]>`select * from agents where id = ${s.referenceAgentId}`;
  const [seedAgent] = await sql<Record<string, unknown>[]>`select * from agents where id = ${seededAgentId}`;
  const [apiMandate] = await sql<Record<string, unknown>[]>`
    select * from mandates where agent_id = ${s.referenceAgentId}`;
  const [seedMandate] = await sql<Record<string, unknown>[]>`select * from mandates where agent_id = ${seededAgentId}`;
  if (!apiAgent || !seedAgent || !apiMandate || !seedMandate) throw new Error('seed check: rows not found');
  const diff: string[] = [];
  const compare = (table: string, a: Record<string, unknown>, b: Record<string, unknown>, skip: Set<string>) => {
    const cols = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const col of cols) {
      if (skip.has(col)) continue;
      if (JSON.stringify(a[col]) !== JSON.stringify(b[col])) {
        diff.push(`${table}.${col}: API ${JSON.stringify(a[col])}, seeded ${JSON.stringify(b[col])}`);
      }
    }
  };
  compare('agents', apiAgent, seedAgent, PER_ROW_AGENT);
  compare('mandates', apiMandate, seedMandate, PER_ROW_MANDATE);
  for (const [row, what] of [
    [apiAgent, 'API'],
    [seedAgent, 'seeded'],
  ] as const) {
    if (!/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}$/.test(String(row.did))) diff.push(`${what} did ${row.did}`);
    if (!/^agt_[0-9A-Za-z]{24}$/.test(String(row.id))) diff.push(`${what} id ${row.id}`);
  }
  // The seeding code's hash over the API row's own terms must be the hash the API stored.
  const c: SeedContext = {
    principalId: String(apiMandate.principal_id),
    clientId: s.client.clientId,
    programId: s.client.programId,
    validFrom: apiMandate.valid_from as Date,
    validUntil: apiMandate.valid_until as Date,
  };
  const again = mandateHashOf(c, String(apiMandate.agent_id));
  if (again !== apiMandate.mandate_hash) diff.push(`mandate_hash: API ${apiMandate.mandate_hash}, recomputed ${again}`);
  if (diff.length > 0) throw new Error(`seeded rows differ from the API's:\n  ${diff.join('\n  ')}`);
}

/** The /authorize body for one agent (approved under AGENT_MANDATE). */
function authorizeBody(agentId: string, i: number): string {
  const cents = 100 + ((i * 7919) % 9900);
  return JSON.stringify({
    agent_id: agentId,
    amount: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
    currency: 'USD',
    merchant_name: 'Corner Grocery',
    merchant_id: 'mer_corner_grocery',
    mcc: '5411',
    country: 'US',
    intent_context: { intent_type: 'purchase', task_reference: 'weekly-groceries' },
  });
}

export interface DriveProgress {
  /** Answers received so far (each one a distinct agent). */
  readonly touched: number;
  readonly elapsedSeconds: number;
}

export interface DriveOptions {
  readonly host: string;
  readonly port: number;
  readonly hostHeader: string;
  readonly apiKey: string;
  readonly agents: readonly string[];
  readonly connections: number;
}

/**
 * Sends POST /api/v1/authorize once for every agent, in order, keeping one request in flight
 * on each connection; `progress()` tells how far it got (for the caller's sampler).
 */
export function driveAgents(o: DriveOptions): { progress: () => DriveProgress; done: Promise<LoadResult> } {
  const hist = newHistogram();
  const byLabel: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  let next = 0;
  let completed = 0;
  let connectionErrors = 0;
  let lost = 0;
  const started = performance.now();
  const conns: BenchConnection[] = [];
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });

  const send = (conn: BenchConnection) => {
    if (next >= o.agents.length) {
      if (completed + lost >= o.agents.length) finish();
      return;
    }
    const i = next++;
    const bytes = buildRequest(
      'POST',
      o.hostHeader,
      '/api/v1/authorize',
      { 'x-api-key': o.apiKey },
      authorizeBody(o.agents[i] as string, i),
    );
    conn.send({ kind: 'agent', bytes }, performance.now());
  };
  const onComplete = (c: Completion, conn: BenchConnection) => {
    const now = performance.now();
    completed++;
    hist.recordValue(Math.max(1, Math.round((now - c.intendedAt) * 1000)));
    const label = classifyDecision(c);
    byLabel[label] = (byLabel[label] ?? 0) + 1;
    byStatus[String(c.status)] = (byStatus[String(c.status)] ?? 0) + 1;
    send(conn);
    if (completed + lost >= o.agents.length) finish();
  };
  const onError = (_err: Error, n: number, conn: BenchConnection) => {
    connectionErrors++;
    lost += n;
    const i = conns.indexOf(conn);
    if (i < 0) return;
    const fresh = new BenchConnection(o.host, o.port, true, onComplete, onError);
    conns[i] = fresh;
    fresh.ready().then(
      () => send(fresh),
      () => {},
    );
    if (completed + lost >= o.agents.length) finish();
  };

  const done = (async (): Promise<LoadResult> => {
    for (let i = 0; i < o.connections; i++) conns.push(new BenchConnection(o.host, o.port, true, onComplete, onError));
    await Promise.all(conns.map((c) => c.ready()));
    for (const c of conns) send(c);
    await finished;
    for (const c of conns) c.close();
    const seconds = (performance.now() - started) / 1000;
    return {
      mode: 'saturation',
      connections: o.connections,
      pipelining: 1,
      targetRate: null,
      warmup: { seconds: 0, requests: 0 },
      durationSeconds: Math.round(seconds * 10) / 10,
      sent: next,
      completed,
      throughputPerSecond: Math.round(completed / seconds),
      byStatus,
      byKind: { agent: byLabel },
      allByLabel: byLabel,
      connectionErrors,
      lost,
      maxBacklog: 0,
      latencyMs: summarise(hist),
      timeline: [],
    };
  })();
  return {
    progress: () => ({ touched: completed, elapsedSeconds: (performance.now() - started) / 1000 }),
    done,
  };
}
