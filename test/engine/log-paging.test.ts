// GET /authorize/log/agent/{agent_id}: newest first, opaque cursor over (created_at, id), every
// entry exactly once across pages; GET /authorize/log/{id}; both only for the owning Principal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZATION_ENTRY_FIELDS } from '../fixtures/authorize-fields.js';
import { authorize, authorizeBody, type EngineFixture, relaxRateGates, setup } from '../fixtures/engine-setup.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let f: EngineFixture;
let other: EngineFixture;
const answered: string[] = [];

interface Page {
  items: { id: string; decision: string; amount: number; currency: string; created_at: string }[];
  next_cursor: string | null;
}

beforeAll(async () => {
  server = await startTestServer();
  f = await setup(server);
  other = await setup(server);
  await relaxRateGates(server, f.apiKey);
  // Concurrent requests for one agent: many share a created_at millisecond, so the id breaks ties.
  for (let round = 0; round < 3; round++) {
    const batch = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        authorize(server, f.apiKey, authorizeBody(f.agentId, { amount: i === 11 ? '900.00' : '1.25' })),
      ),
    );
    for (const r of batch) answered.push(r.body.authorization_id as string);
  }
});
afterAll(async () => {
  await server?.close();
});

async function page(path: string, apiKey = f.apiKey) {
  return request(server, 'GET', path, { apiKey });
}

const pageOf = (res: { body: unknown }) => res.body as Page;

describe('authorization log', () => {
  it('pages through every entry exactly once, newest first', async () => {
    const seen: Page['items'] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor === null ? '?limit=5' : `?limit=5&cursor=${encodeURIComponent(cursor)}`;
      const res = await page(`/api/v1/authorize/log/agent/${f.agentId}${q}`);
      expect(res.status).toBe(200);
      const body = pageOf(res);
      expect(body.items.length).toBeLessThanOrEqual(5);
      seen.push(...body.items);
      cursor = body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 50);
    expect(seen.map((s) => s.id).sort()).toEqual([...answered].sort());
    expect(new Set(seen.map((s) => s.id)).size).toBe(36);
    expect(pages).toBe(8);
    for (let i = 1; i < seen.length; i++) {
      expect(Date.parse((seen[i - 1] as Page['items'][0]).created_at)).toBeGreaterThanOrEqual(
        Date.parse((seen[i] as Page['items'][0]).created_at),
      );
    }
    expect(seen.filter((s) => s.decision === 'DECLINE').length).toBe(3);
    expect(seen[0]).toEqual({
      id: expect.stringMatching(/^auth_/),
      decision: expect.any(String),
      amount: expect.any(Number),
      currency: 'USD',
      created_at: expect.stringMatching(/Z$/),
    });
  });

  it('defaults to 50 per page and caps the limit at 200', async () => {
    const res = pageOf(await page(`/api/v1/authorize/log/agent/${f.agentId}`));
    expect(res.items).toHaveLength(36);
    expect(res.next_cursor).toBeNull();
    for (const bad of ['0', '201', 'abc']) {
      expectEnvelope(await page(`/api/v1/authorize/log/agent/${f.agentId}?limit=${bad}`), 422, 'validation_error');
    }
    const env = expectEnvelope(
      await page(`/api/v1/authorize/log/agent/${f.agentId}?cursor=not-a-cursor`),
      422,
      'validation_error',
    );
    expect(env.details?.[0]?.field).toBe('cursor');
  });

  it('returns one entry in the SPEC.md Authorization shape to its Principal only', async () => {
    const id = answered[0] as string;
    const res = await request(server, 'GET', `/api/v1/authorize/log/${id}`, { apiKey: f.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      agent_id: f.agentId,
      mandate_id: f.mandateId,
      currency: 'USD',
      country: 'USA',
    });
    // The SPEC.md shape plus `explanation` (issue 13: what decided it, to the owner only) and the
    // decision under the Principal's shadow thresholds (issue 17: null without a shadow set).
    expect(Object.keys(res.body).sort()).toEqual(
      [
        ...AUTHORIZATION_ENTRY_FIELDS,
        'explanation',
        'shadow_decision',
        'shadow_gates_fired',
        'shadow_thresholds_version',
      ].sort(),
    );
    expect(res.body).toMatchObject({ shadow_decision: null, shadow_gates_fired: null });
    expectEnvelope(
      await request(server, 'GET', `/api/v1/authorize/log/${id}`, { apiKey: other.apiKey }),
      404,
      'authorization_not_found',
    );
    expectEnvelope(await page(`/api/v1/authorize/log/agent/${f.agentId}`, other.apiKey), 404, 'agent_not_found');
    expectEnvelope(
      await request(server, 'GET', '/api/v1/authorize/log/auth_nope000000000000000000', { apiKey: f.apiKey }),
      404,
      'authorization_not_found',
    );
  });
});
