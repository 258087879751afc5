// Page cursors are client input: one of the right shape whose timestamp is not a real instant
// (month 99, year 0000, Feb 30) reached PostgreSQL's ::timestamptz cast and answered 500 (503 on
// the authorization log); a webhook list cursor beyond bigint answered 500. Each is now 422
// validation_error naming the cursor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineFixture, setup } from '../fixtures/engine-setup.js';
import { provisionClient } from '../fixtures/provision.js';
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

const cursor = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const BAD_TIMES = ['2024-99-99T99:99:99.000000Z', '0000-01-01T00:00:00.000000Z', '2025-02-30T00:00:00.000000Z'];

function expectInvalidCursor(res: HttpResult): void {
  expectEnvelope(res, 422, 'validation_error');
  expect(
    (res.body.errors as { field: string }[]).map((e) => e.field),
    res.text,
  ).toContain('cursor');
}

describe('cursors that are not real instants', () => {
  for (const ts of BAD_TIMES) {
    it(`authorization log, clients list and security log refuse ${ts}`, async () => {
      expectInvalidCursor(
        await request(server, 'GET', `/api/v1/authorize/log/agent/${f.agentId}?cursor=${cursor(`${ts}|auth_x1`)}`, {
          apiKey: f.apiKey,
        }),
      );
      expectInvalidCursor(
        await request(server, 'GET', `/admin/v1/clients?cursor=${cursor(`${ts}|cli_x1`)}`, {
          adminKey: server.adminKey,
        }),
      );
      expectInvalidCursor(
        await request(server, 'GET', `/admin/v1/security-log?cursor=${cursor(`${ts}|sec_x1`)}`, {
          adminKey: server.adminKey,
        }),
      );
    });
  }

  it('a cursor of another list is refused, a real one still pages', async () => {
    expectInvalidCursor(
      await request(server, 'GET', `/admin/v1/clients?cursor=${cursor('2025-01-01T00:00:00.000000Z|sec_x1')}`, {
        adminKey: server.adminKey,
      }),
    );
    await provisionClient(server);
    const first = await request(server, 'GET', '/admin/v1/clients?limit=1', { adminKey: server.adminKey });
    expect(first.status, first.text).toBe(200);
    const next = first.body.next_cursor as string | null;
    expect(next, first.text).not.toBeNull();
    const second = await request(server, 'GET', `/admin/v1/clients?limit=1&cursor=${next}`, {
      adminKey: server.adminKey,
    });
    expect(second.status, second.text).toBe(200);
  });

  it('a webhook list cursor beyond bigint is refused; the largest bigint is an empty page', async () => {
    expectInvalidCursor(
      await request(server, 'GET', '/api/v1/webhooks?cursor=9999999999999999999', { apiKey: f.apiKey }),
    );
    const last = await request(server, 'GET', '/api/v1/webhooks?cursor=9223372036854775807', { apiKey: f.apiKey });
    expect(last.status, last.text).toBe(200);
    expect(last.body.items, last.text).toEqual([]);
  });
});
