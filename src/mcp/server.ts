// The MCP server of one agent (docs/mcp.md): tools to buy within its mandates, place and settle
// holds, follow a step-up, and read what is left of its budget; its mandates as a resource. It
// acts through AgentApi with the agent key, so the service decides everything: a tool argument
// (an injected instruction in a merchant name or a reasoning summary included) is only a field
// of POST /authorize, checked there like any other request. No tool takes an agent: the agent is
// the key's. Arguments are strict, so a call naming an agent (or anything unknown) is refused.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { AsasApiError } from '../../packages/client/src/index.js';
import type { AgentApi, Purchase } from './agent-api.js';
import { decisionResult, dryRunResult, mandateSummary, result, stepUpResult, type ToolResult } from './results.js';

export const MCP_SERVER_NAME = 'asas-agent';
export const MCP_SERVER_VERSION = '0.1.0';

/** The longest a wait_for_step_up call waits, in seconds. */
export const MAX_WAIT_SECONDS = 120;

export interface AgentMcpOptions {
  /** How often wait_for_step_up asks for the step-up's status, in milliseconds. */
  pollMs?: number;
}

const ID = /^[a-z]{2,4}_[A-Za-z0-9]{1,64}$/;

const purchaseShape = {
  amount: z
    .string()
    .regex(/^[0-9]{1,15}(\.[0-9]{1,8})?$/)
    .describe('The amount as a decimal string, e.g. "12.50"'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .describe('ISO 4217 code, e.g. USD'),
  merchant_name: z.string().min(1).max(255).describe("The merchant's name as shown at checkout"),
  merchant_id: z.string().min(1).max(255).optional().describe("The merchant's id, when known"),
  mcc: z
    .string()
    .regex(/^[0-9]{4}$/)
    .optional()
    .describe('Merchant category code (4 digits), when known'),
  country: z
    .string()
    .regex(/^[A-Za-z]{2,3}$/)
    .optional()
    .describe("The merchant's country, ISO 3166-1 alpha-2 or alpha-3"),
  intent_type: z.string().min(1).max(100).describe('What kind of spend this is, e.g. purchase, subscription'),
  task_reference: z.string().min(1).max(500).describe('The task the person gave that this purchase serves'),
  reasoning_summary: z.string().max(2000).optional().describe('Why this purchase, in a sentence or two'),
  session_id: z.string().min(1).max(255).optional().describe('The shopping session, when there is one'),
};

const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe('Send the same key to retry the same purchase safely (one decision, replayed)');

const authorizationId = z.string().regex(ID).describe('The authorization_id of the hold');

/** A 4xx/5xx answer or a network failure as a tool error: short, with the service's code. */
function failure(err: unknown): ToolResult {
  if (err instanceof AsasApiError) {
    const line =
      err.code === 'forbidden'
        ? 'Refused: this agent key acts only for its own agent, and only for purchases, holds, its mandates and its step-ups.'
        : `${err.code}: ${err.envelope.message}`;
    return result({ error: err.code, status: err.status, message: line }, line, true);
  }
  const line = 'The authorization service could not be reached; nothing was decided.';
  return result({ error: 'unreachable', message: line }, line, true);
}

async function guarded(work: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await work();
  } catch (err) {
    return failure(err);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A new MCP server for the agent of `api` (one per connection: stdio, or each HTTP request). */
export function createAgentMcpServer(api: AgentApi, options: AgentMcpOptions = {}): McpServer {
  const pollMs = options.pollMs ?? 1000;
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    {
      instructions:
        'Spend only through these tools. A DECLINE is final for that purchase; a STEP_UP means a person must confirm: follow step_up_status, never retry with a changed amount.',
    },
  );

  server.registerTool(
    'authorize_purchase',
    {
      title: 'Authorize a purchase',
      description:
        "Ask for authorization before paying. Answers APPROVE, DECLINE or STEP_UP with reason codes and what to do next. The agent is this server's own.",
      inputSchema: z
        .object({
          ...purchaseShape,
          idempotency_key: idempotencyKey,
          step_up_confirmed: z
            .boolean()
            .optional()
            .describe('Only when re-sending a STEP_UP purchase, unchanged, after the person confirmed it'),
        })
        .strict(),
    },
    (args) => guarded(async () => decisionResult(await api.authorize(args as Purchase, 'automatic'))),
  );

  server.registerTool(
    'check_purchase',
    {
      title: 'Check a purchase (dry run)',
      description:
        'What authorize_purchase would answer now (decision and reason codes), without recording or reserving anything. Rate-limited; not a way to search for an amount that passes.',
      inputSchema: z.object(purchaseShape).strict(),
      annotations: { readOnlyHint: true },
    },
    (args) => guarded(async () => dryRunResult(await api.explain(args as Purchase))),
  );

  server.registerTool(
    'place_hold',
    {
      title: 'Place a hold',
      description:
        'Authorize a purchase whose final amount comes later: an approval reserves the amount (status HELD) until capture_hold or release_hold, or its expiry.',
      inputSchema: z.object({ ...purchaseShape, idempotency_key: idempotencyKey }).strict(),
    },
    (args) => guarded(async () => decisionResult(await api.authorize(args as Purchase, 'manual'))),
  );

  server.registerTool(
    'capture_hold',
    {
      title: 'Capture a hold',
      description: 'Settle a hold: all of it, or `amount` of it (the rest goes back to the budget).',
      inputSchema: z
        .object({
          authorization_id: authorizationId,
          amount: purchaseShape.amount.optional().describe('At most the amount held; absent: all of it'),
        })
        .strict(),
    },
    ({ authorization_id, amount }) =>
      guarded(async () => {
        const r = await api.capture(authorization_id, amount);
        const out = {
          authorization_id: r.authorization_id,
          status: r.status,
          captured_amount: r.captured_amount,
          released_amount: r.released_amount,
        };
        return result(out, `Captured ${r.captured_amount}, released ${r.released_amount}.`);
      }),
  );

  server.registerTool(
    'release_hold',
    {
      title: 'Release a hold',
      description: 'Give a whole hold back to the budget (the purchase did not happen).',
      inputSchema: z.object({ authorization_id: authorizationId }).strict(),
    },
    ({ authorization_id }) =>
      guarded(async () => {
        const r = await api.release(authorization_id);
        const out = { authorization_id: r.authorization_id, status: r.status, released_amount: r.released_amount };
        return result(out, `Released ${r.released_amount}.`);
      }),
  );

  server.registerTool(
    'remaining_budget',
    {
      title: 'Remaining budget',
      description:
        "This agent's active mandates: their limits and, per cap, what is used, held and remaining in the current window.",
      inputSchema: z.object({}).strict(),
      annotations: { readOnlyHint: true },
    },
    () =>
      guarded(async () => {
        const active = await api.mandates('ACTIVE');
        const mandates = await Promise.all(active.map(async (m) => mandateSummary(await api.mandate(m.id))));
        const line =
          mandates.length === 0
            ? 'No active mandate: this agent cannot spend now.'
            : mandates.map(budgetLine).join(' ');
        return result({ mandates }, line);
      }),
  );

  server.registerTool(
    'step_up_status',
    {
      title: 'Step-up status',
      description:
        'Where a step-up stands: PENDING (the person has not answered), CONFIRMED, DECLINED (the person said no), USED or EXPIRED.',
      inputSchema: z.object({ step_up_id: z.string().regex(ID) }).strict(),
      annotations: { readOnlyHint: true },
    },
    ({ step_up_id }) => guarded(async () => stepUpResult(await api.stepUp(step_up_id))),
  );

  server.registerTool(
    'wait_for_step_up',
    {
      title: 'Wait for a step-up',
      description: `Wait until the person answers a step-up (no longer PENDING), at most timeout_seconds (up to ${MAX_WAIT_SECONDS}).`,
      inputSchema: z
        .object({
          step_up_id: z.string().regex(ID),
          timeout_seconds: z.number().int().min(1).max(MAX_WAIT_SECONDS).default(30),
        })
        .strict(),
      annotations: { readOnlyHint: true },
    },
    ({ step_up_id, timeout_seconds }) =>
      guarded(async () => {
        const started = Date.now();
        const deadline = started + timeout_seconds * 1000;
        let s = await api.stepUp(step_up_id);
        while (s.status === 'PENDING' && Date.now() + pollMs <= deadline) {
          await sleep(pollMs);
          s = await api.stepUp(step_up_id);
        }
        const seconds = Math.round((Date.now() - started) / 100) / 10;
        return stepUpResult(s, { timedOut: s.status === 'PENDING', seconds });
      }),
  );

  server.registerResource(
    'mandates',
    'asas://agent/mandates',
    {
      title: "This agent's mandates",
      description: 'Every mandate of the agent (any status), with its limits and, for each, its usage.',
      mimeType: 'application/json',
    },
    async (uri) => {
      const all = await api.mandates();
      const mandates = await Promise.all(all.map(async (m) => mandateSummary(await api.mandate(m.id))));
      return {
        contents: [
          { uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ agent_id: api.agentId, mandates }) },
        ],
      };
    },
  );

  server.registerResource(
    'recent-decisions',
    'asas://agent/decisions/recent',
    {
      title: "This agent's recent decisions",
      description: `The agent's newest ${RECENT_DECISIONS} decisions, newest first: id, decision, amount, currency, time.`,
      mimeType: 'application/json',
    },
    async (uri) => {
      const page = await api.recentDecisions(RECENT_DECISIONS);
      // Picked by name, as every tool answer is (src/mcp/results.ts): nothing the log adds later leaks.
      const decisions = page.items.map((d) => ({
        authorization_id: d.id,
        decision: d.decision,
        amount: d.amount,
        currency: d.currency,
        created_at: d.created_at,
      }));
      return {
        contents: [
          { uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ agent_id: api.agentId, decisions }) },
        ],
      };
    },
  );

  return server;
}

/** Decisions the recent-decisions resource lists. */
const RECENT_DECISIONS = 20;

function budgetLine(m: Record<string, unknown>): string {
  const caps = Object.entries(m.caps as Record<string, { remaining: unknown }>)
    .map(([cap, u]) => `${cap} ${u.remaining} left`)
    .join(', ');
  return `Mandate ${m.mandate_id}: up to ${m.max_amount_per_transaction} ${m.currency} a purchase${caps.length === 0 ? '' : `; ${caps}`}.`;
}
