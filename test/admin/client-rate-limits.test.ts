// A Client's own request rate limits on the operator plane (src/admin/client-rate-limits.ts):
// the defaults a high-volume integrator gets, an override that lifts one Client above them while
// another Client stays held to them, null putting the default back, validation, and the security
// log. test/drills/rate-limit-multi-instance.test.ts shows an override reaching another instance.
import { afterAll, describe, expect, it } from 'vitest';
import { insertPrincipalRow, issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { expectEnvelope, request, startTestServer, type TestServer } from '../fixtures/server.js';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function server(env: Record<string, string>): Promise<TestServer> {
  const s = await startTestServer(env);
  servers.push(s);
  return s;
}

async function tenant(s: TestServer): Promise<{ clientId: string; apiKey: string }> {
  const client = await provisionClient(s);
  const principalId = await insertPrincipalRow(s, 'live', client.clientId);
  return { clientId: client.clientId, apiKey: (await issuePrincipalKey(s, principalId, 'live')).apiKey };
}

/** How many of `n` back-to-back requests pass the limits (422: allowed, the body is invalid on purpose). */
async function allowed(s: TestServer, apiKey: string, n: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) {
    const res = await request(s, 'POST', '/api/v1/agents', { apiKey, body: {} });
    expect([422, 429]).toContain(res.status);
    if (res.status === 422) ok++;
  }
  return ok;
}

const path = (clientId: string) => `/admin/v1/clients/${clientId}/rate-limits`;

describe('a Client with no limits of its own', () => {
  it('gets the defaults sized for a high-volume integrator: 1,000/s per key (burst 2,000), 5,000/s per Client (10,000)', async () => {
    // Empty values select the defaults (the test helper turns limits off otherwise).
    const s = await server({ RATE_LIMIT_REQUESTS_PER_SECOND: '', RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '' });
    const { clientId } = await tenant(s);
    const res = await request(s, 'GET', path(clientId), { adminKey: s.adminKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      client_id: clientId,
      credential_requests_per_second: null,
      credential_burst_requests: null,
      client_requests_per_second: null,
      client_burst_requests: null,
      effective: {
        credential_requests_per_second: 1_000,
        credential_burst_requests: 2_000,
        client_requests_per_second: 5_000,
        client_burst_requests: 10_000,
      },
      updated_at: null,
    });
  });
});

describe("a Client's own limits", () => {
  it('lift one Client above the defaults while another stays held to them, until set back to null', async () => {
    const s = await server({
      RATE_LIMIT_REQUESTS_PER_SECOND: '1',
      RATE_LIMIT_BURST_REQUESTS: '3',
      RATE_LIMIT_CLIENT_REQUESTS_PER_SECOND: '0',
    });
    const big = await tenant(s);
    const small = await tenant(s);
    const put = await request(s, 'PUT', path(big.clientId), {
      adminKey: s.adminKey,
      body: { credential_requests_per_second: 1_000, credential_burst_requests: 1_000 },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.credential_burst_requests).toBe(1_000);
    expect(put.body.client_requests_per_second).toBeNull();
    expect(put.body.effective).toMatchObject({ credential_requests_per_second: 1_000, client_requests_per_second: 0 });
    expect(typeof put.body.updated_at).toBe('string');

    expect(await allowed(s, big.apiKey, 30)).toBe(30);
    const smallAllowed = await allowed(s, small.apiKey, 10);
    expect(smallAllowed).toBeGreaterThanOrEqual(3);
    expect(smallAllowed).toBeLessThanOrEqual(4); // the burst, and at most one refilled at 1/s

    // A field left out keeps its value; null puts the default back.
    const back = await request(s, 'PUT', path(big.clientId), {
      adminKey: s.adminKey,
      body: { credential_burst_requests: null },
    });
    expect(back.status, back.text).toBe(200);
    expect(back.body.credential_requests_per_second).toBe(1_000);
    expect(back.body.credential_burst_requests).toBeNull();
    const reset = await request(s, 'PUT', path(big.clientId), {
      adminKey: s.adminKey,
      body: { credential_requests_per_second: null },
    });
    expect(reset.status, reset.text).toBe(200);
    const bigAllowed = await allowed(s, big.apiKey, 10);
    expect(bigAllowed).toBeGreaterThanOrEqual(3);
    expect(bigAllowed).toBeLessThanOrEqual(4);

    // The security log keeps each change, with what changed.
    const log = await request(s, 'GET', '/admin/v1/security-log?action=client.rate_limits_updated', {
      adminKey: s.adminKey,
    });
    expect(log.status, log.text).toBe(200);
    const entries = (log.body.items as { target: { id: string }; changes: Record<string, unknown> }[]).filter(
      (e) => e.target.id === big.clientId,
    );
    expect(entries.map((e) => e.changes)).toEqual([
      { credential_requests_per_second: null },
      { credential_burst_requests: null },
      { credential_requests_per_second: 1_000, credential_burst_requests: 1_000 },
    ]);
  });

  it('refuses bad values, unknown fields and unknown Clients, and only answers the operator', async () => {
    const s = await server({});
    const { clientId, apiKey } = await tenant(s);
    expectEnvelope(
      await request(s, 'PUT', path(clientId), { adminKey: s.adminKey, body: { credential_burst_requests: 0 } }),
      422,
      'validation_error',
    );
    expectEnvelope(
      await request(s, 'PUT', path(clientId), { adminKey: s.adminKey, body: { requests_per_second: 5 } }),
      422,
      'validation_error',
    );
    expectEnvelope(
      await request(s, 'PUT', path('cli_doesnotexist'), { adminKey: s.adminKey, body: {} }),
      404,
      'client_not_found',
    );
    expectEnvelope(await request(s, 'GET', path(clientId), { apiKey }), 403, 'forbidden');
  });
});
