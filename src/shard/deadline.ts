// Deadlines of the shard's database work. Every step a request waits for (its actor's state
// load, a budget grant or read, its batch's commit) must be done by a deadline counted from the
// time the edge received the request, whose length the breaker picks (strict or relaxed, see
// Breaker.deadline). A step that misses it fails with the one DeadlineError
// (src/errors/deadline.ts), which the breaker counts as slow, never as the database gone.

import { DeadlineError } from '../errors/deadline.js';

/** Picks a deadline's length: Breaker.deadline. */
export interface DeadlinePicker {
  deadline(strictMs: number, relaxedMs: number, nowMs: number): number;
}

/**
 * When work for a request received at the edge at `receivedAtMs` must be done (ms since the
 * epoch): `strictMs` after it, or `relaxedMs` while the database has behaved (the picker decides).
 */
export function deadlineAt(
  picker: DeadlinePicker,
  receivedAtMs: number,
  strictMs: number,
  relaxedMs: number,
  nowMs: number,
): number {
  return receivedAtMs + picker.deadline(strictMs, relaxedMs, nowMs);
}

/** `work`, or a rejection with DeadlineError(`what`) at `until` (ms since the epoch). */
export async function beforeDeadline<T>(work: Promise<T>, until: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(what)), Math.max(0, until - Date.now()));
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
