// A sandbox Principal with an agent and a mandate, onboarded through the client itself: the
// operator provisions a Client (test/fixtures/provision.ts, the operator plane is not public),
// then the Client key onboards (POST /api/v1/onboard) and gets the Principal its key.
import { type AsasClient, createAsasClient, unwrap } from '@asas/client';
import { provisionClient } from '../../../test/fixtures/provision.js';
import type { TestServer } from '../../../test/fixtures/server.js';

export interface OnboardedPrincipal {
  readonly principalId: string;
  readonly agentId: string;
  readonly mandateId: string;
  readonly principalKey: string;
  /** The client with the Principal's key. */
  readonly asas: AsasClient;
}

export async function onboardThroughClient(server: TestServer): Promise<OnboardedPrincipal> {
  const { programId, sandboxKey } = await provisionClient(server);
  const clientPlane = createAsasClient({ baseUrl: server.url, apiKey: sandboxKey });
  const onboarded = unwrap(
    await clientPlane.POST('/api/v1/onboard', {
      body: {
        principal: {
          principal_kind: 'personal',
          program_ids: [programId],
          profile: { display_name: 'Ada Lovelace', email: `ada+${Date.now()}@example.com`, country: 'US' },
          verification: {
            type: 'KYC',
            mode: 'client_attested',
            attestation: { attested_by: 'compliance@client.example', scope: 'KYC', statement: 'ID checked' },
          },
        },
        agent: { name: 'Shopping agent' },
        mandate: {
          rails: ['card'],
          limits: { max_amount_per_transaction: '150.00', max_daily_amount: '400.00', currency: 'USD' },
          allowed_mccs: ['5411'],
          allowed_countries: ['US', 'GB'],
        },
      },
    }),
  );
  const principalId = onboarded.principal.id;
  const { api_key } = unwrap(
    await clientPlane.POST('/api/v1/principals/{principal_id}/sandbox-key', {
      params: { path: { principal_id: principalId } },
    }),
  );
  return {
    principalId,
    agentId: onboarded.agent.id,
    mandateId: onboarded.mandate.id,
    principalKey: api_key,
    asas: createAsasClient({ baseUrl: server.url, apiKey: api_key }),
  };
}

/** The README's first authorization: 42.50 at a grocery store, within the mandate. */
export function groceries(agentId: string, over: { idempotency_key?: string; merchant_id?: string } = {}) {
  return {
    agent_id: agentId,
    amount: '42.50',
    currency: 'USD',
    mcc: '5411',
    country: 'US',
    merchant_name: 'Corner Grocer',
    intent_context: { intent_type: 'purchase', task_reference: 'groceries/week-48' },
    ...over,
  };
}
