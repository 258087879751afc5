// Decentralized identifiers of agents. An agent registered without a DID gets a did:key
// (W3C did:key method): an Ed25519 public key prefixed with its multicodec code (0xed 0x01),
// encoded as multibase base58btc ('z' + base58 with the Bitcoin alphabet).
// The private key of a generated did:key is not kept: the DID identifies the agent; an agent
// that must prove possession registers its own key (runtime plane, public_key_jwk).
import { generateKeyPairSync } from 'node:crypto';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const ED25519_MULTICODEC = Uint8Array.of(0xed, 0x01);
/** did:<method>:<method-specific-id> (W3C DID Core, section 3.1, without path/query/fragment). */
const DID_METHOD = /^did:([a-z0-9]+):/;
/** One ':'-separated segment of the method-specific id: idchar or pct-encoded. */
const DID_SEGMENT = /^(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*$/;

export function base58btc(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  return '1'.repeat(zeros) + out;
}

export function base58btcDecode(text: string): Uint8Array | null {
  let n = 0n;
  for (const ch of text) {
    const v = BASE58.indexOf(ch);
    if (v === -1) return null;
    n = n * 58n + BigInt(v);
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes]);
}

/** did:key of a raw 32-byte Ed25519 public key. */
export function ed25519DidKey(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new Error('an Ed25519 public key has 32 bytes');
  const prefixed = new Uint8Array(34);
  prefixed.set(ED25519_MULTICODEC, 0);
  prefixed.set(publicKey, 2);
  return `did:key:z${base58btc(prefixed)}`;
}

/** A fresh did:key from a newly generated Ed25519 key pair. */
export function generateDidKey(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  // The SPKI DER of an Ed25519 key ends with the 32 raw key bytes.
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return ed25519DidKey(new Uint8Array(der.subarray(der.length - 32)));
}

/** The raw Ed25519 public key inside a did:key, or null when it is not an Ed25519 did:key. */
export function ed25519FromDidKey(did: string): Uint8Array | null {
  if (!did.startsWith('did:key:z')) return null;
  const bytes = base58btcDecode(did.slice('did:key:z'.length));
  if (bytes === null || bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) return null;
  return bytes.subarray(2);
}

/** The DID method ('key', 'web', ...) of a syntactically valid DID, otherwise null. */
export function didMethod(did: string): string | null {
  if (did.length > 2048) return null;
  const m = DID_METHOD.exec(did);
  if (m === null) return null;
  // Segment by segment (linear time): `*(*idchar ":") 1*idchar`.
  const segments = did.slice(m[0].length).split(':');
  if ((segments[segments.length - 1] as string).length === 0) return null;
  for (const seg of segments) if (!DID_SEGMENT.test(seg)) return null;
  return m[1] as string;
}

/** The unique index of migration 0090: a DID is unique within its Client, not across tenants. */
export const AGENT_DID_INDEX = 'agents_client_did_key';

/** True when `err` is PostgreSQL's unique violation of an agent DID within its Client. */
export function isDuplicateAgentDid(err: unknown): boolean {
  const e = err as { code?: unknown; constraint_name?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && (e.constraint_name ?? e.constraint) === AGENT_DID_INDEX;
}
