// API key format and hashing. A key is `mdt_live_` or `mdt_test_` followed by 40 random base62
// characters (about 238 bits); a legacy `mdt_` key with no environment segment is a live key.
// Only the SHA-256 of a key is ever stored.
import { createHash } from 'node:crypto';
import { randomToken } from '../domain/ids.js';
import type { Environment } from './types.js';

const RANDOM_LENGTH = 40;
/** Longer values are not keys; rejecting them early bounds the work an attacker can cause. */
const MAX_KEY_LENGTH = 256;

export function generateApiKey(env: Environment): string {
  return `${env === 'sandbox' ? 'mdt_test_' : 'mdt_live_'}${randomToken(RANDOM_LENGTH)}`;
}

/** The environment a presented key belongs to, or null when it is not shaped like a key. */
export function keyEnvironment(raw: string): Environment | null {
  if (raw.length <= 4 || raw.length > MAX_KEY_LENGTH || !raw.startsWith('mdt_')) return null;
  if (raw.startsWith('mdt_test_')) return raw.length > 9 ? 'sandbox' : null;
  if (raw.startsWith('mdt_live_')) return raw.length > 9 ? 'live' : null;
  return 'live';
}

export function hashKey(raw: string): Buffer {
  return createHash('sha256').update(raw, 'utf8').digest();
}
