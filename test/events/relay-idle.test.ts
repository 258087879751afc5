// An idle outbox relay. On embedded PGlite this process is the only writer and every write of
// outbox rows wakes the relay, so an idle relay polls about once a second (a 50 ms poll of an
// idle PGlite allocated ~1 MB/s and kept V8 from shrinking the heap: docs/benchmarks.md). On
// PostgreSQL the lease holder keeps its short poll for rows other instances commit. Either way
// a row written with no wake-up at all is relayed by the poll.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, insertOutbox } from '../fixtures/outbox.js';
import { EMBEDDED, startTestServer, type TestServer } from '../fixtures/server.js';

const QUIET_MS = 3_000;

describe('outbox relay when nothing happens', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  }, 120_000);
  afterAll(async () => server?.close());

  it(`polls ${EMBEDDED ? 'about once a second on embedded PGlite' : 'on its short period on PostgreSQL'}`, async () => {
    const relay = server.app.services.events.relays.live;
    // Past the back-off from the start-up writes.
    await new Promise((r) => setTimeout(r, 1_500));
    const before = relay.rounds;
    await new Promise((r) => setTimeout(r, QUIET_MS));
    const rounds = relay.rounds - before;
    if (EMBEDDED) expect(rounds).toBeLessThanOrEqual(QUIET_MS / 1000 + 2);
    // 50 ms at most between rounds, less the time the rounds themselves take on a busy machine.
    else expect(rounds).toBeGreaterThanOrEqual(QUIET_MS / 200);
  });

  it('relays a row that no write woke it for', async () => {
    const relay = server.app.services.events.relays.live;
    const before = relay.published;
    await insertOutbox(server.dbUrls.live, 'cli_idle', 'prn_idle', [envelope('test.idle', { n: 1 })]);
    const deadline = Date.now() + 15_000;
    while (relay.published === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(relay.published).toBe(before + 1);
  });
});
