// PATCH /api/v1/mandates/:mandate_id and POST /api/v1/mandates/:mandate_id/revoke
// (docs/mandate-lifecycle.md). Only the Principal that owns the mandate (through its agent) may
// act; anyone else gets 404. Both take an Idempotency-Key (keys scoped to the Principal, as the
// hold operations): the change, its security record, its event and the remembered answer commit
// together. The answer waits until the agent's owning actor, on whichever instance and thread,
// has dropped its state (invalidateAgent): the next decision is judged on the changed mandate.
import type { Services } from '../app/services.js';
import { ApiError } from '../errors/registry.js';
import { exactAmounts } from '../http/json-source.js';
import { json, type Reply, type RequestContext, type RouteDef } from '../http/types.js';
import { withIdempotency } from '../onboarding/idempotency.js';
import { bodyOf, idParam } from './context.js';
import { invalidateAgent } from './engine-handle.js';
import {
  AMENDABLE_FIELDS,
  amendMandate,
  type Outcome,
  PATCH_AMOUNT_PATHS,
  type PatchBody,
  revokeMandate,
} from './mandate-amend.js';
import { loadOwnedMandate, mandateView } from './mandate-store.js';
import { mandateUsage } from './mandate-usage.js';

export function mandateLifecycleRoutes(services: Services): RouteDef[] {
  /** Runs the change under the Idempotency-Key, reloads the owning actor, answers the mandate. */
  async function change(
    ctx: RequestContext<'principal'>,
    work: (
      tx: Parameters<Parameters<typeof withIdempotency>[1]>[0],
      principalId: string,
      id: string,
    ) => Promise<Outcome>,
  ): Promise<Reply> {
    const { auth } = ctx;
    const id = idParam(ctx, 'mandate_id', 'mandate_not_found');
    let outcome: Outcome | null = null;
    const reply = await withIdempotency(ctx, async (tx) => {
      outcome = await work(tx, auth.principalId, id);
      const row = await loadOwnedMandate(tx, auth.principalId, id);
      return json(200, { ...mandateView(row), usage: await mandateUsage(tx, row) });
    });
    const done = outcome as Outcome | null;
    if (done?.changed === true) {
      services.events.nudge(auth.environment);
      // Before answering: "200" means the agent's next decision sees the change.
      await invalidateAgent(services, auth.environment, done.agentId);
    }
    return reply;
  }

  return [
    {
      method: 'PATCH',
      path: '/api/v1/mandates/:mandate_id',
      auth: 'principal',
      body: 'RuntimeMandateUpdateRequest',
      idempotencyKey: true,
      response: 'RuntimeMandate',
      errors: ['no_fields_to_update'],
      operationId: 'updateMandate',
      summary: "Amend an ACTIVE mandate's limits, lists or valid_until (null removes an optional limit or list)",
      handler: (ctx) => {
        exactAmounts(ctx, PATCH_AMOUNT_PATHS);
        const body = bodyOf<PatchBody>(ctx);
        if (!AMENDABLE_FIELDS.some((f) => body[f] !== undefined)) throw new ApiError('no_fields_to_update');
        return change(ctx, (tx, principalId, id) => amendMandate(tx, ctx, principalId, id, body));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/mandates/:mandate_id/revoke',
      auth: 'principal',
      body: 'RuntimeMandateRevokeRequest',
      idempotencyKey: true,
      response: 'RuntimeMandate',
      successStatus: 200,
      operationId: 'revokeMandate',
      summary: 'Revoke a mandate: status REVOKED, every later decision on it declines (final)',
      handler: (ctx) => {
        const { reason } = bodyOf<{ reason: string }>(ctx);
        return change(ctx, (tx, principalId, id) => revokeMandate(tx, ctx, principalId, id, reason));
      },
    },
  ];
}
