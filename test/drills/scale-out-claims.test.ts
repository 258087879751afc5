// Background work is claimed when instances share one database (docs/background-claims.md):
// two service processes on one PostgreSQL database and one NATS JetStream stream, each agent's
// authorizations spread over both, one after another and in simultaneous pairs. Every outbox
// event lands on the stream once (one relay holds the database's lease), every webhook gets
// each event once, and a failing receiver sees exactly one attempt per retry slot (each pending
// delivery is held by one instance). Then the instance that holds the relay lease and pending
// retries is SIGKILLed: after the leases expire the survivor relays the new events and makes
// the dead instance's next retry slots, once each.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBody } from '../fixtures/authorize-setup.js';
import { NATS_URL, storedMessages } from '../fixtures/drills/nats-stream.js';
import { type ServiceProcess, startServiceProcess } from '../fixtures/drills/service-process.js';
import { sharedDatabase } from '../fixtures/drills/shared-database.js';
import { onboardAgent } from '../fixtures/onboarding.js';
import { issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { request } from '../fixtures/server.js';
import { type ReceivedRequest, type Receiver, startReceiver } from '../fixtures/webhook-receiver.js';

const DB = sharedDatabase('claims');
const NATS = DB.nats;
const RETRY_SCHEDULE = [500, 6_000, 500, 500, 500];
const ENV = {
  ...DB.env,
  WORKERS: '1',
  WEBHOOK_URL_POLICY: 'any',
  WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE.join(','),
  // The receivers answer after 700 ms; with a 1 s timeout a loaded machine made some attempts
  // time out at the dispatcher after the receiver had them, and the retry delivered them twice
  // (at-least-once after a timeout, not a claim failure). 3 s leaves room.
  WEBHOOK_TIMEOUT_MS: '3000',
  WEBHOOK_CLAIM_LEASE_MS: '5000',
  WEBHOOK_DISABLE_AFTER: '100000',
  OUTBOX_RELAY_LEASE_MS: '2000',
};
const AGENTS = 4;

let a: ServiceProcess;
let b: ServiceProcess;
let sql: postgres.Sql;
let nc: NatsConnection;
let good: Receiver;
let flaky: Receiver;
/** How the flaky receiver answers: fail each (path, event) twice then succeed, fail all, or succeed. */
let flakyMode: 'twice' | 'all' | 'none' = 'twice';
const keyOf = (r: ReceivedRequest) => `${r.path} ${String(r.headers['webhook-id'])}`;
/** Every publish to the stream's subjects as core NATS sees it (duplicates the stream drops included). */
const publishes = new Map<string, number>();
const tenants: { agentId: string; apiKey: string; path: string; goodHook: string; flakyHook: string }[] = [];

beforeAll(async () => {
  // Slow receivers (700 ms of WEBHOOK_TIMEOUT_MS 3000): each attempt is in flight, its row
  // due, long enough for another instance's sweep to meet it; a claim keeps it out.
  const slow = (status: number) => ({ status, delayMs: 700 });
  good = await startReceiver(() => slow(200));
  flaky = await startReceiver((req) => {
    if (flakyMode === 'all') return slow(503);
    if (flakyMode === 'none') return slow(200);
    const earlier = flaky.requests.filter((r) => keyOf(r) === keyOf(req)).length;
    return slow(earlier <= 2 ? 503 : 200);
  });
  // One after the other: the first applies the migrations, the second finds it live on NATS.
  a = await startServiceProcess(ENV);
  b = await startServiceProcess(ENV);
  sql = postgres(DB.databaseUrl, { max: 2, onnotice: () => {} });
  nc = await connect({ servers: NATS_URL });
  nc.subscribe(`${NATS.NATS_SUBJECT_PREFIX}.>`, {
    callback: (_err, m) => {
      const id = m.headers?.get('Nats-Msg-Id') ?? '';
      publishes.set(id, (publishes.get(id) ?? 0) + 1);
    },
  });
  await nc.flush();

  const target = { url: a.url, adminKey: DB.adminKey };
  const client = await provisionClient(target);
  for (let i = 0; i < AGENTS; i++) {
    // Onboarded and hooked up through either instance.
    const via = i % 2 === 0 ? a : b;
    const onboarded = await onboardAgent(via, client.liveKey, client.programId);
    const { apiKey } = await issuePrincipalKey(target, onboarded.principalId, 'live');
    const path = `/p${i}`;
    const hooks: string[] = [];
    for (const receiver of [good, flaky]) {
      const res = await request(via, 'POST', '/api/v1/webhooks', {
        apiKey,
        body: { url: `${receiver.url}${path}`, event_types: ['*'] },
      });
      expect(res.status, res.text).toBe(201);
      hooks.push((res.body.webhook as { id: string }).id);
    }
    tenants.push({
      agentId: onboarded.agentId,
      apiKey,
      path,
      goodHook: hooks[0] as string,
      flakyHook: hooks[1] as string,
    });
  }
}, 120_000);

afterAll(async () => {
  for (const p of [a, b]) await p?.cleanup();
  await sql?.end({ timeout: 5 });
  await nc?.close();
  await good?.close();
  await flaky?.close();
  await DB.drop();
});

async function authorize(via: ServiceProcess, t: (typeof tenants)[number], mcc: string): Promise<number> {
  const res = await fetch(`${via.url}/api/v1/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': t.apiKey },
    body: JSON.stringify(authorizeBody(t.agentId, '1.00', { mcc })),
    signal: AbortSignal.timeout(20_000),
  });
  await res.text();
  return res.status;
}

async function until(what: string, cond: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`not reached in ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every message of the stream: its Nats-Msg-Id, counted. */
async function streamCounts(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const m of await storedMessages(nc, NATS.NATS_STREAM)) {
    const id = m.header.get('Nats-Msg-Id');
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

async function outboxEventIds(): Promise<{ all: string[]; webhook: string[] }> {
  const rows = await sql<{ event_id: string; event_type: string }[]>`select event_id, event_type from outbox_events`;
  return {
    all: rows.map((r) => r.event_id),
    webhook: rows.filter((r) => r.event_type !== 'authorization.decided').map((r) => r.event_id),
  };
}

const unpublished = async () =>
  (await sql<{ n: number }[]>`select count(*)::int as n from outbox_batches where published_at is null`)[0]?.n ?? -1;

/** The stream holds every outbox event exactly once. */
async function expectPublishedOnce(): Promise<number> {
  await until('outbox relayed', async () => (await unpublished()) === 0, 30_000);
  const { all } = await outboxEventIds();
  let counts = await streamCounts();
  for (let i = 0; i < 50 && counts.size < all.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
    counts = await streamCounts();
  }
  expect([...counts.keys()].sort()).toEqual([...all].sort());
  expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
  return all.length;
}

interface AttemptRow {
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  attempt: number;
  succeeded: boolean;
}

describe('two instances on one database and one NATS', () => {
  it('publish each event once, deliver it once per webhook, and make one attempt per retry slot', async () => {
    const statuses: number[] = [];
    for (const t of tenants) {
      // One at a time, alternating instances: approvals (grocery) and declines (casino).
      for (let i = 0; i < 6; i++) statuses.push(await authorize(i % 2 === 0 ? a : b, t, i % 3 === 2 ? '7995' : '5411'));
      // In simultaneous pairs, one request on each instance.
      for (let i = 0; i < 3; i++) {
        statuses.push(...(await Promise.all([authorize(a, t, '5411'), authorize(b, t, '7995')])));
      }
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);

    const events = await expectPublishedOnce();
    // Not only stored once: published once. Core NATS sees every publish, also the ones the
    // stream would drop as duplicates; two relays over the same rows would show here.
    await nc.flush();
    expect(publishes.size).toBe(events);
    expect([...publishes.values()].filter((n) => n !== 1)).toEqual([]);
    const { webhook } = await outboxEventIds();
    expect(webhook.length).toBeGreaterThan(0);
    const expected = webhook.length * 2; // each webhook event to the good and the flaky hook of its Principal
    await until(
      'every delivery succeeded',
      async () =>
        (await sql<{ n: number }[]>`select count(*)::int as n from webhook_deliveries where status = 'succeeded'`)[0]
          ?.n === expected,
      40_000,
    );

    // The good receiver: each event once per webhook.
    const goodHits = new Map<string, number>();
    for (const r of good.requests) goodHits.set(keyOf(r), (goodHits.get(keyOf(r)) ?? 0) + 1);
    expect(goodHits.size).toBe(webhook.length);
    expect([...goodHits.values()].filter((n) => n !== 1)).toEqual([]);

    // The flaky receiver: 503, 503, 200 for each event, i.e. exactly the three slots, once each.
    const flakyHits = new Map<string, number[]>();
    for (const r of flaky.requests) {
      const list = flakyHits.get(keyOf(r)) ?? [];
      list.push(r.at);
      flakyHits.set(keyOf(r), list);
    }
    expect(flakyHits.size).toBe(webhook.length);
    expect([...flakyHits.values()].filter((l) => l.length !== 3)).toEqual([]);
    const attempts = await sql<AttemptRow[]>`
      select delivery_id::text, webhook_id, event_id, attempt, succeeded from webhook_delivery_attempts
      order by delivery_id, attempt`;
    const flakyHooks = new Set(tenants.map((t) => t.flakyHook));
    const perDelivery = new Map<string, number[]>();
    for (const r of attempts) perDelivery.set(r.delivery_id, [...(perDelivery.get(r.delivery_id) ?? []), r.attempt]);
    for (const r of attempts.filter((x) => x.attempt === 1)) {
      expect(perDelivery.get(r.delivery_id)).toEqual(flakyHooks.has(r.webhook_id) ? [1, 2, 3] : [1]);
    }
    expect(perDelivery.size).toBe(expected);

    // Both instances recorded and attempted deliveries; one relayed.
    const holders = await sql<{ claimed_by: string; n: number }[]>`
      select claimed_by, count(*)::int as n from webhook_deliveries group by claimed_by order by claimed_by`;
    const [lease] = await sql<
      { holder: string; epoch: string }[]
    >`select holder, epoch from work_leases where name = 'outbox'`;
    console.info(
      `scale-out claims: ${events} events published once, ${expected} deliveries, ${attempts.length} attempts; ` +
        `deliveries per instance ${JSON.stringify(holders)}; relay lease ${JSON.stringify(lease)}`,
    );
  });

  it('SIGKILL of the instance holding the relay lease and pending retries: the other finishes its work', async () => {
    const [mark] = await sql<{ id: string }[]>`select coalesce(max(id), 0)::text as id from webhook_delivery_attempts`;
    const fromAttempt = BigInt(mark?.id ?? '0');
    const hitsBefore = flaky.requests.length;
    const goodBefore = good.requests.length;
    const ids = new Map<string, ServiceProcess>();
    for (const row of await sql<{ id: string; pid: number }[]>`select id, pid from instances`) {
      ids.set(row.id, row.pid === a.child.pid ? a : b);
    }
    const [lease] = await sql<
      { holder: string; epoch: string }[]
    >`select holder, epoch from work_leases where name = 'outbox'`;
    const victim = ids.get(lease?.holder as string) as ServiceProcess;
    expect(victim).toBeDefined();
    const survivor = victim === a ? b : a;
    const survivorId = [...ids].find(([, p]) => p === survivor)?.[0] as string;

    // The victim takes over some finished deliveries again (redeliver through it claims them),
    // and new declines through both instances add deliveries held by either one.
    flakyMode = 'all';
    const redelivered: { t: (typeof tenants)[number]; eventId: string }[] = [];
    const done = await sql<{ webhook_id: string; event_id: string }[]>`
      select webhook_id, event_id from webhook_deliveries where status = 'succeeded'
        and webhook_id = any(${tenants.map((t) => t.flakyHook)}::text[]) order by id limit 6`;
    for (const d of done) {
      const t = tenants.find((x) => x.flakyHook === d.webhook_id) as (typeof tenants)[number];
      const res = await request(victim, 'POST', `/api/v1/webhooks/${d.webhook_id}/deliveries/${d.event_id}/redeliver`, {
        apiKey: t.apiKey,
      });
      expect(res.status, res.text).toBe(202);
      redelivered.push({ t, eventId: d.event_id });
    }
    const declines = await Promise.all(tenants.flatMap((t) => [authorize(a, t, '7995'), authorize(b, t, '7995')]));
    expect(declines.filter((s) => s !== 200)).toEqual([]);
    await until('new events relayed', async () => (await unpublished()) === 0, 30_000);
    const { webhook } = await outboxEventIds();
    const expected = webhook.length * 2;
    // Every pending delivery made its first two (failing) attempts and waits 6 s for the third.
    await until(
      'all pending deliveries at attempt 2',
      async () => {
        const [row] = await sql<{ total: number; pending: number; at2: number }[]>`
          select count(*)::int as total,
            count(*) filter (where status = 'pending')::int as pending,
            count(*) filter (where status = 'pending' and attempts = 2 and next_attempt_at > now() + interval '1 second')::int
              as at2
          from webhook_deliveries`;
        return row?.total === expected && row.pending > 0 && row.pending === row.at2;
      },
      30_000,
    );
    const held = await sql<{ id: string; claimed_by: string }[]>`
      select id::text, claimed_by from webhook_deliveries where status = 'pending'`;
    const victimHeld = held.filter((r) => r.claimed_by === lease?.holder).map((r) => r.id);
    expect(victimHeld.length).toBeGreaterThanOrEqual(redelivered.length);

    victim.child.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now();
    flakyMode = 'none';
    // Approvals through the survivor: relayed once its relay took the lease over.
    for (const t of tenants) expect(await authorize(survivor, t, '5411')).toBe(200);
    await until('relayed by the survivor', async () => (await unpublished()) === 0, 30_000);
    const relayTakeoverMs = Date.now() - killedAt;

    await until(
      'every delivery succeeded',
      async () =>
        (await sql<{ n: number }[]>`select count(*)::int as n from webhook_deliveries where status = 'succeeded'`)[0]
          ?.n === expected,
      40_000,
    );
    const takeoverMs = Date.now() - killedAt;
    await expectPublishedOnce();
    const [after] = await sql<
      { holder: string; epoch: string }[]
    >`select holder, epoch from work_leases where name = 'outbox'`;
    expect(after?.holder).toBe(survivorId);
    expect(BigInt(after?.epoch ?? '0')).toBeGreaterThan(BigInt(lease?.epoch ?? '0'));

    // The dead instance's deliveries were finished by the survivor.
    const finished = await sql<{ id: string; claimed_by: string; status: string; attempts: number }[]>`
      select id::text, claimed_by, status, attempts from webhook_deliveries where id = any(${victimHeld}::bigint[])`;
    expect(finished.map((r) => [r.claimed_by, r.status, r.attempts])).toEqual(
      victimHeld.map(() => [survivorId, 'succeeded', 3]),
    );
    // One attempt per retry slot since the mark: 1 and 2 failed, 3 succeeded, for every delivery
    // of this round, whichever instance made them; the receiver saw exactly those attempts.
    const attempts = await sql<AttemptRow[]>`
      select delivery_id::text, webhook_id, event_id, attempt, succeeded from webhook_delivery_attempts
      where id > ${fromAttempt.toString()}::bigint order by delivery_id, attempt`;
    const perDelivery = new Map<string, string[]>();
    for (const r of attempts) {
      perDelivery.set(r.delivery_id, [...(perDelivery.get(r.delivery_id) ?? []), `${r.attempt}:${r.succeeded}`]);
    }
    const flakyHooks = new Set(tenants.map((t) => t.flakyHook));
    for (const r of attempts.filter((x) => x.attempt === 1)) {
      expect(perDelivery.get(r.delivery_id)).toEqual(
        flakyHooks.has(r.webhook_id) ? ['1:false', '2:false', '3:true'] : ['1:true'],
      );
    }
    const flakyRound = flaky.requests.slice(hitsBefore);
    const flakyAttempts = attempts.filter((r) => flakyHooks.has(r.webhook_id));
    expect(flakyRound.length).toBe(flakyAttempts.length);
    const roundHits = new Map<string, number>();
    for (const r of flakyRound) roundHits.set(keyOf(r), (roundHits.get(keyOf(r)) ?? 0) + 1);
    expect([...roundHits.values()].filter((n) => n !== 3)).toEqual([]);
    // The good receiver got each new event once, and nothing it had already.
    const goodRound = good.requests.slice(goodBefore).map(keyOf);
    expect(new Set(goodRound).size).toBe(goodRound.length);
    const goodAll = good.requests.map(keyOf);
    expect(new Set(goodAll).size).toBe(goodAll.length);
    console.info(
      `scale-out claims after SIGKILL: ${victimHeld.length} deliveries held by the dead instance, all finished by the ` +
        `survivor ${takeoverMs} ms after the kill (retry due ~6 s after attempt 2, lease 3 s, sweep 5 s); ` +
        `relay lease epoch ${lease?.epoch} -> ${after?.epoch}, the survivor's approvals relayed ${relayTakeoverMs} ms ` +
        'after the kill (relay lease 2 s)',
    );
  });
});
