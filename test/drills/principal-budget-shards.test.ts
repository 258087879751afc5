// A Principal budget under concurrent agents on different shard workers (docs/principal-budget.md),
// over HTTP on real PostgreSQL: many agents of one Principal, spread over three shard threads,
// send concurrent approvals that together ask for nearly twice the budget. The sum approved never
// passes the budget, every approval answered is in the audit log, the pool
// handed out exactly what the slices hold, and once the slack is recalled the fleet has spent
// exactly the budget, to the cent. Then an actor reload (a thresholds change) in the middle of a
// stream neither loses nor doubles escrow (a restart: principal-budget-restart.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approvedInDb,
  cents,
  checkNeverOver,
  drain,
  expectRecorded,
  type Fleet,
  fleetOn,
  stream,
} from '../fixtures/drills/budget-fleet.js';
import { request, startTestServer, type TestServer } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const { shardOf } = (await import(
  `${DIST}decision/model/shard-of.js`
)) as typeof import('../../dist/src/decision/model/shard-of.js');

const WORKERS = 3;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ WORKERS: String(WORKERS) });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

function check(fleet: Fleet, budget: string, amount: string): Promise<void> {
  return checkNeverOver(server.dbUrls.live, fleet, budget, amount);
}

describe('one Principal budget, agents on different shard workers', () => {
  it('concurrent approvals never pass the budget; the fleet spends exactly the budget', async () => {
    // 137.00 / 1.37 = 100 approvals; 12 agents x 15 requests ask for 180.
    const fleet = await fleetOn(server, '137.00', 12);
    const shards = new Set(fleet.agents.map((a) => shardOf(a, WORKERS)));
    expect(shards.size, 'the agents spread over the shard workers').toBeGreaterThanOrEqual(2);

    const t = await stream(fleet, '1.37', 15, 24, () => server);
    expect(t.other).toEqual([]);
    await check(fleet, '137.00', '1.37');
    await expectRecorded(server.dbUrls.live, t.approvedIds);
    console.log(
      `principal budget, ${WORKERS} shard workers: ${t.approved} of 100 approved under concurrency, ${t.budgetDeclines} declined for the budget, ${t.unavailable} safe decisions`,
    );

    const more = await drain(fleet, '1.37', () => server);
    await check(fleet, '137.00', '1.37');
    const final = await approvedInDb(server.dbUrls.live, fleet.principalId);
    expect(final.n).toBeGreaterThanOrEqual(t.approved + more);
    expect(cents(final.sum)).toBe(13_700n);
    const view = await request(server, 'GET', `/api/v1/principals/${fleet.principalId}/budget`, {
      apiKey: fleet.apiKey,
    });
    expect(view.body.usage).toMatchObject({ limit: 137, used: 137, held: 0, remaining: 0 });
  }, 120_000);

  it('actors reloading in the middle of a stream neither lose nor double escrow', async () => {
    const fleet = await fleetOn(server, '50.00', 8);
    const reloads = (async () => {
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 40));
        const res = await request(server, 'PUT', '/api/v1/thresholds', {
          apiKey: fleet.apiKey,
          body: { rapid_fire_max_count: 65_535 - i },
        });
        expect(res.status, res.text).toBe(200);
      }
    })();
    const t = await stream(fleet, '0.50', 20, 24, () => server);
    await reloads;
    expect(t.other).toEqual([]);
    await check(fleet, '50.00', '0.50');
    await drain(fleet, '0.50', () => server);
    await check(fleet, '50.00', '0.50');
    expect(cents((await approvedInDb(server.dbUrls.live, fleet.principalId)).sum)).toBe(5_000n);
  }, 120_000);
});
