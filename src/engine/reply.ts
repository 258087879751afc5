// A decision's answer as it crosses from a shard back to the main thread. The response body is
// serialised on the shard thread: the main thread runs the whole HTTP edge and is the busiest
// thread under load, and a string crosses the thread boundary far cheaper than the structured
// clone of a ~30-field object. The edge writes the request's own processing time into the
// placeholder (the only unescaped `"processing_time_ms":` in the text: values are escaped).
import type { Decision } from './decision.js';

const PLACEHOLDER = '"processing_time_ms":-1';

export interface DecisionReply {
  readonly decision: Decision;
  readonly gatesFired: readonly string[];
  /** The POST /authorize response body as JSON, processing_time_ms still a placeholder. */
  readonly body: string;
  /** An idempotent replay of an earlier decision (answered with Idempotent-Replayed: true). */
  readonly replayed: boolean;
}

export function toReply(response: Record<string, unknown>, replayed = false): DecisionReply {
  const saved = response.processing_time_ms;
  response.processing_time_ms = -1;
  const body = JSON.stringify(response);
  response.processing_time_ms = saved;
  const gates = response.gates_fired;
  return { decision: response.decision as Decision, gatesFired: Array.isArray(gates) ? gates : [], body, replayed };
}

/** The final response text with `processingTimeMs` in place. */
export function finishReply(reply: DecisionReply, processingTimeMs: number): string {
  return reply.body.replace(PLACEHOLDER, `"processing_time_ms":${processingTimeMs}`);
}
