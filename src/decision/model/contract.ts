// The seams of the decision engine, shared by three parts built separately:
// - the edge and runtime plane (main thread) build an AuthorizeRequest and talk to the
//   DecisionEngine (src/engine/engine.ts);
// - the shard workers (src/shard/worker.ts) own one actor per agent, call the DecisionCore
//   and group-commit each Evaluation's audit row, agent update and events in one transaction;
// - the DecisionCore (src/decision/) holds the decision logic of SPEC.md and
//   docs/decision-engine.md and is pure apart from loading an agent's state.

import type { Decision } from '../../domain/decision.js';
import type { Environment } from '../../domain/environment.js';
import type { Sql } from '../../storage/db.js';
import type { AuthorizationWrite } from '../../storage/rows/authorizations.js';
import type { DecisionReply } from './reply.js';

export type { Decision };

/** One POST /authorize, validated and normalised on the main thread. */
export interface AuthorizeRequest {
  readonly requestId: string;
  readonly environment: Environment;
  readonly clientId: string;
  readonly principalId: string;
  /** agt_ id; an agent_did is resolved to its id before the request reaches a shard. */
  readonly agentId: string;
  /** Canonical exact decimal text (formatAmount(parseAmount(input), 0)). */
  readonly amount: string;
  /** ISO 4217, upper case; USD when not sent. */
  readonly currency: string;
  readonly merchantName: string | null;
  readonly merchantId: string | null;
  readonly mcc: string | null;
  /** ISO 3166-1 alpha-3, upper case (alpha-2 input is converted on the main thread). */
  readonly country: string | null;
  readonly rail: 'CARD' | 'CRYPTO';
  readonly crypto: { readonly chain?: string; readonly asset?: string; readonly counterparty?: string } | null;
  readonly intent: {
    readonly intentType: string;
    readonly taskReference: string;
    readonly reasoningSummary: string | null;
    readonly confidence: number | null;
    readonly alternativesConsidered: readonly unknown[] | null;
  };
  readonly sessionId: string | null;
  readonly idempotencyKey: string | null;
  readonly stepUpConfirmed: boolean;
  /**
   * 'manual': an APPROVE is a hold, captured, released or expired later (docs/holds.md);
   * 'automatic' (the default, also when absent): an APPROVE is captured at once.
   */
  readonly captureMethod?: 'automatic' | 'manual';
  /**
   * POST /api/v1/authorize/ap2: the imported AP2 mandate the presented closed mandate is bound
   * to; the request is decided against that mandate only. Absent on /authorize, which never
   * selects a mandate that is spent only by presentation (docs/ap2.md).
   */
  readonly mandateId?: string;
  /**
   * Date.now() when the edge received the request. The engine decides the request at this time
   * (clamped: src/decision/model/decision-time.ts), not when its shard gets to it, and counts its
   * deadlines from it.
   */
  readonly receivedAtMs: number;
  /**
   * Several instances on one database (src/cluster/): the virtual shard of the agent and the
   * lease epoch this instance holds it under. The audit batch commits only while that epoch
   * is still the shard's (migrations/0140_shard_leases.sql). Absent on a single instance.
   */
  readonly fence?: { readonly shard: number; readonly epoch: number } | undefined;
  /**
   * POST /authorize/explain: the owning actor evaluates the request on a copy of the agent's
   * state (DecisionCore.explain) and answers the explanation; nothing is recorded, signed,
   * emitted or counted. Travels with the request through shards and cluster forwarding.
   */
  readonly dryRun?: boolean;
}

/**
 * A row of the authorizations table as the decision builds it and the group commit writes it
 * (src/storage/rows/authorizations.ts), money as exact decimal text.
 */
export type AuditRow = AuthorizationWrite;

/** An event of SPEC.md "Events" produced by a decision; the worker wraps it in the envelope. */
export interface EngineEvent {
  readonly eventType: string;
  readonly data: Record<string, unknown>;
}

export interface Evaluation {
  readonly decision: Decision;
  /** The response body of POST /authorize (every field of SPEC.md). */
  readonly response: Record<string, unknown>;
  readonly audit: AuditRow;
  /** Events besides authorization.decided, which the worker adds for every decision. */
  readonly events: readonly EngineEvent[];
  /** Columns of the agents row to update in the same commit (trust promotion, KYA score). */
  readonly agentUpdate: { readonly trust_level?: string; readonly kya_score?: string } | null;
  /**
   * When each stage of the decision started (performance.now() of the shard thread, slots of
   * src/decision/model/timing.ts); the actor adds the receipt and the commit. Absent: not timed.
   */
  readonly marks?: Float64Array;
}

/** The decision logic, called only on the shard thread that owns the agent. */
export interface DecisionCore<State> {
  /**
   * Builds an agent's in-memory state from the database as of `nowMs` (its calendar windows,
   * unexpired mandates and step-ups); null when the agent does not exist. `principalHint`: the
   * Principal of the request that needs it, which the load may guess the agent's settings from
   * (checked against the agent row: a wrong hint costs time, never a wrong state).
   */
  load(sql: Sql, agentId: string, nowMs: number, principalHint?: string): Promise<State | null>;
  /** The Principal that owns the agent (requests of any other Principal get 404). */
  principalOf(state: State): string;
  /**
   * The time `state` is current to (its newest decision, or the time it was loaded as of; ms,
   * -Infinity when neither): the actor decides no request at an earlier time
   * (src/decision/model/decision-time.ts). Absent: requests are decided at their receive time, clamped
   * to the shard's clock only.
   */
  decidedUpTo?(state: State): number;
  /**
   * Decides, and updates the state in memory as if the decision were committed (running
   * totals, velocity, sessions, trust). If the commit then fails the worker drops the state,
   * so it is rebuilt from the database, which stays the truth. `nowMs` is the decision time
   * (src/decision/model/decision-time.ts): the gates judge it, and it is the response's timestamp and
   * the audit row's created_at. `slowAnswers`: the service's answers are slow now (its commits
   * are: src/shard/committer.ts answersSlow); the decision is marked so and the agent learns no
   * pace from it (src/decision/outcome.ts).
   */
  evaluate(state: State, request: AuthorizeRequest, nowMs: number, slowAnswers?: boolean): Evaluation;
  /**
   * The dry run of POST /authorize/explain: the decision `evaluate` would give now, with each
   * gate's score, threshold and margin, the effective limits and what remains of each cap.
   * Leaves `state` exactly as it was (and every state shared across agents).
   */
  explain?(state: State, request: AuthorizeRequest, nowMs: number, budgetLent?: bigint): Record<string, unknown>;
  /**
   * Estimated bytes of memory the state holds (cheap: called after every load and decision);
   * the shard bounds its actor cache by the sum of these as well as by the number of actors.
   */
  sizeOf(state: State): number;
  /**
   * Optional upkeep of what a load reads (the agent's audit rollup): true, once, when the
   * state has seen enough rows since it that `maintain` should run; the worker then runs
   * `maintain` in the background, never on a request's path.
   */
  maintenanceDue?(state: State): boolean;
  /** Brings the agent's audit rollup forward so the next load stays cheap (see maintenanceDue). */
  maintain?(sql: Sql, agentId: string, nowMs: number): Promise<void>;
  /** The agent's escrowed slice of its Principal's budget (docs/principal-budget.md), if the core has one. */
  readonly escrow?: BudgetEscrow<State>;
  /**
   * Applies a committed budget credit to a loaded state, as a reload would read it. Returns
   * false when the state cannot tell whether it already holds the credit, or the credit touches
   * what is only rebuilt by a load: the actor then reloads. Absent: every credit reloads.
   */
  credit?(state: State, credit: BudgetCredit): boolean;
}

/**
 * A budget credit committed for an agent (a hold released, expired or partly captured, a
 * refund: src/runtime/holds-store.ts), sent to the agent's actor so that it counts at once
 * without a reload (docs/holds.md). Plain JSON: it may cross to the owning instance.
 */
export interface BudgetCredit {
  /** The agent's credit_seq after this credit (migrations/0310): orders its credits by commit. */
  readonly seq: number;
  readonly mandateId: string;
  /** The original authorization's time: the credit comes off the windows it counted in. */
  readonly authorizedAtMs: number;
  /** Units (10^-8 of the currency) given back to the amount windows, as an integer string. */
  readonly amount: string;
  /** Approvals given back to the count caps and occurrences (1 for a release or expiry). */
  readonly countBack: number;
}

/** A slice of a Principal's budget taken out of an agent's state, to be given back to the pool. */
export interface BudgetSlack {
  readonly windowStart: number;
  readonly amount: bigint;
}

/** NOTIFY channel of asas_budget_grant when a pool ran short (payload: the Principal's id). */
export const BUDGET_RECALL_CHANNEL = 'asas_budget_recall';

/**
 * The Principal budget's escrow as the actor drives it (src/decision/principal-budget.ts):
 * the decision itself stays pure and spends the slice in memory; growing the slice (a grant) and
 * giving slack back are transactions the actor runs around decisions, fenced like its commits.
 */
export interface BudgetEscrow<State> {
  /** What the slice lacks for this request (0n: decide at once). */
  need(state: State, request: AuthorizeRequest, nowMs: number): bigint;
  /** Grows the slice by `need` (0n: a background top-up) plus a speculative part. */
  grant(
    sql: Sql,
    state: State,
    need: bigint,
    request: AuthorizeRequest,
    nowMs: number,
  ): Promise<'granted' | 'short' | 'recalled' | 'stale'>;
  /**
   * What the Principal's pool has not handed out in the current window (read only: a dry run
   * answers as if the slice grew by what the pool can give, and grows nothing).
   */
  available(sql: Sql, state: State): Promise<bigint>;
  /** True when the slice ran low after a decision: top it up in the background. */
  low(state: State, nowMs: number): boolean;
  /** Takes the unspent slice out of the state (no decision can spend it any more). */
  takeSlack(state: State): BudgetSlack | null;
  /** Gives taken slack back to the pool; false when PostgreSQL did not hold it (reload). */
  giveBack(sql: Sql, state: State, slack: BudgetSlack, fence: AuthorizeRequest['fence']): Promise<boolean>;
}

/** The main thread's handle on the shard workers (implemented in src/engine/engine.ts). */
export interface DecisionEngine {
  /**
   * Routes the request to the actor of its agent and resolves once the decision is durably
   * recorded. Never rejects for a database fault: answers a safe DECLINE (system_unavailable).
   * Rejects with ApiError agent_not_found when the agent is not the caller's.
   */
  authorize(request: AuthorizeRequest): Promise<DecisionReply>;
  /** Makes the owning actor reload the agent (status, mandates) before its next decision. */
  invalidateAgent(env: Environment, agentId: string): Promise<void>;
  /**
   * Tells the owning actor of a committed budget credit: it counts it in memory, or reloads
   * before its next decision when it cannot (DecisionCore.credit).
   */
  creditAgent(env: Environment, agentId: string, credit: BudgetCredit): Promise<void>;
  /** Makes every actor of the Principal reload its thresholds before its next decision. */
  invalidatePrincipal(env: Environment, principalId: string): Promise<void>;
  /** Finishes queued decisions, flushes the audit log, stops the workers. */
  close(): Promise<void>;
}
