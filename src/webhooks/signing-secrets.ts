// A webhook's signing secrets as a delivery uses them: the current one, and during a rotation's
// grace period the previous one (migrations/0200, sealed like the current one). The grace is
// judged by the database's clock in the statement that reads the row, so every instance stops
// signing with the previous secret at the same moment.
import type { SecretBox } from '../secrets/box.js';
import { webhookPreviousSecretAad, webhookSecret } from '../secrets/service.js';
import type { WebhookRow } from '../storage/rows/webhooks.js';

/** previous_secret_sealed only while its grace period lasts (null otherwise). */
export type SecretColumns = Pick<WebhookRow, 'id' | 'secret' | 'secret_sealed' | 'previous_secret_sealed'>;

/**
 * The SQL select list of SecretColumns for the webhooks table aliased `w` (the previous secret
 * only while `previous_secret_expires_at` is in the future).
 */
export const SECRET_SELECT = `w.id, w.secret, w.secret_sealed,
  case when w.previous_secret_expires_at > now() then w.previous_secret_sealed end as previous_secret_sealed`;

export function signingSecrets(box: SecretBox, row: SecretColumns): { current: string; previous: string | null } {
  return {
    current: webhookSecret(box, row),
    previous:
      row.previous_secret_sealed === null
        ? null
        : box.open(row.previous_secret_sealed, webhookPreviousSecretAad(row.id)).toString('utf8'),
  };
}
