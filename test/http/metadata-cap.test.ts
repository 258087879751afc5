// Metadata size cap: a `metadata` object larger than METADATA_MAX_BYTES (default 16 KiB of JSON)
// is refused with 422 validation_error naming the field, wherever metadata is accepted (the
// places are read from schemas/). It used to be stored as sent (800 KB observed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from '../fixtures/engine-setup.js';
import { agentBody, onboardBody, principalBody } from '../fixtures/onboarding.js';
import { expectEnvelope, type HttpResult, request, startTestServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let clientKey: string;
let programId: string;
let principalKey: string;
let principalId: string;

/** A metadata object whose JSON text is exactly `bytes` long. */
function metadataOf(bytes: number): Record<string, string> {
  const overhead = JSON.stringify({ blob: '' }).length;
  return { blob: 'x'.repeat(bytes - overhead) };
}

function expectTooLarge(res: HttpResult, field: string): void {
  const env = expectEnvelope(res, 422, 'validation_error');
  expect(
    env.details?.map((d) => d.field),
    res.text,
  ).toContain(field);
}

beforeAll(async () => {
  server = await startTestServer();
  const f = await setup(server);
  clientKey = f.client.liveKey;
  programId = f.client.programId;
  principalKey = f.apiKey;
  principalId = f.principalId;
});
afterAll(async () => {
  await server?.close();
});

describe('metadata size cap (default 16384 bytes)', () => {
  it('refuses 800 KB of metadata on POST /principals and stores nothing', async () => {
    const body = principalBody(programId, { metadata: metadataOf(800_000) });
    const res = await request(server, 'POST', '/api/v1/principals', { apiKey: clientKey, body });
    expectTooLarge(res, 'metadata');
    expect((res.body.details as { message: string }[])[0]?.message).toMatch(/at most 16384 bytes/);
  });

  it('refuses metadata nested 5,000 levels deep with 422 too_deep, not a 500', async () => {
    // Written as text: JSON.stringify itself runs out of stack at this depth.
    const deep = `${'{"a":'.repeat(5_000)}{}${'}'.repeat(5_000)}`;
    const raw = JSON.stringify(principalBody(programId, { metadata: { marker: true } })).replace(
      '{"marker":true}',
      deep,
    );
    const res = await request(server, 'POST', '/api/v1/principals', {
      apiKey: clientKey,
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expectEnvelope(res, 422, 'validation_error');
    expect(res.body.errors, res.text).toEqual([expect.objectContaining({ field: 'metadata', code: 'too_deep' })]);
  });

  it('accepts metadata of exactly 16384 bytes and refuses 16385', async () => {
    const ok = await request(server, 'POST', '/api/v1/principals', {
      apiKey: clientKey,
      body: principalBody(programId, { metadata: metadataOf(16_384) }),
    });
    expect(ok.status, ok.text).toBe(201);
    const over = await request(server, 'POST', '/api/v1/principals', {
      apiKey: clientKey,
      body: principalBody(programId, { metadata: metadataOf(16_385) }),
    });
    expectTooLarge(over, 'metadata');
  });

  it('refuses oversized principal.metadata and agent.metadata on POST /onboard, naming both', async () => {
    const body = onboardBody(programId, {
      principal: principalBody(programId, { metadata: metadataOf(20_000) }),
      agent: agentBody({ metadata: metadataOf(20_000) }),
    });
    const res = await request(server, 'POST', '/api/v1/onboard', { apiKey: clientKey, body });
    expectTooLarge(res, 'principal.metadata');
    expectTooLarge(res, 'agent.metadata');
  });

  it('refuses oversized metadata on POST /principals/{id}/agents (Client plane)', async () => {
    const res = await request(server, 'POST', `/api/v1/principals/${principalId}/agents`, {
      apiKey: clientKey,
      body: agentBody({ metadata: metadataOf(17_000) }),
    });
    expectTooLarge(res, 'metadata');
  });

  it('refuses oversized metadata on POST /agents (Principal plane)', async () => {
    const res = await request(server, 'POST', '/api/v1/agents', {
      apiKey: principalKey,
      body: { display_name: 'big', capabilities: ['PURCHASE'], metadata: metadataOf(17_000) },
    });
    expectTooLarge(res, 'metadata');
    const ok = await request(server, 'POST', '/api/v1/agents', {
      apiKey: principalKey,
      body: { display_name: 'small', capabilities: ['PURCHASE'], metadata: metadataOf(1_000) },
    });
    expect(ok.status, ok.text).toBe(201);
  });
});

describe('METADATA_MAX_BYTES', () => {
  it('sets the cap', async () => {
    const small = await startTestServer({ METADATA_MAX_BYTES: '100' });
    try {
      const f = await setup(small);
      const res = await request(small, 'POST', '/api/v1/agents', {
        apiKey: f.apiKey,
        body: { display_name: 'a', capabilities: ['PURCHASE'], metadata: metadataOf(101) },
      });
      expectTooLarge(res, 'metadata');
    } finally {
      await small.close();
    }
  });
});
