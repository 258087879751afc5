// A date-time the schema's RFC 3339 check accepts but JavaScript or PostgreSQL cannot hold is a
// 422 naming the field, not a 500 from the database or the serialiser: year 0000 (PostgreSQL has
// no year zero), a leap second (Date cannot parse 23:59:60), and 9999-12-31T23:59:59-23:59 (year
// 10000 in UTC, written "+010000-..." by toISOString). Each was a 500 on POST /api/v1/mandates,
// POST /api/v1/agents/{id}/mandates or GET /admin/v1/security-log?since=.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineFixture, setup } from '../fixtures/engine-setup.js';
import { mandateBody } from '../fixtures/onboarding.js';
import { expectEnvelope, type HttpResult, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let f: EngineFixture;

beforeAll(async () => {
  server = await startTestServer();
  f = await setup(server);
});
afterAll(async () => {
  await server?.close();
});

const UNREPRESENTABLE = ['0000-01-01T00:00:00Z', '2030-06-30T23:59:60Z', '9999-12-31T23:59:59-23:59'];

function expectFieldError(res: HttpResult, field: string): void {
  expectEnvelope(res, 422, 'validation_error');
  expect(
    (res.body.errors as { field: string }[]).map((e) => e.field),
    res.text,
  ).toContain(field);
}

describe('date-times JavaScript or PostgreSQL cannot hold', () => {
  for (const t of UNREPRESENTABLE) {
    it(`POST /api/v1/mandates: valid_from ${t} and valid_until ${t} are 422`, async () => {
      const from = await request(server, 'POST', '/api/v1/mandates', {
        apiKey: f.apiKey,
        body: {
          agent_id: f.agentId,
          valid_from: t,
          valid_until: '2099-01-01T00:00:00Z',
          max_amount_per_transaction: '10.00',
        },
      });
      expectFieldError(from, 'valid_from');
      const until = await request(server, 'POST', '/api/v1/mandates', {
        apiKey: f.apiKey,
        body: { agent_id: f.agentId, valid_until: t, max_amount_per_transaction: '10.00' },
      });
      expectFieldError(until, 'valid_until');
    });

    it(`POST /api/v1/agents/{id}/mandates: valid_until ${t} is 422`, async () => {
      const res = await request(server, 'POST', `/api/v1/agents/${f.agentId}/mandates`, {
        apiKey: f.client.liveKey,
        body: mandateBody({ valid_until: t }),
      });
      expectFieldError(res, 'valid_until');
    });

    it(`GET /admin/v1/security-log: since=${t} is 422`, async () => {
      const res = await request(server, 'GET', `/admin/v1/security-log?since=${encodeURIComponent(t)}`, {
        adminKey: server.adminKey,
      });
      expectFieldError(res, 'since');
    });
  }

  it('the edges of the range are accepted: 9999-12-31T23:59:59Z and an offset within year 9999', async () => {
    for (const t of ['9999-12-31T23:59:59Z', '9999-12-31T12:00:00-11:00']) {
      const res = await request(server, 'POST', `/api/v1/agents/${f.agentId}/mandates`, {
        apiKey: f.client.liveKey,
        body: mandateBody({ valid_until: t }),
      });
      expect(res.status, res.text).toBe(201);
    }
    const since = await request(server, 'GET', '/admin/v1/security-log?since=0001-01-01T00:00:00Z', {
      adminKey: server.adminKey,
    });
    expect(since.status, since.text).toBe(200);
  });
});
