// The receipt signing keys (migrations/0200): Ed25519, generated on first start, stored sealed
// in the live database like the token key (src/auth/tokens.ts, docs/secrets.md) and published
// at /.well-known/jwks.json next to it.
//
// Rotation (POST /admin/v1/receipt-keys/rotate) inserts the next key with `signs_from` a lead
// time ahead (default 60 s): every instance reloads the key set every RELOAD_MS (15 s), so each
// publishes the next key before any instance signs with it. The key it replaces stays published
// for the retention given at rotation (default RECEIPT_KEY_RETENTION_DAYS), so receipts it signed
// keep verifying; after that it leaves the JWKS and its receipts no longer verify against it.
import { generateKeyPairSync } from 'node:crypto';
import { exportJWK } from 'jose';
import type { Logger } from 'pino';
import type postgres from 'postgres';
import type { PublicJwk } from '../auth/tokens.js';
import { randomToken } from '../domain/ids.js';
import type { SecretBox } from '../secrets/box.js';
import { receiptKeyAad } from '../secrets/service.js';
import type { Sql } from '../storage/db.js';
import type { ReceiptKeyRow } from '../storage/rows/receipt-keys.js';
import type { ReceiptKeyMaterial } from './signer.js';

/** How long a rotated-out receipt key stays published unless the rotation says otherwise. */
export const RECEIPT_KEY_RETENTION_DAYS = 400;
/** How long after a rotation the next key starts signing, unless the rotation says otherwise. */
export const RECEIPT_KEY_LEAD_SECONDS = 60;
/** How often an instance reloads the key set (a rotation's lead time must exceed it). */
const RELOAD_MS = 15_000;
const LOCK_KEY = 727_274_200;
/** How far before its creation the very first receipt key signs from. */
const FIRST_KEY_BACKDATE_SECONDS = 3600;

/** A receipt_keys row as reload reads it, its JWK typed. */
type KeyRow = Pick<ReceiptKeyRow, 'kid' | 'private_key_sealed' | 'signs_from' | 'published_until'> & {
  public_jwk: PublicJwk;
};

export interface RotationResult {
  /** The new key. */
  readonly kid: string;
  /** When it starts signing (every instance publishes it before). */
  readonly signs_from: string;
  /** The keys it replaces (the one signing until then), and until when they stay published. */
  readonly retired: readonly string[];
  readonly retired_published_until: string | null;
}

export class ReceiptKeys {
  #active: KeyRow | null = null;
  #jwks: PublicJwk[] = [];
  #rowsLive: KeyRow[] = [];
  /** The earliest published_until of the set (ms), when published() must filter again. */
  #expiresAt = Number.POSITIVE_INFINITY;
  #timer: NodeJS.Timeout | null = null;
  #onChange: ((material: ReceiptKeyMaterial) => void) | null = null;

  private constructor(
    private readonly live: Sql,
    private readonly box: SecretBox,
    private readonly log: Logger,
  ) {}

  /** Loads the key set, generating the first key when there is none. */
  static async load(live: Sql, box: SecretBox, log: Logger): Promise<ReceiptKeys> {
    const keys = new ReceiptKeys(live, box, log);
    await keys.reload();
    if (keys.#active === null) {
      await live.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(${LOCK_KEY})`;
        const [any] = await tx`select 1 from receipt_keys where signs_from <= now()
          and (published_until is null or published_until > now()) limit 1`;
        if (any === undefined) {
          // The first key signs from an hour before it was made: it replaces no key, and an
          // instance whose clock runs behind the database's (the clock-skew drill: 2 s) finds it
          // signing at once instead of refusing to start.
          const kid = await insertKey(tx, box, -FIRST_KEY_BACKDATE_SECONDS);
          log.info({ kid }, 'generated the receipt signing key');
        }
      });
      await keys.reload();
    }
    if (keys.#active === null) throw new Error('no receipt signing key');
    return keys;
  }

  /** The public keys to publish (every key not past its retention, the next one included). */
  published(): readonly PublicJwk[] {
    const now = Date.now();
    if (this.#expiresAt <= now) {
      // A key's retention ended since the last reload: it leaves the set now.
      this.#rowsLive = this.#rowsLive.filter((r) => r.published_until === null || r.published_until.getTime() > now);
      this.#jwks = this.#rowsLive.map((r) => r.public_jwk);
      this.#expiresAt = nextExpiry(this.#rowsLive);
    }
    return this.#jwks;
  }

  /** The key that signs now. */
  material(): ReceiptKeyMaterial {
    const row = this.#active;
    if (row === null) throw new Error('no receipt signing key');
    return { kid: row.kid, pkcs8: this.box.open(row.private_key_sealed, receiptKeyAad(row.kid)) };
  }

  /** Reloads periodically; `onChange` gets the new signing key whenever it changes. */
  watch(onChange: (material: ReceiptKeyMaterial) => void): void {
    this.#onChange = onChange;
    const tick = () => {
      this.#timer = setTimeout(() => {
        void this.refresh()
          .catch((err: unknown) => this.log.warn({ err }, 'cannot reload the receipt keys'))
          .finally(() => {
            if (this.#timer !== null) tick();
          });
      }, RELOAD_MS).unref();
    };
    tick();
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#onChange = null;
  }

  /** Reloads the key set; tells the watcher when the signing key changed. */
  async refresh(): Promise<void> {
    const before = this.#active?.kid ?? null;
    await this.reload();
    const after = this.#active;
    if (after !== null && after.kid !== before && this.#onChange !== null) {
      this.log.info({ kid: after.kid, previous: before }, 'receipts: signing with a new key');
      this.#onChange(this.material());
    }
  }

  async reload(): Promise<void> {
    const rows = await this.live<KeyRow[]>`
      select kid, private_key_sealed, public_jwk, signs_from, published_until from receipt_keys
      where published_until is null or published_until > now()
      order by signs_from desc, kid desc`;
    const now = Date.now();
    this.#active = rows.find((r) => r.signs_from.getTime() <= now) ?? null;
    this.#jwks = rows.map((r) => r.public_jwk);
    this.#rowsLive = rows;
    this.#expiresAt = nextExpiry(rows);
  }

  /**
   * Rotates: the next key signs from `leadSeconds` on (every instance publishes it first), and
   * every key before it stays published for `retentionDays` after that, then leaves the JWKS.
   */
  async rotate(leadSeconds: number, retentionDays: number): Promise<RotationResult> {
    const result = await this.live.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${LOCK_KEY})`;
      const kid = await insertKey(tx, this.box, leadSeconds);
      const [next] = await tx<Pick<ReceiptKeyRow, 'signs_from'>[]>`
        select signs_from from receipt_keys where kid = ${kid}`;
      const from = (next as NonNullable<typeof next>).signs_from;
      const retired = await tx<
        (Pick<ReceiptKeyRow, 'kid'> & { published_until: NonNullable<ReceiptKeyRow['published_until']> })[]
      >`
        update receipt_keys set published_until = ${from}::timestamptz + ${`${retentionDays} days`}::interval
        where kid <> ${kid} and published_until is null returning kid, published_until`;
      return {
        kid,
        signs_from: from.toISOString(),
        retired: retired.map((r) => r.kid),
        retired_published_until: retired[0]?.published_until.toISOString() ?? null,
      };
    });
    // This instance takes the next key as soon as it signs; the others on their next reload.
    await this.refresh();
    const wait = Date.parse(result.signs_from) - Date.now();
    if (wait > 0) setTimeout(() => void this.refresh().catch(() => {}), wait + 10).unref();
    return result;
  }
}

function nextExpiry(rows: readonly KeyRow[]): number {
  let at = Number.POSITIVE_INFINITY;
  for (const r of rows) if (r.published_until !== null) at = Math.min(at, r.published_until.getTime());
  return at;
}

// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
async function insertKey(tx: postgres.TransactionSql<{}>, box: SecretBox, leadSeconds: number): Promise<string> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const kid = `rk_${randomToken(16)}`;
  const { x } = await exportJWK(publicKey);
  if (x === undefined) throw new Error('the Ed25519 public key exported without x');
  const jwk: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x, kid, use: 'sig', alg: 'EdDSA' };
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
  await tx`
    insert into receipt_keys (kid, private_key_sealed, public_jwk, signs_from)
    values (${kid}, ${box.seal(pkcs8, receiptKeyAad(kid))}, ${tx.json(jwk as never)},
      now() + ${`${leadSeconds} seconds`}::interval)`;
  return kid;
}
