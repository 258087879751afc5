// The operator's X-Admin-Key. ADMIN_KEY when configured; otherwise a key generated once, its
// raw value written to DATA_DIR/admin.key (mode 0600) and only its SHA-256 kept, in the live
// database. Presented keys are compared by hash in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { randomToken } from '../domain/ids.js';
import type { Sql } from '../storage/db.js';

export const ADMIN_KEY_FILE = 'admin.key';
const SECRET_NAME = 'admin_key';

export class AdminKeyVerifier {
  readonly #hash: Buffer;

  constructor(hash: Buffer) {
    this.#hash = hash;
  }

  verify(presented: string | undefined): boolean {
    if (presented === undefined || presented.length === 0 || presented.length > 512) return false;
    return timingSafeEqual(sha256(presented), this.#hash);
  }
}

export async function loadAdminKey(config: Config, live: Sql, log: Logger): Promise<AdminKeyVerifier> {
  if (config.adminKey !== null) return new AdminKeyVerifier(sha256(config.adminKey));
  const path = join(config.dataDir, ADMIN_KEY_FILE);
  const [stored] = await live<{ value_hash: Buffer }[]>`
    select value_hash from service_secrets where name = ${SECRET_NAME}`;
  if (stored !== undefined) {
    if (existsSync(path)) log.info({ path }, 'admin key: using the generated key');
    else log.warn({ path }, 'admin key: generated earlier but its file is missing; set ADMIN_KEY to replace it');
    return new AdminKeyVerifier(stored.value_hash);
  }
  const raw = `mdt_admin_${randomToken(40)}`;
  const hash = sha256(raw);
  const inserted = await live`
    insert into service_secrets (name, value_hash) values (${SECRET_NAME}, ${hash})
    on conflict (name) do nothing returning name`;
  if (inserted.length === 0) {
    // Another instance generated it first.
    const [row] = await live<{ value_hash: Buffer }[]>`
      select value_hash from service_secrets where name = ${SECRET_NAME}`;
    if (row === undefined) throw new Error('admin key disappeared while starting');
    return new AdminKeyVerifier(row.value_hash);
  }
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(path, `${raw}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // mode applies only when the file is created
  log.info({ path }, 'admin key: generated; the raw key is in this file (mode 0600)');
  return new AdminKeyVerifier(hash);
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}
