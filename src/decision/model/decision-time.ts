// The time an authorization is decided at (docs/decision-engine.md "Decision time"): when the
// edge received it, not when its shard got to it. A request that waited in a shard's queue
// behind another tenant's flood is judged at the moment the agent sent it, so the velocity,
// rapid-fire, burst, pace and session gates see the agent's own rhythm, not a burst made by the
// queue. The same time is the response's timestamp, the audit row's created_at (what a reload
// replays), and the start of the step-up and hold windows and of the calendar day of the caps.
//
// Two clamps keep the agent's time sane:
// - never later than the shard's clock (a receive time stamped ahead of it, by another
//   instance's clock or a wall-clock step, is taken as now);
// - never earlier than the time the agent's state is already current to (its newest decision,
//   or the time it was loaded as of): the time windows and rings append in time order, and the
//   calendar windows of the caps and of the Principal budget only ever move forward. A request
//   that reaches its actor after a later-received one (two connections, a forwarded request)
//   is decided at that later one's time.
// When the two disagree (a state current to a time ahead of the clock, after the wall clock
// stepped back), the state's time wins: the agent's time never goes backwards.

/**
 * The decision time of a request received at `receivedAtMs`, for an agent whose state is
 * current to `decidedUpToMs`, on a shard whose clock reads `nowMs` (all ms since the epoch).
 * Whole milliseconds, as the audit row stores them, so a reload replays exactly the times the
 * live state counted.
 */
export function decisionTime(receivedAtMs: number, decidedUpToMs: number, nowMs: number): number {
  const received = Math.floor(receivedAtMs);
  // A receive time that is not a number (the edge never builds one) is taken as now.
  const at = Number.isNaN(received) ? nowMs : Math.min(received, nowMs);
  return Math.max(at, decidedUpToMs);
}
