// The Client-facing onboarding plane (SPEC.md "Onboarding (Client key)"), plus the Principal's
// own read of its record. Every object lives in the database of the credential's environment.

import { credentialCreated, recordSecurityEvent } from '../audit/security-log.js';
import { issueCredential } from '../auth/credentials.js';
import type { DecisionEngine } from '../decision/model/contract.js';
import { ApiError } from '../errors/registry.js';
import { exactAmounts } from '../http/json-source.js';
import { json, type RequestContext, type RouteDef } from '../http/types.js';
import type { Sql } from '../storage/db.js';
import { assertStorable } from '../validation/storable.js';
import { type AgentInput, createAgent, findClientAgent, listAgentSummaries, summaryOf } from './agents.js';
import { isLookupId } from './checks.js';
import { withIdempotency } from './idempotency.js';
import { createMandate, type MandateInput, mandateAmountPaths } from './mandates.js';
import {
  createPrincipal,
  enrollPrincipal,
  findClientPrincipal,
  loadPrincipal,
  type PrincipalInput,
} from './principals.js';

const ONBOARD_AMOUNTS = mandateAmountPaths(['mandate']);
const MANDATE_AMOUNTS = mandateAmountPaths();

function principalParam(ctx: RequestContext): string {
  const id = ctx.params.principal_id;
  if (!isLookupId(id)) throw new ApiError('principal_not_found');
  return id;
}

/**
 * @param engine after a new mandate commits, its agent's actor reloads before the next
 * decision (as on the runtime plane's POST /mandates)
 */
export function onboardingRoutes(engine: Pick<DecisionEngine, 'invalidateAgent'>): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/onboard',
      auth: 'client',
      body: 'OnboardRequest',
      response: 'OnboardResponse',
      successStatus: 201,
      idempotencyKey: true,
      errors: [
        'duplicate_client_customer_ref',
        'program_not_owned',
        'attestation_required',
        'invalid_phone_format',
        'principal_not_in_program',
      ],
      operationId: 'onboard',
      summary: 'Create a Principal, its first Agent and a Mandate atomically (202 when verification is pending)',
      handler: (ctx) => {
        const { auth } = ctx;
        assertStorable(ctx.body);
        exactAmounts(ctx, ONBOARD_AMOUNTS);
        const body = ctx.body as { principal: PrincipalInput; agent: AgentInput; mandate: MandateInput };
        return withIdempotency(ctx, async (tx) => {
          const { record: principal, pending } = await createPrincipal(tx, auth.clientId, body.principal, 'principal');
          const agent = await createAgent(tx, auth.clientId, principal, body.agent, 'agent');
          const mandate = await createMandate(tx, agent, body.mandate, 'mandate');
          principal.agents = [summaryOf(agent)];
          return json(pending ? 202 : 201, { principal, agent, mandate });
        });
      },
    },
    {
      method: 'POST',
      path: '/api/v1/principals',
      auth: 'client',
      body: 'PrincipalCreateRequest',
      response: 'Principal',
      successStatus: 201,
      idempotencyKey: true,
      errors: ['duplicate_client_customer_ref', 'program_not_owned', 'attestation_required', 'invalid_phone_format'],
      operationId: 'createPrincipal',
      summary: 'Register a Principal and enroll it in Programs (202 when verification is pending)',
      handler: (ctx) => {
        const { auth } = ctx;
        assertStorable(ctx.body);
        return withIdempotency(ctx, async (tx) => {
          const { record, pending } = await createPrincipal(tx, auth.clientId, ctx.body as PrincipalInput);
          return json(pending ? 202 : 201, record);
        });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/principals/:principal_id',
      auth: 'principal',
      response: 'Principal',
      operationId: 'getPrincipal',
      summary: "The calling Principal's own record",
      handler: async (ctx) => {
        if (ctx.params.principal_id !== ctx.auth.principalId) {
          throw new ApiError('forbidden', 'A Principal may read only its own record.');
        }
        const record = await loadPrincipal(ctx.db, ctx.auth.principalId);
        if (record === null) throw new ApiError('principal_not_found');
        return json(200, record);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/principals/:principal_id/programs',
      auth: 'client',
      body: 'PrincipalProgramsRequest',
      response: 'PrincipalPrograms',
      successStatus: 200,
      errors: ['program_not_owned'],
      operationId: 'enrollPrincipalInProgram',
      summary: 'Enroll a Principal in a Program (idempotent)',
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const principalId = principalParam(ctx);
        assertStorable(ctx.body);
        const { program_id } = ctx.body as { program_id: string };
        const out = await db.begin((tx) => enrollPrincipal(tx, auth.clientId, principalId, program_id));
        return json(200, out);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/principals/:principal_id/agents',
      auth: 'client',
      body: 'OnboardAgentCreateRequest',
      response: 'OnboardAgent',
      successStatus: 201,
      idempotencyKey: true,
      errors: ['principal_not_in_program'],
      operationId: 'createPrincipalAgent',
      summary: 'Register an Agent under a Principal',
      handler: (ctx) => {
        const { auth } = ctx;
        const principalId = principalParam(ctx);
        assertStorable(ctx.body);
        return withIdempotency(ctx, async (tx) => {
          const principal = await findClientPrincipal(tx, auth.clientId, principalId);
          return json(201, await createAgent(tx, auth.clientId, principal, ctx.body as AgentInput));
        });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/principals/:principal_id/agents',
      auth: 'client',
      response: 'OnboardAgentList',
      operationId: 'listPrincipalAgents',
      summary: "A Principal's agents",
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const principal = await findClientPrincipal(db, auth.clientId, principalParam(ctx));
        const agents = await listAgentSummaries(db, principal.id);
        return json(200, { principal_id: principal.id, agents, count: agents.length });
      },
    },
    {
      method: 'POST',
      path: '/api/v1/agents/:agent_id/mandates',
      auth: 'client',
      body: 'OnboardMandateCreateRequest',
      response: 'OnboardMandate',
      successStatus: 201,
      idempotencyKey: true,
      operationId: 'createAgentMandate',
      summary: 'Grant a Mandate to an Agent',
      handler: async (ctx) => {
        const { auth } = ctx;
        const agentId = ctx.params.agent_id;
        if (!isLookupId(agentId)) throw new ApiError('principal_not_found', 'Agent not found for this Client.');
        assertStorable(ctx.body);
        exactAmounts(ctx, MANDATE_AMOUNTS);
        const reply = await withIdempotency(ctx, async (tx) => {
          const agent = await findClientAgent(tx, auth.clientId, agentId);
          if (agent.status === 'REVOKED') {
            throw new ApiError('validation_error', undefined, {
              details: [
                { field: 'agent_id', code: 'not_allowed', message: 'the agent is REVOKED and cannot receive mandates' },
              ],
            });
          }
          return json(201, await createMandate(tx, agent, ctx.body as MandateInput));
        });
        await engine.invalidateAgent(auth.environment, agentId);
        return reply;
      },
    },
    {
      method: 'POST',
      path: '/api/v1/principals/:principal_id/sandbox-key',
      auth: 'client',
      response: 'PrincipalSandboxKey',
      successStatus: 201,
      errors: ['sandbox_only'],
      operationId: 'createSandboxKey',
      summary: 'Issue a sandbox API key for a Principal (sandbox Client key only)',
      handler: async (ctx) => {
        const { auth, db } = ctx;
        if (auth.environment !== 'sandbox') throw new ApiError('sandbox_only');
        const principal = await findClientPrincipal(db, auth.clientId, principalParam(ctx));
        const issued = await db.begin(async (tx) => {
          const out = await issueCredential(tx as unknown as Sql, {
            clientId: auth.clientId,
            principalId: principal.id,
            environment: 'sandbox',
          });
          await recordSecurityEvent(tx, ctx, credentialCreated(out.credential, 'sandbox-key'));
          return out;
        });
        return json(201, {
          principal_id: principal.id,
          api_key: issued.apiKey,
          env: 'sandbox',
          message: 'Store this key now: it is shown once and cannot be recovered.',
        });
      },
    },
  ];
}
