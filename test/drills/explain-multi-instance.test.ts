// POST /authorize/explain with two instances on one database (docs/scale-out.md): the dry run
// goes to the agent's owning actor like /authorize (forwarded when another instance owns it),
// agrees with the decision that follows through the other instance, and counts nothing there.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPairWithFleet } from '../fixtures/drills/instances.js';
import { deleteStream, ownStream } from '../fixtures/drills/nats-stream.js';
import { authorize, authorizeBody } from '../fixtures/engine-setup.js';
import { request, type TestServer } from '../fixtures/server.js';

const ENV = {
  ...ownStream('explain'),
  SECRETS_KEY: randomBytes(32).toString('base64'),
};

let a: TestServer;
let b: TestServer;
let apiKey: string;
let agents: string[];

async function forwarded(server: TestServer): Promise<number> {
  const res = await request(server, 'GET', '/metrics', { adminKey: server.adminKey });
  const line = res.text.split('\n').find((l) => l.startsWith('asas_cluster_authorizations_total{route="forwarded"}'));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

beforeAll(async () => {
  // Both instances own shards: every agent is owned by one and forwarded to by the other.
  ({ a, b, apiKey, agents } = await startPairWithFleet(ENV, 4, { perTransaction: '20.00', daily: '50.00' }));
}, 60_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
  await deleteStream(ENV.NATS_STREAM);
});

describe('explain on two instances', () => {
  it('is answered by the owner through either instance, agrees with the next decision and counts nothing', async () => {
    const before = (await forwarded(a)) + (await forwarded(b));
    for (const agentId of agents) {
      // Dry runs through both instances first: none of them may use the 50.00 daily cap.
      for (let i = 0; i < 10; i++) {
        const res = await request(i % 2 === 0 ? a : b, 'POST', '/api/v1/authorize/explain', {
          apiKey,
          body: authorizeBody(agentId),
        });
        expect(res.status, res.text).toBe(200);
        expect(res.body.decision, res.text).toBe('APPROVE');
      }
      // Then explain through one instance, decide through the other: the same answer, five
      // approvals of 10.00 and then the daily cap.
      for (let i = 0; i < 7; i++) {
        const [x, y] = i % 2 === 0 ? [a, b] : [b, a];
        const body = authorizeBody(agentId);
        const e = await request(x, 'POST', '/api/v1/authorize/explain', { apiKey, body });
        const d = await authorize(y, apiKey, body);
        expect(e.status, e.text).toBe(200);
        expect(d.status, d.text).toBe(200);
        expect(e.body.decision, e.text).toBe(d.body.decision);
        expect(e.body.reason_codes).toEqual(d.body.reason_codes);
        expect(d.body.decision).toBe(i < 5 ? 'APPROVE' : 'DECLINE');
        if (i >= 5) expect(d.body.reason_codes).toContain('daily_limit_exceeded');
      }
    }
    // Every agent was asked through its non-owner too: dry runs and decisions were forwarded.
    expect((await forwarded(a)) + (await forwarded(b))).toBeGreaterThanOrEqual(before + agents.length * 10);
  });
});
