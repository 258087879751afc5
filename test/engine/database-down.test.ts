// The database going away mid-service: POST /authorize answers the safe decision (200 DECLINE,
// system_unavailable, every response field present) instead of an error, records nothing, and
// recovers by itself once the database is reachable again, with no restart.
// The service reaches PostgreSQL through a TCP proxy the test can cut, as a network partition
// or a database crash would; the proxy always fronts the real PostgreSQL server.
import { randomBytes } from 'node:crypto';
import { createServer, type Server, Socket } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePrincipalKey } from '../fixtures/provision.js';
import { PG_BASE_URL, startTestServer, type TestServer } from '../helpers/server.js';
import { authorize, authorizeBody, type EngineFixture, RESPONSE_FIELDS, setup } from './support.js';

class CuttableProxy {
  readonly #server: Server;
  readonly #open = new Set<Socket>();
  #down = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      if (this.#down) {
        client.destroy();
        return;
      }
      const upstream = new Socket();
      upstream.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.#open.add(s);
        s.on('close', () => this.#open.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as { port: number }).port;
  }

  /** Drops every connection and refuses new ones. */
  cut(): void {
    this.#down = true;
    for (const s of this.#open) s.destroy();
  }

  restore(): void {
    this.#down = false;
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
});
