// Wrong-plane, revoked and unknown keys cost the same time to reject. Without care
// they differ by database work: a wrong-plane key is a valid key served from the credential
// cache (no lookup), a revoked key is one lookup that finds a row, an unknown key is a lookup
// (two, before the single-statement lookup) that finds nothing.
//
// Method. The service reaches PostgreSQL through a proxy that adds 10 ms each way, so one
// lookup more or less is a 20 ms difference, far above timing noise (on the embedded PGlite
// run there is no proxy; the same bound must hold). Samples are taken one request at a time,
// in rounds that visit the three classes in a fresh random order, so load drifting over the
// run (a 2-core machine shared with other suites) falls on every class alike. Each class is
// summarised by its median, which ignores the occasional GC pause or descheduled sample. The
// medians must agree within 8 ms: well under the 20 ms of one round trip, so a class doing
// one lookup more than another fails, and well over what the rejection floor leaves between
// classes (timer and scheduling jitter, about 1-2 ms even under load).
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrincipal, expectUnauthorized, unknownKey } from '../fixtures/auth-modules.js';
import { type LatencyProxy, startLatencyProxy } from '../fixtures/latency-proxy.js';
import { issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { EMBEDDED, PG_BASE_URL, request, startTestServer, type TestServer } from '../fixtures/server.js';

const ONE_WAY_MS = 10;
const REJECT_MIN_MS = 150;
const ROUNDS = 30;
const WARMUP_ROUNDS = 3;
const TOLERANCE_MS = 8;

let proxy: LatencyProxy | null = null;
let server: TestServer;
let dbName: string | null = null;
let principalId: string;
const keys: Record<'wrong_plane' | 'revoked' | 'unknown', () => string> = {
  wrong_plane: () => '',
  revoked: () => '',
  unknown: () => unknownKey(),
};

beforeAll(async () => {
  const env: Record<string, string> = {
    AUTH_REJECT_MIN_MS: String(REJECT_MIN_MS),
    AUTH_FAILURE_LIMIT: '0', // throttling off: this test fails on purpose, many times
    WORKERS: '1', // fewer pools to open through the slow proxy
  };
  if (!EMBEDDED) {
    const base = new URL(PG_BASE_URL);
    proxy = await startLatencyProxy({ host: base.hostname, port: Number(base.port || 5432) }, ONE_WAY_MS);
    dbName = `t_timing_${Date.now().toString(36)}`;
    const via = new URL(PG_BASE_URL);
    via.port = String(proxy.port);
    via.pathname = `/${dbName}`;
    env.DATABASE_URL = via.toString();
  }
  server = await startTestServer(env);
  const tenant = await provisionClient(server);
  principalId = await createPrincipal(server, tenant.liveKey, tenant.programId);
  const principalKey = (await issuePrincipalKey(server, principalId, 'live')).apiKey;
  const revokedClient = await provisionClient(server);
  await request(server, 'POST', `/admin/v1/credentials/${revokedClient.liveCredentialId}/revoke`, {
    adminKey: server.adminKey,
  });
  keys.wrong_plane = () => principalKey; // a valid Principal key on the Client plane
  keys.revoked = () => revokedClient.liveKey;
}, 180_000);
afterAll(async () => {
  await server?.close();
  await proxy?.close();
  if (dbName !== null) {
    const sql = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
    for (const n of [dbName, `${dbName}_sandbox`]) await sql.unsafe(`drop database if exists "${n}" with (force)`);
    await sql.end({ timeout: 5 });
  }
});

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe('rejection timing', () => {
  it('wrong-plane, revoked and unknown keys are rejected in indistinguishable time', async () => {
    const classes = Object.keys(keys) as (keyof typeof keys)[];
    const samples: Record<string, number[]> = { wrong_plane: [], revoked: [], unknown: [] };
    const path = `/api/v1/principals/${principalId}/agents`;
    for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
      for (const cls of shuffled(classes)) {
        const apiKey = keys[cls]();
        const t0 = performance.now();
        const res = await request(server, 'GET', path, { apiKey });
        const ms = performance.now() - t0;
        expectUnauthorized(res);
        if (round >= WARMUP_ROUNDS) samples[cls]?.push(ms);
      }
    }
    const medians = Object.fromEntries(classes.map((c) => [c, median(samples[c] as number[])]));
    const spread = Math.max(...Object.values(medians)) - Math.min(...Object.values(medians));
    // Nothing is left between the classes that one database round trip would leave...
    expect(spread, `medians (ms): ${JSON.stringify(medians)}`).toBeLessThanOrEqual(TOLERANCE_MS);
    // ...because every class waits for the same floor.
    for (const c of classes) expect(medians[c], c).toBeGreaterThanOrEqual(REJECT_MIN_MS);
  }, 120_000);
});
