// A Principal budget across two instances on one PostgreSQL database and one NATS server
// (docs/principal-budget.md, docs/scale-out.md): the agents of one Principal are owned by both
// instances; concurrent approvals sent to both never pass the budget. Then one instance stops in
// the middle of a stream (its shards, with the agents' slices, move to the other): nothing of
// the escrow is lost or doubled, and the fleet ends having spent exactly the budget.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addAgent,
  approvedInDb,
  cents,
  checkNeverOver,
  drain,
  expectRecorded,
  type Fleet,
  fleetOn,
  stream,
} from '../fixtures/drills/budget-fleet.js';
import { shardsShared, startPair } from '../fixtures/drills/instances.js';
import { deleteStream, ownStream } from '../fixtures/drills/nats-stream.js';
import type { TestServer } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { shardOf } = (await import(
  `${DIST}decision/model/shard-of.js`
)) as typeof import('../../dist/src/decision/model/shard-of.js');

const ENV = {
  ...ownStream('budget'),
  SECRETS_KEY: randomBytes(32).toString('base64'),
  WORKERS: '2',
};

let a: TestServer;
let b: TestServer | null = null;

beforeAll(async () => {
  ({ a, b } = await startPair(ENV));
  await shardsShared(a.dbUrls.live, 30_000);
}, 90_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
  await deleteStream(ENV.NATS_STREAM);
});

async function withDb<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(a.dbUrls.live, { max: 1, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The instance owning each agent's virtual shard. */
function ownersOf(agents: readonly string[]): Promise<string[]> {
  return withDb(async (sql) => {
    const shards = agents.map((x) => shardOf(x, 1024));
    const rows = await sql<{ shard: number; owner: string }[]>`
      select shard, owner from shard_leases where shard in ${sql(shards)}`;
    const byShard = new Map(rows.map((r) => [r.shard, r.owner]));
    return shards.map((s) => byShard.get(s) ?? '');
  });
}

function check(fleet: Fleet, budget: string, amount: string): Promise<void> {
  return checkNeverOver(a.dbUrls.live, fleet, budget, amount);
}

describe('one Principal budget, agents owned by two instances', () => {
  it('never over the budget with both instances deciding, nor across a hand-over; exactly the budget in the end', async () => {
    // 99.00 / 0.99 = 100 approvals; 12 or more agents x 10 requests ask for 120 or more.
    const fleet = await fleetOn(a, '99.00', 12);
    const own = new Map<string, number>();
    for (const o of await ownersOf(fleet.agents)) own.set(o, (own.get(o) ?? 0) + 1);
    for (let i = 0; own.size < 2 || Math.min(...own.values()) < 3; i++) {
      const agent = await addAgent(a, fleet.apiKey, 100 + i);
      fleet.agents.push(agent);
      const [o] = await ownersOf([agent]);
      own.set(o as string, (own.get(o as string) ?? 0) + 1);
    }
    expect(own.size, 'agents owned by both instances').toBe(2);

    const servers = [a, b as TestServer];
    const t = await stream(fleet, '0.99', 10, 24, (i) => servers[i % 2] as TestServer);
    expect(t.other).toEqual([]);
    await check(fleet, '99.00', '0.99');
    await expectRecorded(a.dbUrls.live, t.approvedIds);

    // B stops (a rolling deploy) while requests stream to A: B's shards, and the slices of the
    // agents in them, move to A.
    const during = stream(fleet, '0.99', 4, 12, () => a);
    await new Promise((r) => setTimeout(r, 150));
    await (b as TestServer).close();
    b = null;
    const t2 = await during;
    expect(t2.other).toEqual([]);
    await expectRecorded(a.dbUrls.live, t2.approvedIds);
    await check(fleet, '99.00', '0.99');
    console.log(
      `principal budget, two instances: ${t.approved} + ${t2.approved} of 100 approved before the drain, ${t.budgetDeclines + t2.budgetDeclines} declined for the budget, ${t.unavailable + t2.unavailable} safe decisions`,
    );

    await drain(fleet, '0.99', () => a);
    await check(fleet, '99.00', '0.99');
    expect(cents((await approvedInDb(a.dbUrls.live, fleet.principalId)).sum)).toBe(9_900n);
  }, 180_000);
});
