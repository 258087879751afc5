// Messages across the thread boundary between the main thread (src/engine/engine.ts) and a
// shard worker (src/shard/worker.ts). Requests that arrive for one shard in the same
// event-loop turn travel as ONE task, and their results come back as one array in order.

import type { AuthorizeRequest, BudgetCredit } from '../decision/model/contract.js';
import { type DecisionReply, toReply } from '../decision/model/reply.js';
import type { Environment } from '../domain/environment.js';
import type { LocalHistogramData } from '../observability/metrics.js';
import type { ThreadSnapshot } from '../observability/thread-monitor.js';
import type { ReceiptKeyMaterial } from '../receipts/signer.js';

export interface ShardWorkerData {
  readonly shard: number;
  readonly urls: Readonly<Record<Environment, string>>;
  readonly embedded: boolean;
  /** URL of the module exporting `decisionCore` (the real core unless a test swaps it). */
  readonly coreModule: string;
  readonly maxActors: number;
  readonly maxActorBytes: number;
  readonly poolSize: number;
  readonly batchRows: number;
  readonly batchDelayMs: number;
  readonly commitDeadlineMs: number;
  readonly loadDeadlineMs: number;
  readonly relaxedCommitDeadlineMs: number;
  readonly relaxedLoadDeadlineMs: number;
  readonly breakerOpenMs: number;
  /** The edge's answer deadline (AUTHORIZE_DEADLINE_MS), in milliseconds, if it has one. */
  readonly answerDeadlineMs?: number | undefined;
  /** Time to open a database connection, in milliseconds. */
  readonly connectTimeoutMs: number;
  readonly logLevel: string;
  /** The key that signs decision receipts (src/receipts/); none: responses carry receipt null. */
  readonly receiptKey?: ReceiptKeyMaterial | null;
}

export type ShardTask =
  | { readonly kind: 'authorize'; readonly requests: readonly AuthorizeRequest[] }
  | { readonly kind: 'invalidateAgent'; readonly env: Environment; readonly agentId: string }
  /** A budget credit committed for the agent: counted in memory, or the actor reloads (DecisionCore.credit). */
  | { readonly kind: 'creditAgent'; readonly env: Environment; readonly agentId: string; readonly credit: BudgetCredit }
  | { readonly kind: 'invalidatePrincipal'; readonly env: Environment; readonly principalId: string }
  /** The actors of the Principal give the unspent part of their budget slices back (a pool ran short). */
  | { readonly kind: 'budgetRecall'; readonly env: Environment; readonly principalId: string }
  /** Every actor whose agent falls in one of these virtual shards (of `of`) reloads before its next decision. */
  | { readonly kind: 'invalidateShards'; readonly shards: readonly number[]; readonly of: number }
  /** The receipt signing key changed (a rotation): sign with this one from now on. */
  | { readonly kind: 'receiptKey'; readonly key: ReceiptKeyMaterial }
  | { readonly kind: 'stats' }
  | { readonly kind: 'close' };

/**
 * One authorization's outcome. `replayed` marks an idempotent repeat (the stored response of
 * the original decision, unchanged); `safe` marks the safe DECLINE given when the decision
 * could not be recorded.
 */
export type AuthorizeResult =
  | {
      readonly kind: 'decided';
      readonly response: Record<string, unknown>;
      readonly replayed: boolean;
      /** A decision just made: when its stages started (src/decision/model/timing.ts), for Server-Timing. */
      readonly marks?: Float64Array | undefined;
    }
  | { readonly kind: 'safe'; readonly response: Record<string, unknown> }
  | { readonly kind: 'not_found' }
  /** The idempotency_key was first used for a different transaction (422 idempotency_key_reuse). */
  | { readonly kind: 'key_reused' }
  /** The idempotency_key's stored answer is gone (past 24 hours or the store cap): never decided twice. */
  | { readonly kind: 'key_expired' };

/** An AuthorizeResult as it travels back to the main thread: the response already serialised. */
export type AuthorizeWireResult =
  | { readonly kind: 'decided'; readonly reply: DecisionReply; readonly replayed: boolean }
  | { readonly kind: 'safe'; readonly reply: DecisionReply }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'key_reused' }
  | { readonly kind: 'key_expired' };

export function toWire(r: AuthorizeResult): AuthorizeWireResult {
  if (r.kind === 'not_found' || r.kind === 'key_reused' || r.kind === 'key_expired') return r;
  if (r.kind === 'safe') return { kind: 'safe', reply: toReply(r.response) };
  return { kind: 'decided', reply: toReply(r.response, r.replayed, r.marks), replayed: r.replayed };
}

export interface ShardStats {
  readonly shard: number;
  /** Per-batch histograms of the shard's committers (live, sandbox), for /metrics. */
  readonly batchSize: readonly LocalHistogramData[];
  readonly commitSeconds: readonly LocalHistogramData[];
  /** Edge receiving an authorization to its shard taking it (thread hop and queue), seconds. */
  readonly waitSeconds: LocalHistogramData;
  /** The shard taking an authorization to its answer leaving (decision, batch wait, commit), seconds. */
  readonly authorizeSeconds: LocalHistogramData;
  /** GC pauses and event-loop delay of the shard's thread. */
  readonly runtime: ThreadSnapshot;
  readonly actors: number;
  /** Estimated bytes of the actors in the LRU (DecisionCore.sizeOf plus keys). */
  readonly actorBytes: number;
  readonly busyActors: number;
  /** V8 heap used by the shard's thread (the main thread's on embedded PGlite). */
  readonly heapUsedBytes: number;
  /** The shard thread's OS thread id (Linux /proc/thread-self), null elsewhere. */
  readonly osThreadId: number | null;
  readonly commits: number;
  readonly committedRows: number;
  readonly failedCommits: number;
  /** Decisions recorded after their answer was the safe DECLINE, voided since (src/audit/voids.ts). */
  readonly voided: number;
  /** Budget credits counted in memory by an actor here, and those that made it reload. */
  readonly creditsCounted: number;
  readonly creditsReloaded: number;
}
