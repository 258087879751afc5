// Identifiers: a type prefix from SPEC.md "Identifier prefixes" and 24 random base62 characters
// (about 143 bits), so ids are unguessable and never reveal creation order.
import { randomBytes } from 'node:crypto';

export type IdPrefix = 'cli' | 'prg' | 'prn' | 'agt' | 'mnd' | 'auth' | 'acr' | 'wh' | 'evt' | 'req' | 'whsec' | 'stp';

declare const brand: unique symbol;
export type Id<P extends string> = string & { readonly [brand]: P };
export type ClientId = Id<'cli'>;
export type ProgramId = Id<'prg'>;
export type PrincipalId = Id<'prn'>;
export type AgentId = Id<'agt'>;
export type MandateId = Id<'mnd'>;
export type AuthorizationId = Id<'auth'>;
export type CredentialId = Id<'acr'>;
export type WebhookId = Id<'wh'>;
export type EventId = Id<'evt'>;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = POOL_SIZE;

/** 24 base62 characters from a pooled CSPRNG buffer (one randomBytes call per ~170 ids). */
export function randomToken(length = 24): string {
  let out = '';
  while (out.length < length) {
    if (offset >= POOL_SIZE) {
      pool = randomBytes(POOL_SIZE);
      offset = 0;
    }
    const b = pool[offset++] as number;
    // 248 = 62 * 4: rejecting the top values keeps every character equally likely.
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

export function newId<P extends IdPrefix>(prefix: P): Id<P> {
  return `${prefix}_${randomToken()}` as Id<P>;
}

export function hasPrefix<P extends IdPrefix>(value: string, prefix: P): value is Id<P> {
  return value.startsWith(`${prefix}_`) && value.length > prefix.length + 1;
}
