// A decision's answer as it crosses from a shard back to the main thread. The response body is
// serialised on the shard thread: the main thread runs the whole HTTP edge and is the busiest
// thread under load, and a string crosses the thread boundary far cheaper than the structured
// clone of a ~30-field object. The edge writes the request's own processing time into the
// placeholder (the only unescaped `"processing_time_ms":` in the text: values are escaped).
import type { Decision } from '../../domain/decision.js';
import { shardTiming } from './timing.js';

const PLACEHOLDER = '"processing_time_ms":-1';

export interface DecisionReply {
  readonly decision: Decision;
  readonly gatesFired: readonly string[];
  /** The POST /authorize response body as JSON, processing_time_ms still a placeholder. */
  readonly body: string;
  /** An idempotent replay of an earlier decision (answered with Idempotent-Replayed: true). */
  readonly replayed: boolean;
  /** The shard's stages for Server-Timing (src/decision/model/timing.ts), and their total in ms; absent: not timed. */
  readonly timing?: string;
  readonly shardMs?: number;
}

/** `marks`: the stages of a decision just made (src/decision/model/timing.ts), for Server-Timing. */
export function toReply(response: Record<string, unknown>, replayed = false, marks?: Float64Array): DecisionReply {
  const saved = response.processing_time_ms;
  response.processing_time_ms = -1;
  const body = JSON.stringify(response);
  response.processing_time_ms = saved;
  const gates = response.gates_fired;
  const decision = response.decision as Decision;
  const gatesFired = Array.isArray(gates) ? gates : [];
  if (marks === undefined) return { decision, gatesFired, body, replayed };
  const t = shardTiming(marks);
  return { decision, gatesFired, body, replayed, timing: t.text, shardMs: t.ms };
}

/** The final response text with `processingTimeMs` in place. */
export function finishReply(reply: DecisionReply, processingTimeMs: number): string {
  return reply.body.replace(PLACEHOLDER, `"processing_time_ms":${processingTimeMs}`);
}
