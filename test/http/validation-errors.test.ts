// A refused request lists every mistake at once: `errors: [{field, code, message}]` beside the
// SPEC.md `details`, one stable code per kind, messages for people (never a raw regex), the
// schema's errors and the handler's cross-field ones together, and no more than 50 of them.
import type { ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeBody, type EngineFixture, setup } from '../fixtures/engine-setup.js';
import { onboardBody } from '../fixtures/onboarding.js';
import { envelopeProblem } from '../fixtures/schemas.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;
const collectors = (await import(`${DIST}validation/generated/collectors.js`)) as Record<string, ValidateFunction>;
const { MAX_COLLECTED } = (await import(`${DIST}validation/generated/messages.js`)) as { MAX_COLLECTED: number };

interface FieldError {
  field: string;
  code: string;
  message: string;
}

let server: TestServer;
let a: EngineFixture;

beforeAll(async () => {
  server = await startTestServer();
  a = await setup(server);
});
afterAll(async () => {
  await server?.close();
});

/** No message shows a regex (anchors, classes, quantifiers). */
function expectHuman(errors: FieldError[]): void {
  for (const e of errors) {
    expect(e.message, e.field).not.toMatch(/\^|\$"|\[[A-Za-z0-9]-|\{\d+,?\d*\}|must match pattern/);
    expect(e.code, e.field).toMatch(/^[a-z][a-z0-9_]*$/);
  }
}

function byField(errors: FieldError[]): Record<string, FieldError> {
  return Object.fromEntries(errors.map((e) => [e.field, e]));
}

describe('validation errors', () => {
  it('/authorize: a body with 4 mistakes answers one 422 naming all 4, with codes and human messages', async () => {
    const body = authorizeBody(a.agentId, { currency: 'usd', mcc: '54a1', surprise: true });
    delete body.agent_id;
    const res = await authorize(server, a.apiKey, body);
    const env = expectEnvelope(res, 422, 'validation_error');
    expect(envelopeProblem(res.text, 422)).toBeNull();
    const errors = res.body.errors as FieldError[];
    expectHuman(errors);
    const f = byField(errors);
    expect(f.currency).toEqual({
      field: 'currency',
      code: 'pattern',
      message: 'must be a 3-letter ISO 4217 currency code in upper case, e.g. USD',
    });
    expect(f.mcc?.code).toBe('pattern');
    expect(f.mcc?.message).toMatch(/4-digit merchant category code/);
    expect(f.surprise).toEqual({ field: 'surprise', code: 'unknown_field', message: 'is not a known field' });
    // The handler's cross-field rule, answered with the schema's errors of the same body.
    expect(f.agent_id).toEqual({ field: 'agent_id', code: 'required', message: 'is required (or agent_did)' });
    expect(errors).toHaveLength(4);
    // `details` stays as SPEC.md has it, in the same order.
    expect(env.details).toEqual(errors.map((e) => ({ field: e.field, message: e.message })));
  });

  it('/authorize: schema and cross-field errors together (amount, country, intent, agent, crypto)', async () => {
    const body = authorizeBody(a.agentId, {
      amount: '1.999',
      country: 'XX',
      rail: 'CRYPTO',
      intent_context: { intent_type: 'purchase' },
      agent_id: 'nope',
      session_id: '',
    });
    const res = await authorize(server, a.apiKey, body);
    expectEnvelope(res, 422, 'validation_error');
    const errors = res.body.errors as FieldError[];
    expectHuman(errors);
    const f = byField(errors);
    expect(f.agent_id?.code).toBe('pattern');
    expect(f.agent_id?.message).toMatch(/agent id/);
    expect(f.session_id).toEqual({ field: 'session_id', code: 'too_short', message: 'must not be empty' });
    expect(f.amount).toEqual({
      field: 'amount',
      code: 'invalid_amount',
      message: 'must have at most 2 decimal places for USD (got 3)',
    });
    expect(f.country?.code).toBe('invalid_country');
    expect(f['intent_context.task_reference']?.code).toBe('required');
    expect(f.crypto).toEqual({ field: 'crypto', code: 'required', message: 'is required when rail is CRYPTO' });
    expect(errors).toHaveLength(6);
  });

  it('/authorize: an amount of the wrong form is one invalid_amount, not its alternatives', async () => {
    for (const amount of ['abc', -3, true]) {
      const res = await authorize(server, a.apiKey, authorizeBody(a.agentId, { amount }));
      expectEnvelope(res, 422, 'validation_error');
      const errors = res.body.errors as FieldError[];
      expect(errors, String(amount)).toHaveLength(1);
      expect(errors[0]?.field).toBe('amount');
      expect(errors[0]?.code).toBe('invalid_amount');
      expectHuman(errors);
    }
  });

  it('/onboard: one body with several mistakes answers them all at once', async () => {
    const body = onboardBody(a.client.programId);
    const principal = body.principal as Record<string, unknown>;
    const profile = principal.profile as Record<string, unknown>;
    profile.country = 'U1';
    profile.email = 'not an email';
    principal.principal_kind = 'robot';
    (body.mandate as Record<string, unknown>).allowed_mccs = ['54'];
    (body.agent as Record<string, unknown>).colour = 'blue';
    const res = await request(server, 'POST', '/api/v1/onboard', { apiKey: a.client.liveKey, body });
    expectEnvelope(res, 422, 'validation_error');
    expect(envelopeProblem(res.text, 422)).toBeNull();
    const errors = res.body.errors as FieldError[];
    expectHuman(errors);
    const f = byField(errors);
    expect(f['principal.profile.country']).toEqual({
      field: 'principal.profile.country',
      code: 'pattern',
      message: 'must be an ISO 3166-1 alpha-2 or alpha-3 country code, e.g. US or USA',
    });
    expect(f['principal.profile.email']).toEqual({
      field: 'principal.profile.email',
      code: 'format',
      message: 'must be an email address',
    });
    expect(f['principal.principal_kind']?.code).toBe('enum');
    expect(f['principal.principal_kind']?.message).toMatch(/^must be one of: /);
    expect(f['mandate.allowed_mccs.0']?.code).toBe('pattern');
    expect(f['agent.colour']?.code).toBe('unknown_field');
    expect(errors).toHaveLength(5);
  });

  it('a nullable date-time that is neither says what it must be, once', async () => {
    const res = await request(server, 'POST', `/admin/v1/clients/${a.client.clientId}/credentials`, {
      adminKey: server.adminKey,
      body: { environment: 'prod', expires_at: 'yesterday', colour: 'blue' },
    });
    expectEnvelope(res, 422, 'validation_error');
    const errors = res.body.errors as FieldError[];
    expectHuman(errors);
    expect(errors.filter((e) => e.field === 'expires_at')).toEqual([
      {
        field: 'expires_at',
        code: 'format',
        message: 'must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z',
      },
    ]);
    expect(errors.map((e) => e.field).sort()).toEqual(['colour', 'environment', 'expires_at']);
  });

  it('a query parameter names its range in words', async () => {
    const res = await request(server, 'GET', `/api/v1/authorize/log/agent/${a.agentId}?limit=900`, {
      apiKey: a.apiKey,
    });
    expectEnvelope(res, 422, 'validation_error');
    expect(res.body.errors).toEqual([
      { field: 'limit', code: 'pattern', message: 'must be a whole number from 1 to 200' },
    ]);
  });

  it('a hostile body of 20,000 unknown keys answers at most 50 errors, quickly', async () => {
    const body = authorizeBody(a.agentId);
    for (let i = 0; i < 20_000; i++) body[`k${i}`] = i;
    const started = performance.now();
    const res = await authorize(server, a.apiKey, body);
    const ms = performance.now() - started;
    expectEnvelope(res, 422, 'validation_error');
    const errors = res.body.errors as FieldError[];
    expect(errors).toHaveLength(50);
    expect(errors.every((e) => e.code === 'unknown_field')).toBe(true);
    expect(ms).toBeLessThan(2000);
  });
});

describe('the collecting validators (build/build-validators.mjs)', () => {
  it('stop at MAX_COLLECTED errors however many mistakes a body holds', () => {
    const v = collectors.AuthorizeRequest as ValidateFunction;
    const body: Record<string, unknown> = { amount: '1', intent_context: {} };
    for (let i = 0; i < 20_000; i++) body[`k${i}`] = i;
    expect(v(body)).toBe(false);
    expect(MAX_COLLECTED).toBe(100);
    expect(v.errors).toHaveLength(MAX_COLLECTED);
    // Nested: the cap holds across a call into another schema's function too.
    const onboard = collectors.OnboardRequest as ValidateFunction;
    const principal: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++) principal[`p${i}`] = i;
    expect(onboard({ principal, agent: {}, mandate: {} })).toBe(false);
    expect(onboard.errors?.length).toBeLessThanOrEqual(MAX_COLLECTED);
  });
});
