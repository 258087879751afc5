// A Principal budget across a restart of the service (docs/principal-budget.md), on real
// PostgreSQL: the slices are rows, so a fleet that stops in the middle of its spending goes on
// after the restart where it stopped, never over the budget, and ends at exactly the budget.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { approvedInDb, cents, checkNeverOver, drain, fleetOn, stream } from '../fixtures/drills/budget-fleet.js';
import { type DrillServer, startOn } from '../fixtures/drills/instances.js';
import { PG_BASE_URL } from '../fixtures/server.js';

describe('a restart', () => {
  it('keeps every slice: the fleet goes on where it stopped and ends at exactly the budget', async () => {
    const url = `${PG_BASE_URL}/t_budget_restart_${randomBytes(5).toString('hex')}`;
    const env = { WORKERS: '1', SECRETS_KEY: randomBytes(32).toString('base64') };
    let first: DrillServer | null = await startOn(url, env);
    try {
      const fleet = await fleetOn(first, '20.00', 6);
      const t = await stream(fleet, '0.25', 8, 12, () => first as DrillServer);
      expect(t.other).toEqual([]);
      await first.close();
      first = null;
      const second = await startOn(url, env);
      try {
        await checkNeverOver(url, fleet, '20.00', '0.25');
        const t2 = await stream(fleet, '0.25', 8, 12, () => second);
        expect(t2.other).toEqual([]);
        await drain(fleet, '0.25', () => second);
        await checkNeverOver(url, fleet, '20.00', '0.25');
        expect(cents((await approvedInDb(url, fleet.principalId)).sum)).toBe(2_000n);
      } finally {
        await second.close();
      }
    } finally {
      await first?.close();
      const admin = postgres(`${PG_BASE_URL}/postgres`, { max: 1, onnotice: () => {} });
      const name = url.slice(url.lastIndexOf('/') + 1);
      for (const n of [name, `${name}_sandbox`]) await admin.unsafe(`drop database if exists "${n}" with (force)`);
      await admin.end({ timeout: 5 });
    }
  }, 180_000);
});
