// Provisioning for the bench, through the HTTP API only (so it works against any deployment):
// the operator plane creates a Client, a Program and a Client key; POST /api/v1/onboard
// creates each Principal with its first agent and mandate; the operator plane issues each
// Principal a key; the runtime plane creates further agents and their mandates.

export interface ApiTarget {
  readonly url: string;
  readonly adminKey: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what}: HTTP ${status} ${body.slice(0, 300)}`);
  }
}

export async function call(
  target: { url: string },
  method: string,
  path: string,
  opts: { body?: unknown; apiKey?: string; adminKey?: string; expect?: number[] } = {},
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {};
  if (opts.apiKey !== undefined) headers['x-api-key'] = opts.apiKey;
  if (opts.adminKey !== undefined) headers['x-admin-key'] = opts.adminKey;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(target.url + path, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  const ok = opts.expect ?? [200, 201, 202];
  if (!ok.includes(res.status)) throw new ApiError(res.status, text, `${method} ${path}`);
  return text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** Runs `fn` over `items` with at most `concurrency` calls at once. */
export async function mapLimit<T, R>(items: readonly T[], concurrency: number, fn: (t: T, i: number) => Promise<R>) {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
  return out;
}

export interface ClientSetup {
  readonly clientId: string;
  readonly programId: string;
  readonly clientKey: string;
}

export async function provisionClient(t: ApiTarget, name: string): Promise<ClientSetup> {
  const client = await call(t, 'POST', '/admin/v1/clients', { adminKey: t.adminKey, body: { name } });
  const clientId = client.id as string;
  const program = await call(t, 'POST', `/admin/v1/clients/${clientId}/programs`, {
    adminKey: t.adminKey,
    body: { name: `${name} program` },
  });
  const cred = await call(t, 'POST', `/admin/v1/clients/${clientId}/credentials`, {
    adminKey: t.adminKey,
    body: { environment: 'live' },
  });
  return { clientId, programId: program.id as string, clientKey: cred.api_key as string };
}

let seq = 0;

/** The body of POST /api/v1/onboard for one new Principal (unique client_customer_ref). */
export function onboardBody(programId: string, tag: string): Record<string, unknown> {
  seq++;
  const ref = `${tag}-${process.pid}-${Date.now().toString(36)}-${seq}`;
  return {
    principal: {
      principal_kind: 'personal',
      program_ids: [programId],
      client_customer_ref: ref,
      profile: { display_name: `Bench ${ref}`, email: `${ref}@bench.example` },
      verification: {
        type: 'KYC',
        mode: 'client_attested',
        attestation: { attested_by: 'bench', scope: 'identity', statement: 'bench principal', evidence_ref: ref },
      },
    },
    agent: { name: `bench agent ${ref}`, capabilities: ['PURCHASE'] },
    mandate: {
      rails: ['card'],
      limits: { max_amount_per_transaction: '500.00', max_daily_amount: '100000000.00', currency: 'USD' },
    },
  };
}

export interface PrincipalSetup {
  readonly principalId: string;
  readonly principalKey: string;
  /** The agent created by /onboard. */
  readonly firstAgentId: string;
}

export async function onboardPrincipal(t: ApiTarget, c: ClientSetup, tag: string): Promise<PrincipalSetup> {
  const res = await call(t, 'POST', '/api/v1/onboard', { apiKey: c.clientKey, body: onboardBody(c.programId, tag) });
  const principalId = (res.principal as { id: string }).id;
  const cred = await call(t, 'POST', `/admin/v1/principals/${principalId}/credentials`, {
    adminKey: t.adminKey,
    body: { environment: 'live' },
  });
  return {
    principalId,
    principalKey: cred.api_key as string,
    firstAgentId: (res.agent as { id: string }).id,
  };
}

export interface MandateSpec {
  readonly maxPerTransaction: string;
  readonly maxDaily?: string;
  readonly maxMonthly?: string;
  readonly currency?: string;
  readonly blockedMccs?: readonly string[];
  readonly blockedCountries?: readonly string[];
  /** ISO 8601; default one year ahead. */
  readonly validUntil?: string;
}

/** Creates an agent and its mandate on the runtime plane; returns the agent id. */
export async function createAgentWithMandate(t: ApiTarget, p: PrincipalSetup, name: string, m: MandateSpec) {
  const agent = await call(t, 'POST', '/api/v1/agents', {
    apiKey: p.principalKey,
    body: { display_name: name, capabilities: ['PURCHASE'] },
  });
  const agentId = agent.id as string;
  const body: Record<string, unknown> = {
    agent_id: agentId,
    valid_until: m.validUntil ?? new Date(Date.now() + 365 * 86_400_000).toISOString(),
    max_amount_per_transaction: m.maxPerTransaction,
    currency: m.currency ?? 'USD',
  };
  if (m.maxDaily !== undefined) body.max_daily_amount = m.maxDaily;
  if (m.maxMonthly !== undefined) body.max_monthly_amount = m.maxMonthly;
  if (m.blockedMccs !== undefined) body.blocked_mccs = m.blockedMccs;
  if (m.blockedCountries !== undefined) body.blocked_countries = m.blockedCountries;
  await call(t, 'POST', '/api/v1/mandates', { apiKey: p.principalKey, body });
  return agentId;
}

export async function putThresholds(t: ApiTarget, p: PrincipalSetup, values: Record<string, number>): Promise<void> {
  await call(t, 'PUT', '/api/v1/thresholds', { apiKey: p.principalKey, body: values });
}
