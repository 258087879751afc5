// A Principal ready for POST /authorize, provisioned through the API: a Client (operator
// plane), a Principal with one agent and mandate (/onboard), a Principal key (operator plane),
// and thresholds that let one agent decide many times in a row (rapid-fire and velocity
// lifted) so the ops tests and drills can send streams of requests.
import { onboardAgent } from '../fixtures/onboarding.js';
import { issuePrincipalKey, provisionClient } from '../fixtures/provision.js';
import { request } from '../fixtures/server.js';

export interface AuthorizeSetup {
  readonly clientKey: string;
  readonly principalId: string;
  readonly principalKey: string;
  readonly agentId: string;
}

export async function authorizeSetup(server: { url: string; adminKey: string }): Promise<AuthorizeSetup> {
  const client = await provisionClient(server);
  const onboarded = await onboardAgent(server, client.liveKey, client.programId, {
    mandate: {
      rails: ['card'],
      limits: { max_amount_per_transaction: '250.00', max_daily_amount: '100000.00', currency: 'USD' },
    },
  });
  const { apiKey } = await issuePrincipalKey(server, onboarded.principalId, 'live');
  const res = await request(server, 'PUT', '/api/v1/thresholds', {
    apiKey,
    body: { rapid_fire_max_count: 65_535, risk_velocity_max_count: 65_535, amount_outlier_multiplier: 1_000_000 },
  });
  if (res.status !== 200) throw new Error(`PUT /thresholds: ${res.status} ${res.text}`);
  return {
    clientKey: client.liveKey,
    principalId: onboarded.principalId,
    principalKey: apiKey,
    agentId: onboarded.agentId,
  };
}

/** An /authorize body: approvable by default (amount within the mandate). */
export function authorizeBody(agentId: string, amount = '1.00', over: Record<string, unknown> = {}) {
  return {
    agent_id: agentId,
    amount,
    currency: 'USD',
    merchant_name: 'Corner Grocery',
    mcc: '5411',
    country: 'US',
    intent_context: {
      intent_type: 'purchase',
      task_reference: 'weekly-groceries',
      reasoning_summary: 'Weekly grocery order for the household, as the user asked',
    },
    ...over,
  };
}
