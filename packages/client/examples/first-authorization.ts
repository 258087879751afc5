import { AsasApiError, createAsasClient, unwrap } from '@asas/client';

const asas = createAsasClient({ baseUrl: process.env.BASE!, apiKey: process.env.PRINCIPAL_KEY! });
try {
  // No idempotency_key given: the client adds one, so a retry after a lost answer replays it.
  const decision = unwrap(
    await asas.POST('/api/v1/authorize', {
      body: {
        agent_id: process.env.AGENT_ID!,
        amount: '42.50',
        currency: 'USD',
        mcc: '5411',
        country: 'US',
        merchant_name: 'Corner Grocer',
        intent_context: { intent_type: 'purchase', task_reference: 'groceries/week-48' },
      },
    }),
  );
  console.log(decision.decision, decision.reason_codes.join(','), decision.authorization_id);
} catch (err) {
  if (!(err instanceof AsasApiError)) throw err;
  // A 4xx or 5xx answer: branch on err.code and err.status; err.errors names the fields.
  console.error(err.status, err.code, err.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  process.exitCode = 1;
}
