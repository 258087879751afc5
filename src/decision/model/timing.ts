// Server-Timing of POST /authorize: where a decision's time
// went, per stage. The shard thread notes when each stage starts (performance.now() of that
// thread, into the decision's `marks`): the gates in src/decision/ (mandate, risk,
// intent, trust), the rest of the decision (state, events, response, audit row), the receipt
// signature and the group commit (src/shard/actors.ts). It sends the durations as text with
// the reply; the edge adds its own time before the engine and the queue (everything between
// handing the request to the engine and its answer that the shard did not spend deciding:
// the batch to the shard thread, the actor's queue, a state load, the way back).
//
// Cost (docs/benchmarks.md "Server-Timing"): eight performance.now() and a Float64Array per
// decision, the text built on the shard thread, one header on the edge.

/** Slots of the marks: when each stage started. A gate stage the pipeline did not reach stays 0. */
export const STAGE_MANDATE = 0;
export const STAGE_RISK = 1;
export const STAGE_INTENT = 2;
export const STAGE_TRUST = 3;
/** The gates are done: recording the decision in the state, events, response and audit row. */
export const STAGE_GATES_END = 4;
/** The decision is built: the receipt is signed. */
export const STAGE_RECORD_END = 5;
/** The receipt is signed: the decision waits for its group commit. */
export const STAGE_SIGNED = 6;
export const STAGE_COMMITTED = 7;
export const STAGE_SLOTS = 8;

const GATES: readonly (readonly [number, string])[] = [
  [STAGE_MANDATE, 'gate-mandate'],
  [STAGE_RISK, 'gate-risk'],
  [STAGE_INTENT, 'gate-intent'],
  [STAGE_TRUST, 'gate-trust'],
];

/** The metric names, in the order they appear in the header. */
export const SERVER_TIMING_METRICS: readonly string[] = [
  'edge',
  'queue',
  ...GATES.map((g) => g[1]),
  'record',
  'sign',
  'commit',
  'total',
];

/** Milliseconds to the microsecond (a rounded number is turned to text 5x faster than toFixed). */
function dur(ms: number): string {
  return ms > 0 ? String(Math.round(ms * 1000) / 1000) : '0';
}

/** The shard thread's part of the header and its total, in milliseconds. */
export function shardTiming(marks: Float64Array): { readonly text: string; readonly ms: number } {
  const gatesEnd = marks[STAGE_GATES_END] as number;
  let text = '';
  for (let i = 0; i < GATES.length; i++) {
    const [slot, name] = GATES[i] as readonly [number, string];
    const start = marks[slot] as number;
    if (start === 0) continue;
    let end = gatesEnd;
    for (let j = i + 1; j < GATES.length; j++) {
      const next = marks[(GATES[j] as readonly [number, string])[0]] as number;
      if (next !== 0) {
        end = next;
        break;
      }
    }
    text += `${name};dur=${dur(end - start)}, `;
  }
  const recordEnd = marks[STAGE_RECORD_END] as number;
  const signed = marks[STAGE_SIGNED] as number;
  const committed = marks[STAGE_COMMITTED] as number;
  text += `record;dur=${dur(recordEnd - gatesEnd)}, sign;dur=${dur(signed - recordEnd)}, commit;dur=${dur(committed - signed)}`;
  return { text, ms: committed - (marks[STAGE_MANDATE] as number) };
}

/**
 * The Server-Timing header of an answer: `edge` (receipt to the engine), `queue` (the engine's
 * time less the shard's stages), the shard's stages when it sent them (not on a replay or a
 * safe decision), and `total` (receipt to answer, as processing_time_ms).
 */
export function serverTiming(
  edgeMs: number,
  engineMs: number,
  shard: string | undefined,
  shardMs: number,
  totalMs: number,
): string {
  if (shard === undefined) return `edge;dur=${dur(edgeMs)}, queue;dur=${dur(engineMs)}, total;dur=${dur(totalMs)}`;
  return `edge;dur=${dur(edgeMs)}, queue;dur=${dur(engineMs - shardMs)}, ${shard}, total;dur=${dur(totalMs)}`;
}
