// Start-up of secrets at rest: which key seals (SECRETS_KEY, else one generated once under
// DATA_DIR), and the re-seal pass that runs after the migrations and before any request: rows
// still in plaintext (written before migration 0100) and rows sealed under a previous key are
// sealed again under the current key. Several instances on one database take turns on an
// advisory lock inside one transaction per database, so none fights another and a failure
// leaves every row as it was.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type Config, ConfigError } from '../config/config.js';
import type { Environment } from '../domain/environment.js';
import type { Databases, Sql } from '../storage/db.js';
import type { ReceiptKeyRow } from '../storage/rows/receipt-keys.js';
import type { SigningKeyRow } from '../storage/rows/signing-keys.js';
import type { WebhookRow } from '../storage/rows/webhooks.js';
import { SECRETS_KEY_BYTES, SecretBox } from './box.js';

export const SECRETS_KEY_FILE = 'secrets.key';
const RESEAL_LOCK_KEY = 727_274_100;

/** Where each kind of sealed secret lives, and the additional data binding it to its row. */
export const signingKeyAad = (kid: string): string => `signing_keys.private_key:${kid}`;
export const webhookSecretAad = (webhookId: string): string => `webhooks.secret:${webhookId}`;
/** A webhook's previous secret during a rotation's grace period (src/webhooks/secret-rotation.ts). */
export const webhookPreviousSecretAad = (webhookId: string): string => `webhooks.previous_secret:${webhookId}`;
/** A decision receipt signing key (src/receipts/keys.ts). */
export const receiptKeyAad = (kid: string): string => `receipt_keys.private_key:${kid}`;
/** A Principal's confirmation endpoint secret (src/runtime/confirmation-channel-routes.ts, migration 0293). */
export const notifySecretAad = (principalId: string): string => `principals.confirmation_notify_secret:${principalId}`;

/**
 * A webhook's signing secret from its row. A row with no sealed value was written in plaintext
 * by a version before migration 0100 (e.g. an instance not yet upgraded during a rolling
 * upgrade): it is used as it is, and the next start-up seals it.
 */
export function webhookSecret(box: SecretBox, row: Pick<WebhookRow, 'id' | 'secret' | 'secret_sealed'>): string {
  if (row.secret_sealed !== null) return box.open(row.secret_sealed, webhookSecretAad(row.id)).toString('utf8');
  if (row.secret !== null) return row.secret;
  throw new Error(`webhook ${row.id} has no signing secret`);
}

/**
 * The key box of this process. Without SECRETS_KEY a key is generated once into
 * DATA_DIR/secrets.key (mode 0600) and reused from there; with DATABASE_URL set that is only
 * safe while every instance shares that DATA_DIR, so it is said with a warning.
 */
export function loadSecretBox(config: Config, log: Logger): SecretBox {
  if (config.secretsKey !== null) {
    const box = new SecretBox(config.secretsKey, config.secretsKeyPrevious);
    log.info({ keyId: box.keyId, previousKeyIds: box.keyIds.slice(1) }, 'secrets: sealing with SECRETS_KEY');
    return box;
  }
  const path = join(config.dataDir, SECRETS_KEY_FILE);
  let key: Buffer;
  if (existsSync(path)) {
    key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== SECRETS_KEY_BYTES) {
      throw new ConfigError('SECRETS_KEY', `${path} does not hold the base64 of 32 bytes`);
    }
  } else {
    key = randomBytes(SECRETS_KEY_BYTES);
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
    log.info({ path }, 'secrets: generated a secrets key; it is in this file (mode 0600)');
  }
  const box = new SecretBox(key);
  if (config.databaseUrl !== null) {
    log.warn(
      { path, keyId: box.keyId },
      'secrets: SECRETS_KEY is not set; sealing with the key in DATA_DIR. Every instance on this database needs the same key: set SECRETS_KEY in production (docs/secrets.md)',
    );
  } else {
    log.info({ path, keyId: box.keyId }, 'secrets: sealing with the key in DATA_DIR');
  }
  return box;
}

/**
 * Seals every plaintext secret and re-seals every secret not sealed under the current key, in
 * both databases. Throws ConfigError('SECRETS_KEY', …) when a stored secret opens with none
 * of the configured keys (wrong key): nothing is changed then.
 */
export async function resealSecrets(dbs: Databases, box: SecretBox, log: Logger): Promise<void> {
  // A database not open yet (the embedded sandbox) is re-sealed as it opens (resealOpened).
  for (const env of ['live', 'sandbox'] as const)
    if (dbs.isOpen(env)) await resealOpened(env, dbs.forEnv(env), box, log);
}

/** The re-seal pass of one database (at start, or as the embedded sandbox opens later). */
export async function resealOpened(env: Environment, sql: Sql, box: SecretBox, log: Logger): Promise<void> {
  const counts = await resealDatabase(sql, box);
  if (
    counts.signingKeys + counts.webhooks + counts.receiptKeys + counts.previousWebhookSecrets + counts.notifySecrets >
    0
  ) {
    log.info({ database: env, keyId: box.keyId, ...counts }, 'secrets: sealed under the current key');
  }
}

async function resealDatabase(
  sql: Sql,
  box: SecretBox,
): Promise<{
  signingKeys: number;
  webhooks: number;
  receiptKeys: number;
  previousWebhookSecrets: number;
  notifySecrets: number;
}> {
  const current = `asas1.${box.keyId}.%`;
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${RESEAL_LOCK_KEY})`;
    const keys = await tx<Pick<SigningKeyRow, 'kid' | 'private_key_pkcs8' | 'private_key_sealed'>[]>`
      select kid, private_key_pkcs8, private_key_sealed from signing_keys
      where private_key_pkcs8 is not null or private_key_sealed is null or private_key_sealed not like ${current}
      for update`;
    for (const k of keys) {
      const aad = signingKeyAad(k.kid);
      const plain = k.private_key_sealed !== null ? box.open(k.private_key_sealed, aad) : k.private_key_pkcs8;
      if (plain === null) throw new Error(`signing key ${k.kid} has neither a sealed nor a plaintext private key`);
      await tx`update signing_keys set private_key_sealed = ${box.seal(plain, aad)}, private_key_pkcs8 = null
        where kid = ${k.kid}`;
    }
    const hooks = await tx<Pick<WebhookRow, 'id' | 'secret' | 'secret_sealed'>[]>`
      select id, secret, secret_sealed from webhooks
      where secret is not null or secret_sealed is null or secret_sealed not like ${current}
      for update`;
    for (const h of hooks) {
      const aad = webhookSecretAad(h.id);
      const plain = h.secret_sealed !== null ? box.open(h.secret_sealed, aad) : h.secret;
      if (plain === null) throw new Error(`webhook ${h.id} has neither a sealed nor a plaintext secret`);
      await tx`update webhooks set secret_sealed = ${box.seal(plain, aad)}, secret = null where id = ${h.id}`;
    }
    // Migration 0200: receipt keys and the previous secret of a webhook in its rotation grace.
    const receiptKeys = await tx<Pick<ReceiptKeyRow, 'kid' | 'private_key_sealed'>[]>`
      select kid, private_key_sealed from receipt_keys where private_key_sealed not like ${current} for update`;
    for (const k of receiptKeys) {
      const aad = receiptKeyAad(k.kid);
      await tx`update receipt_keys set private_key_sealed = ${box.seal(box.open(k.private_key_sealed, aad), aad)}
        where kid = ${k.kid}`;
    }
    const previous = await tx<
      (Pick<WebhookRow, 'id'> & { previous_secret_sealed: NonNullable<WebhookRow['previous_secret_sealed']> })[]
    >`
      select id, previous_secret_sealed from webhooks
      where previous_secret_sealed is not null and previous_secret_sealed not like ${current} for update`;
    for (const h of previous) {
      const aad = webhookPreviousSecretAad(h.id);
      await tx`update webhooks set previous_secret_sealed = ${box.seal(box.open(h.previous_secret_sealed, aad), aad)}
        where id = ${h.id}`;
    }
    // Migration 0293: the Principals' confirmation endpoint secrets.
    const notify = await tx<{ id: string; sealed: string }[]>`
      select id, confirmation_notify_secret_sealed as sealed from principals
      where confirmation_notify_secret_sealed is not null and confirmation_notify_secret_sealed not like ${current}
      for update`;
    for (const p of notify) {
      const aad = notifySecretAad(p.id);
      await tx`update principals set confirmation_notify_secret_sealed = ${box.seal(box.open(p.sealed, aad), aad)}
        where id = ${p.id}`;
    }
    return {
      signingKeys: keys.length,
      webhooks: hooks.length,
      receiptKeys: receiptKeys.length,
      previousWebhookSecrets: previous.length,
      notifySecrets: notify.length,
    };
  });
}
