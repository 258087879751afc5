// Secrets at rest: AES-256-GCM envelopes under a key from the environment (SECRETS_KEY), with
// the previous keys (SECRETS_KEY_PREVIOUS) kept for opening only, so a key can be rotated
// without losing what it sealed. docs/secrets.md describes the format and the rotation.
//
// Envelope (text, safe in any column): `asas1.<key id>.<iv>.<ciphertext+tag>`
//   - key id: 16 hex characters, the first 8 bytes of HMAC-SHA256(key, "asas secrets key id");
//     it names the key without revealing it, so several keys can coexist in one table;
//   - iv: 12 random bytes, base64url; ciphertext and the 16-byte GCM tag, base64url.
// The additional authenticated data names the row the secret belongs to (e.g.
// `webhooks.secret:wh_…`), so an envelope copied into another row does not open there.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { ConfigError } from '../config/config.js';

export const ENVELOPE_VERSION = 'asas1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRETS_KEY_BYTES = 32;

/** The id an envelope carries for the key that sealed it. */
export function secretsKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('asas secrets key id').digest().subarray(0, 8).toString('hex');
}

export class SecretBox {
  readonly #current: Buffer;
  readonly #currentId: string;
  readonly #keys: ReadonlyMap<string, Buffer>;

  /** `current` seals and opens; `previous` keys only open. Each key is 32 bytes. */
  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const k of [current, ...previous]) {
      if (k.length !== SECRETS_KEY_BYTES) throw new Error(`a secrets key must be ${SECRETS_KEY_BYTES} bytes`);
    }
    this.#current = current;
    this.#currentId = secretsKeyId(current);
    const keys = new Map<string, Buffer>();
    for (const k of previous) keys.set(secretsKeyId(k), k);
    keys.set(this.#currentId, current);
    this.#keys = keys;
  }

  /** Id of the key new envelopes are sealed with. */
  get keyId(): string {
    return this.#currentId;
  }

  /** Ids of every key this box can open with, current first. */
  get keyIds(): readonly string[] {
    return [this.#currentId, ...[...this.#keys.keys()].filter((id) => id !== this.#currentId)];
  }

  /** Seals `plaintext` for the row named by `aad`. */
  seal(plaintext: Buffer | string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
    const ct = Buffer.concat([cipher.update(data), cipher.final(), cipher.getAuthTag()]);
    return `${ENVELOPE_VERSION}.${this.#currentId}.${iv.toString('base64url')}.${ct.toString('base64url')}`;
  }

  /**
   * Opens an envelope sealed for the row named by `aad`. Throws ConfigError('SECRETS_KEY', …)
   * when no configured key opens it: the service cannot run with secrets it cannot read.
   */
  open(envelope: string, aad: string): Buffer {
    const parts = envelope.split('.');
    if (parts.length !== 4 || parts[0] !== ENVELOPE_VERSION) {
      throw new ConfigError('SECRETS_KEY', `a stored secret (${aad}) is not an ${ENVELOPE_VERSION} envelope`);
    }
    const [, kid, ivText, ctText] = parts as [string, string, string, string];
    const key = this.#keys.get(kid);
    if (key === undefined) {
      throw new ConfigError(
        'SECRETS_KEY',
        `stored secrets are sealed with key id ${kid}, which is neither SECRETS_KEY (key id ${this.#currentId}) ` +
          'nor in SECRETS_KEY_PREVIOUS; start with the key that sealed them (docs/secrets.md)',
      );
    }
    const iv = Buffer.from(ivText, 'base64url');
    const ct = Buffer.from(ctText, 'base64url');
    if (iv.length !== IV_BYTES || ct.length < TAG_BYTES) {
      throw new ConfigError('SECRETS_KEY', `a stored secret (${aad}) is a truncated envelope`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(ct.subarray(ct.length - TAG_BYTES));
      return Buffer.concat([decipher.update(ct.subarray(0, ct.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new ConfigError('SECRETS_KEY', `a stored secret (${aad}) fails authentication under key id ${kid}`);
    }
  }

  /** True when the envelope was sealed with the current key (nothing to re-seal). */
  isCurrent(envelope: string): boolean {
    return envelope.startsWith(`${ENVELOPE_VERSION}.${this.#currentId}.`);
  }
}
