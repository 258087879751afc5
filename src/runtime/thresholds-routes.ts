// GET/PUT/DELETE /api/v1/thresholds: a Principal's overrides of the decision thresholds,
// merged over the platform defaults of src/decision/model/thresholds.ts. After a change commits
// every actor of the Principal is told to reload its thresholds before its next decision.

import type { Services } from '../app/services.js';
import { recordSecurityEvent } from '../audit/security-log.js';
import {
  isThresholdName,
  mergeThresholds,
  THRESHOLD_DEFAULTS,
  THRESHOLD_SPECS,
  type ThresholdOverrides,
  validateThresholdOverrides,
} from '../decision/model/thresholds.js';
import { ApiError } from '../errors/registry.js';
import { json, type RouteDef } from '../http/types.js';
import type { Sql } from '../storage/db.js';
import type { ThresholdsRow } from '../storage/rows/thresholds.js';
import { invalidatePrincipal } from './engine-handle.js';

export async function loadOverrides(db: Sql, principalId: string): Promise<ThresholdOverrides> {
  const rows = await db<Pick<ThresholdsRow, 'overrides'>[]>`
    select overrides from thresholds where principal_id = ${principalId}`;
  return cleanOverrides(rows[0]?.overrides ?? {});
}

/** Stored overrides restricted to known fields with finite numbers (older rows may hold others). */
function cleanOverrides(stored: Record<string, unknown>): ThresholdOverrides {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(stored)) {
    if (isThresholdName(k) && typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

/**
 * True when every field of the patch is known and its value is null or a number of the right
 * kind within range: the failures left after that are cross-field (422 invalid_thresholds).
 */
function fieldsValid(patch: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(patch)) {
    if (!isThresholdName(k)) return false;
    if (v === null) continue;
    const s = THRESHOLD_SPECS[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || (s.integer && !Number.isInteger(v))) return false;
    if ((s.minInclusive ? v < s.min : v <= s.min) || v > s.max) return false;
  }
  return true;
}

export function thresholdsRoutes(services: Services): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/thresholds',
      auth: 'principal',
      response: 'ThresholdsView',
      operationId: 'getThresholds',
      summary: 'Effective decision thresholds, the overrides and the platform defaults',
      handler: async (ctx) => {
        const { db } = ctx;
        const { principalId } = ctx.auth;
        const overrides = await loadOverrides(db, principalId);
        return json(200, {
          thresholds: mergeThresholds(overrides),
          overrides,
          platform_defaults: THRESHOLD_DEFAULTS,
        });
      },
    },
    {
      method: 'PUT',
      path: '/api/v1/thresholds',
      auth: 'principal',
      body: 'ThresholdsUpdateRequest',
      response: 'ThresholdsUpdateResponse',
      errors: ['no_fields_to_update', 'invalid_thresholds'],
      operationId: 'updateThresholds',
      summary: 'Override any subset of thresholds; null reverts a field to its default',
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const patch = ctx.body as Record<string, unknown>;
        if (Object.keys(patch).length === 0) throw new ApiError('no_fields_to_update');
        // The row is locked so two concurrent PUTs merge one after the other, never lose a field.
        const result = await db.begin(async (tx) => {
          await tx`insert into thresholds (principal_id) values (${auth.principalId})
            on conflict (principal_id) do nothing`;
          const rows = await tx<Pick<ThresholdsRow, 'overrides'>[]>`
            select overrides from thresholds where principal_id = ${auth.principalId} for update`;
          const checked = validateThresholdOverrides(patch, cleanOverrides(rows[0]?.overrides ?? {}));
          if (!checked.ok) {
            const code = fieldsValid(patch) ? 'invalid_thresholds' : 'validation_error';
            throw new ApiError(code, undefined, { details: checked.problems.map((p) => ({ ...p })) });
          }
          await tx`update thresholds set overrides = ${tx.json(checked.overrides as Record<string, number>)},
            updated_at = now() where principal_id = ${auth.principalId}`;
          await recordSecurityEvent(tx, ctx, {
            action: 'thresholds.updated',
            targetType: 'thresholds',
            targetId: auth.principalId,
            changes: { fields_changed: checked.fieldsChanged, requested: patch, overrides: checked.overrides },
          });
          return checked;
        });
        if (result.fieldsChanged.length > 0) {
          await invalidatePrincipal(services, auth.environment, auth.principalId);
        }
        return json(200, {
          status: 'updated',
          fields_changed: result.fieldsChanged,
          effective_thresholds: result.effective,
        });
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/thresholds',
      auth: 'principal',
      response: 'ThresholdsResetResponse',
      operationId: 'resetThresholds',
      summary: 'Remove every threshold override',
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const deleted = await db.begin(async (tx) => {
          const removed = await tx`delete from thresholds where principal_id = ${auth.principalId}
            returning overrides`;
          await recordSecurityEvent(tx, ctx, {
            action: 'thresholds.reset',
            targetType: 'thresholds',
            targetId: auth.principalId,
            changes: { removed_overrides: cleanOverrides(removed[0]?.overrides ?? {}) },
          });
          return removed;
        });
        const had = deleted.length > 0 && Object.keys(cleanOverrides(deleted[0]?.overrides ?? {})).length > 0;
        if (had) await invalidatePrincipal(services, auth.environment, auth.principalId);
        return json(200, {
          status: 'reset',
          message: had
            ? 'All threshold overrides were removed; the platform defaults apply.'
            : 'There were no threshold overrides; the platform defaults apply.',
        });
      },
    },
  ];
}
