// The idempotency-key memory of an actor (worker side): the keys its agent used recently, each
// with its recorded answer, so a repeat is answered from memory (the replayed decision,
// key_reused or key_expired) and a repeat that arrives while the original is being committed
// waits for it. At most keysPerActor keys per actor (the oldest answered one leaves first);
// older keys are found in the database, looked up with the request that builds a cold actor.
// What the keys cost counts in the actor's size in the LRU (keyBytes).
import type { AuditRow } from '../decision/model/contract.js';
import type { Sql } from '../storage/db.js';
import { type Actor, type Job, type KeyEntry, safeResult } from './actor.js';
import type { CommitOutcome } from './committer.js';
import { requestFingerprint } from './idempotency.js';
import type { AuthorizeResult } from './protocol.js';

/**
 * One remembered idempotency key beyond its characters: map entry, KeyEntry, the response body
 * (its receipt included). Measured: 2.47 KB per entry on Node 22 x64 (20,000 entries of an
 * approval's response, heap used after a full collection).
 */
export const KEY_ENTRY_BYTES = 2500;

/**
 * Keys an actor remembers (the newest answered ones stay). A retry comes seconds after its
 * original, so 32 cover every ordinary retry; an older key is still answered right, by the
 * database: the actor commits, the unique key conflicts, the recorded answer is replayed and
 * the actor reloads. 256 kept ~0.6 MB per busy agent and made a shard's memory grow for
 * minutes under keyed traffic (docs/benchmarks.md, Soak).
 */
export const KEYS_PER_ACTOR = 32;

export const KEY_REUSED: AuthorizeResult = Object.freeze({ kind: 'key_reused' });
export const KEY_EXPIRED: AuthorizeResult = Object.freeze({ kind: 'key_expired' });
/** A remembered key's answer is replayed from memory this long at most (the database sweep's retention). */
const KEY_MEMORY_MS = 24 * 60 * 60 * 1000;

type Replay = Extract<CommitOutcome, { kind: 'replay' }>;

/** A key as the database recorded it. */
export interface StoredKey {
  /** Null once swept (past 24 hours or beyond the per-Principal cap). */
  response: Record<string, unknown> | null;
  request_hash: string | null;
}

/** Estimated bytes of the actor's remembered keys. */
export function keyBytes(actor: Actor): number {
  return actor.keys.size * KEY_ENTRY_BYTES + actor.keyChars;
}

/**
 * Answers `job`, a repeat of a key the actor remembers, from memory: key_reused when it is not
 * the same request, key_expired past KEY_MEMORY_MS or once the database swept the answer, else
 * the recorded decision; while the original is being committed, the repeat waits for it.
 */
export function answerRepeat(entry: KeyEntry, job: Job, fingerprint: string): void {
  if (!entry.expired && Date.now() - entry.sinceMs > KEY_MEMORY_MS) entry.expired = true;
  if (entry.fingerprint !== null && entry.fingerprint !== fingerprint) job.resolve(KEY_REUSED);
  else if (entry.expired) job.resolve(KEY_EXPIRED);
  else if (entry.response !== null) job.resolve({ kind: 'decided', response: entry.response, replayed: true });
  else entry.waiters.push(job);
}

/** Remembers `key` for the actor's decision being committed now: its repeats wait for it. */
export function rememberOriginal(
  actor: Actor,
  key: string,
  fingerprint: string | null,
  keysPerActor: number,
): KeyEntry {
  const entry: KeyEntry = { response: null, fingerprint, expired: false, sinceMs: Date.now(), waiters: [] };
  remember(actor, key, entry, keysPerActor);
  return entry;
}

/** Remembers `key` as the database recorded it (found while the actor was built). */
export function rememberStored(actor: Actor, key: string, stored: StoredKey, keysPerActor: number): void {
  const entry: KeyEntry = {
    response: stored.response,
    fingerprint: stored.request_hash,
    expired: stored.response === null,
    sinceMs: Date.now(),
    waiters: [],
  };
  remember(actor, key, entry, keysPerActor);
}

/**
 * The key was recorded by someone else (another agent's actor, an earlier life) when the
 * original was committed: notes that in `entry` and returns what the original request (its
 * fingerprint `requestHash`) gets.
 */
export function recordedElsewhere(
  entry: KeyEntry | undefined,
  outcome: Replay,
  requestHash: AuditRow['request_hash'],
): AuthorizeResult {
  if (entry !== undefined) {
    entry.fingerprint = outcome.requestHash;
    entry.expired = outcome.response === null;
  }
  return outcome.requestHash !== null && outcome.requestHash !== requestHash
    ? KEY_REUSED
    : outcome.response === null
      ? KEY_EXPIRED
      : { kind: 'decided', response: outcome.response, replayed: true };
}

/**
 * The original of `entry` has its outcome and `result` its answer: keeps the answer to replay
 * (or forgets the key when the original failed) and answers the repeats that waited for it.
 */
export function settleRepeats(
  actor: Actor,
  key: string,
  entry: KeyEntry,
  outcome: CommitOutcome,
  result: AuthorizeResult,
): void {
  if (outcome.kind === 'replay') {
    // The key's first use was elsewhere: each waiter is compared with that one.
    if (outcome.response !== null) entry.response = outcome.response;
  } else if (result.kind === 'decided') entry.response = result.response;
  else if (actor.keys.get(key) === entry) forget(actor, key);
  const repeat: AuthorizeResult =
    outcome.kind === 'replay'
      ? outcome.response === null
        ? KEY_EXPIRED
        : { kind: 'decided', response: outcome.response, replayed: true }
      : result.kind === 'decided'
        ? { kind: 'decided', response: result.response, replayed: true }
        : result;
  for (const w of entry.waiters) {
    if (entry.fingerprint !== null && requestFingerprint(w.request) !== entry.fingerprint) w.resolve(KEY_REUSED);
    else w.resolve(repeat.kind === 'safe' ? safeResult(w.request) : repeat);
  }
  entry.waiters = [];
}

/** The recorded answer and request fingerprint of `key`, or null when the database has none. */
export async function storedKey(sql: Sql, principalId: string, key: string): Promise<StoredKey | null> {
  const rows = await sql<StoredKey[]>`
    select coalesce(r.response, a.response::json) as response, a.request_hash
    from authorizations a left join authorization_responses r on r.authorization_id = a.id
    where a.principal_id = ${principalId} and a.idempotency_key = ${key}`;
  return rows[0] ?? null;
}

function remember(actor: Actor, key: string, entry: KeyEntry, keysPerActor: number): void {
  forget(actor, key);
  actor.keys.set(key, entry);
  actor.keyChars += key.length;
  if (actor.keys.size <= keysPerActor) return;
  for (const [k, e] of actor.keys) {
    // Not an original still being committed (its repeats wait on the entry).
    if (e.response !== null || e.expired) {
      forget(actor, k);
      return;
    }
  }
}

function forget(actor: Actor, key: string): void {
  if (actor.keys.delete(key)) actor.keyChars -= key.length;
}
