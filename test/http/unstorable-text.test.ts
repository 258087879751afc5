// Regression (issue 11): text PostgreSQL cannot store (U+0000, unpaired surrogates) got past the
// edge. In a path segment it answered 500 (/webhooks/%00/test) or 503 (/authorize/log/%00); in a
// body it answered 500 (admin client name, webhook URL), failed the shared audit batch
// (/authorize merchant_name), or was silently stored as U+FFFD (a lone surrogate in a name);
// body bytes that are not UTF-8 were silently replaced. Now: 422 validation_error naming every
// offending field, in every string of every endpoint; 400 for bytes that are not UTF-8.
import { afterAll, describe, expect, it } from 'vitest';
import { authorizeBody } from '../fixtures/engine-setup.js';
import { onboardAgent, principalBody } from '../fixtures/onboarding.js';
import { issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, type HttpResult, request, startTestServer } from '../fixtures/server.js';

const server = await startTestServer();
afterAll(async () => {
  await server.close();
});
const client = await provisionClient(server);
const onboarded = await onboardAgent(server, client.liveKey, client.programId);
const principalKey = (await issuePrincipalKey(server, onboarded.principalId, 'live')).apiKey;
const JSON_TYPE = { 'content-type': 'application/json' };

/** POSTs raw bytes (not necessarily UTF-8) as application/json. */
async function postBytes(path: string, bytes: Uint8Array, headers: Record<string, string>): Promise<HttpResult> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { ...JSON_TYPE, ...headers }, body: bytes });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text), text };
}

function expectUnstorable(res: HttpResult, fields: string[]): void {
  const env = expectEnvelope(res, 422, 'validation_error');
  expect(
    env.details?.map((d) => d.field),
    res.text,
  ).toEqual(fields);
}

describe('text PostgreSQL cannot store is refused at the edge with 422 naming the field', () => {
  it('a NUL in a path segment: 422, not 500 (POST /webhooks/%00/test) or 503 (GET /authorize/log/%00)', async () => {
    expectUnstorable(await request(server, 'POST', '/api/v1/webhooks/%00/test', { apiKey: principalKey }), [
      'webhook_id',
    ]);
    expectUnstorable(await request(server, 'GET', '/api/v1/authorize/log/%00', { apiKey: principalKey }), [
      'authorization_id',
    ]);
    expectUnstorable(
      await request(server, 'POST', '/admin/v1/clients/cli_%00x/programs', {
        adminKey: server.adminKey,
        body: { name: 'p' },
      }),
      ['client_id'],
    );
  });

  it('a NUL in a query value or name: 422 naming the parameter', async () => {
    const path = `/api/v1/authorize/log/agent/${onboarded.agentId}`;
    expectUnstorable(await request(server, 'GET', `${path}?cursor=a%00b`, { apiKey: principalKey }), ['cursor']);
    expectUnstorable(await request(server, 'GET', `${path}?x%00=1`, { apiKey: principalKey }), ['x\u0000']);
  });

  it('POST /authorize: NUL or a lone surrogate in merchant_name, session_id, intent text -> 422, no decision', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ merchant_name: 'Corner\u0000Grocery' }, ['merchant_name']],
      [{ session_id: 'sess_\ud800' }, ['session_id']],
      [{ idempotency_key: 'k\udfff' }, ['idempotency_key']],
      [
        { intent_context: { intent_type: 'purchase', task_reference: 't', reasoning_summary: 'why\u0000' } },
        ['intent_context.reasoning_summary'],
      ],
      [{ merchant_name: '\u0000', session_id: '\udc00x' }, ['merchant_name', 'session_id']],
    ];
    for (const [over, fields] of cases) {
      const res = await request(server, 'POST', '/api/v1/authorize', {
        apiKey: principalKey,
        body: authorizeBody(onboarded.agentId, over),
      });
      expectUnstorable(res, fields);
    }
  });

  it('metadata values and keys at any depth, onboarding and admin names, webhook URL and description', async () => {
    expectUnstorable(
      await request(server, 'POST', '/api/v1/principals', {
        apiKey: client.liveKey,
        body: principalBody(client.programId, { metadata: { note: 'a\u0000b', nested: { list: ['ok', '\ud83d'] } } }),
      }),
      ['metadata.note', 'metadata.nested.list.1'],
    );
    expectUnstorable(
      await request(server, 'POST', '/api/v1/principals', {
        apiKey: client.liveKey,
        body: principalBody(client.programId, { metadata: { 'bad\u0000key': 1 } }),
      }),
      ['metadata.bad\u0000key'],
    );
    expectUnstorable(
      await request(server, 'POST', '/admin/v1/clients', { adminKey: server.adminKey, body: { name: 'a\u0000b' } }),
      ['name'],
    );
    expectUnstorable(
      await request(server, 'POST', '/admin/v1/clients', { adminKey: server.adminKey, body: { name: '\udc00' } }),
      ['name'],
    );
    expectUnstorable(
      await request(server, 'POST', '/api/v1/webhooks', {
        apiKey: principalKey,
        body: { url: 'https://example.com/\u0000', event_types: ['*'], description: 'd\ud800' },
      }),
      ['url', 'description'],
    );
  });

  it('a huge string of NULs under an unexpected key is refused with a bounded answer, not a 5xx', async () => {
    const res = await request(server, 'POST', '/admin/v1/clients', {
      adminKey: server.adminKey,
      body: { name: 'n', ['\u0000'.repeat(80_000)]: '\u0000'.repeat(80_000) },
    });
    const env = expectEnvelope(res, 422, 'validation_error');
    expect(env.details?.[0]?.field).toBe(`${'\u0000'.repeat(64)}…`);
    expect(res.text.length).toBeLessThan(4096);
  });

  it('well-formed text written with \\u escapes (accents, a surrogate pair) is accepted and stored intact', async () => {
    const raw = '{"name":"Caf\\u00e9 \\ud83d\\udcb3 \\\\u0000 literal"}';
    const res = await request(server, 'POST', '/admin/v1/clients', {
      adminKey: server.adminKey,
      raw,
      headers: JSON_TYPE,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.name).toBe('Café 💳 \\u0000 literal');
  });
});

describe('body bytes that are not UTF-8 answer 400 in the envelope instead of being replaced', () => {
  const admin = { 'x-admin-key': server.adminKey };
  const wrap = (inner: number[]): Uint8Array =>
    new Uint8Array([...Buffer.from('{"name":"a'), ...inner, ...Buffer.from('"}')]);

  it('an invalid byte (0xFF) or a truncated sequence: 400 invalid_json, nothing created', async () => {
    for (const inner of [[0xff], [0xc3], [0xe2, 0x82], [0xc0, 0x80]]) {
      const res = await postBytes('/admin/v1/clients', wrap(inner), admin);
      expectEnvelope(res, 400, 'invalid_json');
      expect(res.body.message).toBe('The request body is not valid UTF-8.');
    }
  });

  it('a surrogate encoded as UTF-8 bytes (ED A0 80) is not UTF-8: 400, so a lone surrogate can only come as \\u', async () => {
    expectEnvelope(await postBytes('/admin/v1/clients', wrap([0xed, 0xa0, 0x80]), admin), 400, 'invalid_json');
  });

  it('a raw NUL byte is not valid JSON (control characters must be escaped): 400, so NUL can only come as \\u', async () => {
    expectEnvelope(await postBytes('/admin/v1/clients', wrap([0x00]), admin), 400, 'invalid_json');
  });

  it('multi-byte UTF-8 written as bytes is accepted', async () => {
    const res = await postBytes('/admin/v1/clients', wrap([...Buffer.from('é💳')]), admin);
    expect(res.status, res.text).toBe(201);
    expect(res.body.name).toBe('aé💳');
  });

  it('a form body (/oauth/token) with %00 is refused with 422 naming the field', async () => {
    const res = await request(server, 'POST', '/oauth/token', {
      raw: 'grant_type=client_credentials&client_id=a%00b&client_secret=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectUnstorable(res, ['client_id']);
  });
});
