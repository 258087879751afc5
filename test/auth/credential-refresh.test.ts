// The credential cache refreshes ahead (src/auth/credential-store.ts): a key in steady use is
// looked up again in the background once its entry is in the last fifth of its TTL, so it never waits for
// the database at the edge, while a change nobody was told of (no eviction heard) still stops
// the key within the TTL. A store of its own over the service's real databases, with a short
// TTL, counting the lookups it sends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialStore, isRejected } from '../../src/auth/credential-store.js';
import type { Databases, Sql } from '../../src/storage/db.js';
import { sleep } from '../fixtures/drills/instances.js';
import { query } from '../fixtures/engine-setup.js';
import { newPrincipal, type TestPrincipal } from '../fixtures/runtime-principal.js';
import { startTestServer, type TestServer } from '../fixtures/server.js';

const TTL_MS = 1000;

let server: TestServer;
let p: TestPrincipal;
let lookups = 0;

/** The service's databases, with every statement sent to the live one counted. */
function counting(dbs: Databases): Databases {
  const live = dbs.live;
  const counted = new Proxy(live, {
    apply(target, self, args: unknown[]) {
      const first = args[0] as { raw?: unknown } | undefined;
      if (Array.isArray(first) && first.raw !== undefined) lookups++;
      return Reflect.apply(target, self, args);
    },
  }) as Sql;
  return {
    ...dbs,
    live: counted,
    forEnv: (env) => (env === 'live' ? counted : dbs.forEnv(env)),
    exists: (env) => dbs.exists(env),
  };
}

beforeAll(async () => {
  server = await startTestServer();
  p = await newPrincipal(server);
});
afterAll(async () => {
  await server?.close();
});

describe('the credential cache', () => {
  it('refreshes a key in use in the background, so a use past the TTL does not wait for the database', async () => {
    const store = new CredentialStore(counting(server.app.services.dbs), { ttlMs: TTL_MS });
    const t0 = Date.now();
    const first = await store.resolveKey(p.apiKey);
    expect(isRejected(first)).toBe(false);
    expect(lookups).toBe(1);
    // Fresh: served from the cache, nothing sent.
    await store.resolveKey(p.apiKey);
    expect(lookups).toBe(1);
    // In the last fifth of the TTL: served from the cache, one lookup sent behind it.
    await sleep(t0 + TTL_MS * 0.9 - Date.now());
    const before = lookups;
    expect(isRejected(await store.resolveKey(p.apiKey))).toBe(false);
    expect(lookups).toBe(before + 1);
    // Once at a time: a second hit while it is in flight sends nothing more.
    await store.resolveKey(p.apiKey);
    expect(lookups).toBe(before + 1);
    // Past the first lookup's TTL: the refreshed entry (far from its own TTL's end) serves it,
    // and nothing is looked up.
    await sleep(t0 + TTL_MS + 150 - Date.now());
    const past = lookups;
    expect(isRejected(await store.resolveKey(p.apiKey))).toBe(false);
    expect(lookups).toBe(past);
  });

  it('drops a key revoked behind its back at the refresh, before the TTL ends', async () => {
    const q = await newPrincipal(server);
    // No listen(): this store hears of no eviction, only its own lookups tell it.
    const ttl = 2 * TTL_MS;
    const store = new CredentialStore(server.app.services.dbs, { ttlMs: ttl });
    const cachedAt = Date.now();
    const found = await store.resolveKey(q.apiKey);
    expect(isRejected(found)).toBe(false);
    const id = (found as { id: string }).id;
    const revokedAt = Date.now();
    await query(
      server,
      'live',
      (sql) => sql`update credentials set status = 'revoked', revoked_at = now() where id = ${id}`,
    );
    // The entry serves until the refresh it starts in its TTL's last fifth finds the revocation
    // and drops it: the key stops before the TTL would have dropped it (without the refresh it
    // stops only at cachedAt + ttl).
    let refused: unknown = null;
    while (Date.now() - revokedAt < ttl * 2) {
      const r = await store.resolveKey(q.apiKey);
      if (isRejected(r)) {
        refused = r;
        break;
      }
      await sleep(20);
    }
    expect(refused).toMatchObject({ rejected: 'revoked' });
    expect(Date.now() - cachedAt).toBeLessThan(ttl - 150);
  });
});
