// POST /admin/v1/receipt-keys/rotate: the operator rotates the key that signs decision receipts
// (src/receipts/keys.ts). Internal (X-Admin-Key), like the other operator routes.
import { recordSecurityEvent } from '../audit/security-log.js';
import type { AuthService } from '../auth/service.js';
import { json, type RouteDef } from '../http/types.js';
import type { Databases } from '../storage/db.js';
import { RECEIPT_KEY_LEAD_SECONDS, RECEIPT_KEY_RETENTION_DAYS } from './keys.js';

export function receiptKeyRoutes(dbs: Databases, auth: AuthService): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/admin/v1/receipt-keys/rotate',
      auth: 'admin',
      internal: true,
      body: 'AdminRotateReceiptKey',
      successStatus: 201,
      summary: 'Rotate the receipt signing key; the keys it replaces stay published for the retention',
      handler: async (ctx) => {
        const body = (ctx.body ?? {}) as { lead_seconds?: number; retention_days?: number };
        const lead = body.lead_seconds ?? RECEIPT_KEY_LEAD_SECONDS;
        const retention = body.retention_days ?? RECEIPT_KEY_RETENTION_DAYS;
        const result = await auth.receipts.rotate(lead, retention);
        await recordSecurityEvent(dbs.live, ctx, {
          action: 'receipt_key.rotated',
          targetType: 'receipt_key',
          targetId: result.kid,
          changes: { lead_seconds: lead, retention_days: retention, signs_from: result.signs_from },
        });
        return json(201, result);
      },
    },
  ];
}
