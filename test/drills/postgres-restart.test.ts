// Drill: PostgreSQL restarted during a stream of authorizations. On a private PostgreSQL
// instance (never the shared one): while it is down /authorize answers safe decisions
// (DECLINE, system_unavailable), never a 5xx; every decision answered as committed is in the
// audit log; once PostgreSQL is back the service approves again without being restarted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizeSetup, authorizeSetup } from '../fixtures/authorize-setup.js';
import { auditIds, authorizeStream, type DrillServer, sleep, startOn } from '../fixtures/drills/instances.js';
import { OwnPostgres } from '../fixtures/drills/own-postgres.js';

let pg: OwnPostgres;
let server: DrillServer;
let setup: AuthorizeSetup;

beforeAll(async () => {
  pg = await OwnPostgres.create();
  server = await startOn(`${pg.baseUrl}/asas`);
  setup = await authorizeSetup(server);
}, 90_000);
afterAll(async () => {
  await server?.close();
  await pg?.destroy();
}, 60_000);

describe('drill: PostgreSQL restart under load', () => {
  it('answers safe decisions while it is down, loses no answered decision and recovers by itself', async () => {
    const stream = authorizeStream(server.url, setup.principalKey, setup.agentId, 4);
    await sleep(1500);
    await pg.stop();
    const downAt = Date.now();
    await sleep(3000);
    const restartAt = Date.now();
    await pg.start();
    // Wait (bounded) for an approval decided after the restart.
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !stream.answers.some((a) => a.sentAt > restartAt && a.decision === 'APPROVE')) {
      await sleep(100);
    }
    await sleep(500);
    await stream.stop();

    const answers = stream.answers;
    expect(stream.transportErrors).toEqual([]);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    // Every answer is a decision; only a safe decline (not recorded) may come without an id.
    expect(answers.filter((a) => a.decision === null)).toEqual([]);
    expect(answers.filter((a) => a.id === null && !a.reasonCodes.includes('system_unavailable'))).toEqual([]);

    const before = answers.filter((a) => a.answeredAt < downAt);
    expect(before.some((a) => a.decision === 'APPROVE')).toBe(true);
    // Sent after the database was gone and answered before it came back: all safe declines.
    const whileDown = answers.filter((a) => a.sentAt > downAt + 200 && a.answeredAt < restartAt);
    expect(whileDown.length).toBeGreaterThan(0);
    for (const a of whileDown) {
      expect(a.decision).toBe('DECLINE');
      expect(a.reasonCodes).toContain('system_unavailable');
    }
    // Recovery without a restart of ours.
    expect(answers.some((a) => a.sentAt > restartAt && a.decision === 'APPROVE')).toBe(true);

    // No answered decision lost: every decision not answered as a safe decline is in the log.
    const ids = await auditIds(`${pg.baseUrl}/asas`);
    const committed = answers.filter((a) => !a.reasonCodes.includes('system_unavailable'));
    expect(committed.length).toBeGreaterThan(0);
    expect(committed.filter((a) => !ids.has(a.id as string)).map((a) => a.id)).toEqual([]);
  }, 90_000);
});
