// Nesting depth of every request body is capped at the edge (MAX_JSON_DEPTH, 16 levels), not only
// where metadata is accepted. POST /authorize's intent_context.alternatives_considered takes items
// of any JSON type: nested 5,000 levels deep, the structured clone that carries the request to its
// shard worker ran out of stack, and every request of that shard's batch (other tenants' too) got
// the safe decision (DECLINE system_unavailable). Found by reading the schema for free-form places
// after FUZZ_SEED=854282068 found the same overflow in metadata.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, setup } from '../fixtures/engine-setup.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let mine: EngineFixture;
let other: EngineFixture;

beforeAll(async () => {
  server = await startTestServer();
  mine = await setup(server);
  other = await setup(server);
});
afterAll(async () => {
  await server?.close();
});

/** An /authorize body whose alternatives_considered holds one item, `item` written as JSON text. */
function withAlternative(agentId: string, item: string): string {
  const body = authorizeBody(agentId, {
    intent_context: { intent_type: 'purchase', task_reference: 'deep', alternatives_considered: ['__item__'] },
  });
  return JSON.stringify(body).replace('"__item__"', item);
}

/** JSON text of `levels` nested arrays (or objects) around 1. Written as text: serialising it would need the stack. */
function nested(levels: number, asArray: boolean): string {
  return asArray ? `${'['.repeat(levels)}1${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

function send(apiKey: string, raw: string) {
  return request(server, 'POST', '/api/v1/authorize', { apiKey, raw, headers: { 'content-type': 'application/json' } });
}

describe('request bodies nested too deep', () => {
  for (const asArray of [true, false]) {
    it(`/authorize: alternatives_considered nested 5,000 levels (${asArray ? 'arrays' : 'objects'}) is 422 too_deep, not the safe decision`, async () => {
      const res = await send(mine.apiKey, withAlternative(mine.agentId, nested(5_000, asArray)));
      expectEnvelope(res, 422, 'validation_error');
      const detail = (res.body.errors as { field: string; code: string }[] | undefined)?.[0];
      expect(detail?.code, res.text).toBe('too_deep');
      expect(detail?.field.startsWith('intent_context.alternatives_considered.0'), res.text).toBe(true);
    });
  }

  it('/authorize: nesting of exactly 16 levels is decided, 17 is refused', async () => {
    // The body (1), intent_context (2) and alternatives_considered (3) are three levels already.
    const ok = await send(mine.apiKey, withAlternative(mine.agentId, nested(13, true)));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.decision, ok.text).toBe('APPROVE');
    const over = await send(mine.apiKey, withAlternative(mine.agentId, nested(14, true)));
    expectEnvelope(over, 422, 'validation_error');
  });

  it("a deep body does not take down another tenant's decision sent at the same time", async () => {
    const deep = Array.from({ length: 5 }, () =>
      send(mine.apiKey, withAlternative(mine.agentId, nested(20_000, true))),
    );
    const fine = Array.from({ length: 5 }, () => authorize(server, other.apiKey, authorizeBody(other.agentId)));
    for (const res of await Promise.all(deep)) expectEnvelope(res, 422, 'validation_error');
    for (const res of await Promise.all(fine)) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.reason_codes, res.text).not.toContain('system_unavailable');
    }
  });

  it('brackets inside strings do not count as nesting', async () => {
    const res = await send(mine.apiKey, withAlternative(mine.agentId, JSON.stringify(`${'['.repeat(40)}\\"{{{{`)));
    expect(res.status, res.text).toBe(200);
  });

  it('onboarding: a Principal body nested deeper than 16 levels outside metadata is 422 too_deep', async () => {
    // An unknown key is refused by the schema first; nesting inside metadata by its own cap.
    // Both are 4xx and neither reaches the stack-hungry code.
    const raw = `{"x":${nested(3_000, false)}}`;
    const res = await request(server, 'POST', '/api/v1/principals', {
      apiKey: mine.client.liveKey,
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expectEnvelope(res, 422, 'validation_error');
  });
});
