// The database going away mid-service: POST /authorize answers the safe decision (200 DECLINE,
// system_unavailable, every response field present) instead of an error, records nothing, and
// recovers by itself once the database is reachable again, with no restart.
// The service reaches PostgreSQL through a TCP proxy the test can cut, as a network partition
// or a database crash would; the proxy always fronts the real PostgreSQL server.
import { randomBytes } from 'node:crypto';
import { createServer, type Server, Socket } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, RESPONSE_FIELDS, setup } from '../fixtures/engine-setup.js';
import { issuePrincipalKey } from '../fixtures/provision.js';
import { expectEnvelope, PG_BASE_URL, request, startTestServer, type TestServer } from '../fixtures/server.js';

class CuttableProxy {
  readonly #server: Server;
  readonly #pairs = new Set<[Socket, Socket]>();
  #down = false;
  #frozen = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      if (this.#down) {
        client.destroy();
        return;
      }
      const upstream = new Socket();
      upstream.connect(this.target.port, this.target.host);
      const pair: [Socket, Socket] = [client, upstream];
      this.#pairs.add(pair);
      for (const s of pair) {
        s.on('close', () => {
          this.#pairs.delete(pair);
          client.destroy();
          upstream.destroy();
        });
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      if (!this.#frozen) this.#flow(pair);
    });
  }

  #flow([client, upstream]: [Socket, Socket]): void {
    client.pipe(upstream);
    upstream.pipe(client);
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as { port: number }).port;
  }

  /** Drops every connection and refuses new ones (a crashed server). */
  cut(): void {
    this.#down = true;
    for (const [a, b] of this.#pairs) {
      a.destroy();
      b.destroy();
    }
  }

  restore(): void {
    this.#down = false;
  }

  /** Keeps every connection open but passes no byte either way (a hung server). */
  freeze(): void {
    this.#frozen = true;
    for (const [client, upstream] of this.#pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  thaw(): void {
    this.#frozen = false;
    for (const pair of this.#pairs) this.#flow(pair);
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

const base = new URL(PG_BASE_URL);
const proxy = new CuttableProxy({ host: base.hostname, port: Number(base.port || 5432) });
const dbName = `t_down_${randomBytes(5).toString('hex')}`;
let server: TestServer;
let warm: EngineFixture;
let cold: EngineFixture;

beforeAll(async () => {
  await proxy.listen();
  const url = new URL(PG_BASE_URL);
  url.port = String(proxy.port);
  url.pathname = `/${dbName}`;
  server = await startTestServer({ DATABASE_URL: url.toString() });
  warm = await setup(server);
  cold = await setup(server);
});

afterAll(async () => {
  await server?.close();
  await proxy.close();
  const admin = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  try {
    for (const n of [dbName, `${dbName}_sandbox`]) await admin.unsafe(`drop database if exists "${n}" with (force)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
});

/** Waits until no session of the service holds a transaction open (the abandoned ones ended). */
async function noOpenTransactions(): Promise<void> {
  const sql = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
  try {
    const until = Date.now() + 10_000;
    for (;;) {
      const [r] = await sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = ${dbName} and xact_start is not null and pid <> pg_backend_pid()`;
      if (r?.n === 0 || Date.now() > until) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function keyedRows(keys: string[]): Promise<number> {
  const sql = postgres(`${PG_BASE_URL}/${dbName}`, { max: 1, onnotice: () => {} });
  try {
    const [r] = await sql<{ n: number }[]>`
      select count(*)::int as n from authorizations where idempotency_key in ${sql(keys)}`;
    return r?.n ?? -1;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function approvedRows(agentId: string): Promise<{ n: number; unavailable: number }> {
  const sql = postgres(`${PG_BASE_URL}/${dbName}`, { max: 1, onnotice: () => {} });
  try {
    const [r] = await sql<{ n: number; unavailable: number }[]>`
      select count(*)::int as n,
        (count(*) filter (where 'system_unavailable' = any(reason_codes)))::int as unavailable
      from authorizations where agent_id = ${agentId}`;
    return r as { n: number; unavailable: number };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function untilDecided(call: () => ReturnType<typeof authorize>): ReturnType<typeof authorize> {
  const until = Date.now() + 10_000;
  let res = await call();
  while ((res.body.reason_codes as string[]).includes('system_unavailable') && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    res = await call();
  }
  return res;
}

describe('database unavailable', () => {
  it('answers safe decisions while the database is away, then recovers by itself', async () => {
    const before = await authorize(server, warm.apiKey, authorizeBody(warm.agentId, { amount: '10.00' }));
    expect(before.body.decision).toBe('APPROVE');
    // Warm the credential caches of the cold fixture too (authentication is not under test).
    await authorize(server, cold.apiKey, { ...authorizeBody(cold.agentId), amount: '0' });

    const fresh = await issuePrincipalKey(server, warm.principalId, 'live');
    proxy.cut();
    const during = [];
    // A key the service has never seen cannot be checked while the database is away: still the
    // safe decision, not an error.
    during.push(await authorize(server, fresh.apiKey, authorizeBody(warm.agentId, { amount: '10.00' })));
    for (let i = 0; i < 4; i++) {
      during.push(
        await authorize(
          server,
          warm.apiKey,
          authorizeBody(warm.agentId, { amount: '10.00', idempotency_key: `down-key-${i}` }),
        ),
      );
    }
    during.push(await authorize(server, cold.apiKey, authorizeBody(cold.agentId, { amount: '10.00' })));
    for (const res of during) {
      expect(res.status).toBe(200);
      for (const field of RESPONSE_FIELDS) expect(res.body).toHaveProperty(field);
      expect(res.body.decision).toBe('DECLINE');
      expect(res.body.reason_codes).toEqual(['system_unavailable']);
      expect(res.body.authorization_id).toBeNull();
    }
    // Other endpoints answer a retryable 503 in the envelope, not an anonymous 500.
    const read = await request(server, 'GET', `/api/v1/agents/${warm.agentId}`, { apiKey: warm.apiKey });
    expectEnvelope(read, 503, 'service_unavailable');
    expect(read.headers.get('retry-after')).toBe('1');
    expectEnvelope(await request(server, 'GET', '/ready'), 503, 'service_unavailable');

    proxy.restore();
    // Each shard reconnects on its own; poll until it decides again (safe answers count nothing).
    const after = await untilDecided(() =>
      authorize(server, warm.apiKey, authorizeBody(warm.agentId, { amount: '10.00', idempotency_key: 'down-key-0' })),
    );
    // The key used during the outage is decided afresh: nothing was recorded under it.
    expect(after.body.decision).toBe('APPROVE');
    expect(String(after.body.authorization_id)).toMatch(/^auth_/);
    // Only the two approvals count; the safe decisions were never recorded.
    expect(after.body.daily_count_used).toBe(2);
    expect(after.body.daily_amount_used).toBe(20);
    expect(await approvedRows(warm.agentId)).toEqual({ n: 2, unavailable: 0 });

    const coldAfter = await untilDecided(() =>
      authorize(server, cold.apiKey, authorizeBody(cold.agentId, { amount: '10.00' })),
    );
    expect(coldAfter.body.decision).toBe('APPROVE');
    expect(coldAfter.body.daily_count_used).toBe(1);
  });

  it('answers safe decisions while the database hangs, and records none of them once it answers again', async () => {
    const f = await setup(server);
    expect((await authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '1.00' }))).body.decision).toBe(
      'APPROVE',
    );
    proxy.freeze();
    const keys = Array.from({ length: 6 }, (_, i) => `hung-key-${i}`);
    // Every request is answered although no query can complete (deadlines, then the breaker).
    const during = await Promise.all(
      keys.map((k) => authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '1.00', idempotency_key: k }))),
    );
    for (const res of during) {
      expect(res.status).toBe(200);
      expect(res.body.reason_codes).toEqual(['system_unavailable']);
    }
    proxy.thaw();
    const after = await untilDecided(() => authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: '1.00' })));
    expect(after.body.decision).toBe('APPROVE');
    // The abandoned commits rolled back when the database answered: nothing of the hung period.
    await noOpenTransactions();
    expect(await keyedRows(keys)).toBe(0);
    expect(after.body.daily_count_used).toBe(2);
  });
});
