// Shadow thresholds: GET/PUT/DELETE /api/v1/thresholds/shadow set a second set of the
// Principal's replayable thresholds, laid over its live overrides, that every decision is also
// decided under without effect (src/decision/threshold-eval.ts); the audit row keeps the
// shadow decision. GET /api/v1/thresholds/shadow/report summarises where the two differ. A change
// reaches the owning actors like a live thresholds change (invalidatePrincipal, every instance).
import type { Services } from '../app/services.js';
import { recordSecurityEvent } from '../audit/security-log.js';
import {
  isReplayable,
  REPLAYABLE_THRESHOLDS,
  replayablePatchErrors,
  replayableValues,
  shadowThresholdsOf,
} from '../decision/model/replayable.js';
import {
  mergeThresholds,
  type ThresholdOverrides,
  type Thresholds,
  thresholdsVersion,
  validateThresholdOverrides,
} from '../decision/model/thresholds.js';
import { ApiError } from '../errors/registry.js';
import { json, type RouteDef } from '../http/types.js';
import type { Sql } from '../storage/db.js';
import type { ShadowThresholdsRow } from '../storage/rows/thresholds.js';
import { RANGE_DEFAULT_ROWS, summaryOf } from './audit-range.js';
import { rangeErrors } from './backtest-routes.js';
import { invalidatePrincipal } from './engine-handle.js';
import { loadOverrides } from './thresholds-routes.js';

const DAY_MS = 86_400_000;

/** Stored shadow overrides restricted to replayable fields with finite numbers. */
function cleanShadow(stored: Record<string, unknown> | null | undefined): ThresholdOverrides {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(stored ?? {})) {
    if (isReplayable(k) && typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

async function loadShadow(
  db: Sql,
  principalId: string,
): Promise<{ overrides: ThresholdOverrides; updatedAt: Date | null }> {
  const rows = await db<Pick<ShadowThresholdsRow, 'overrides' | 'updated_at'>[]>`
    select overrides, updated_at from shadow_thresholds where principal_id = ${principalId}`;
  const row = rows[0];
  return { overrides: cleanShadow(row?.overrides), updatedAt: row?.updated_at ?? null };
}

/** The view of a shadow set: its overrides and the replayable thresholds it decides under. */
function view(live: ThresholdOverrides, shadow: ThresholdOverrides) {
  const t = shadowThresholdsOf(live, shadow);
  return {
    active: t !== null,
    overrides: shadow,
    thresholds: t === null ? null : replayableValues(t),
    live_thresholds: replayableValues(mergeThresholds(live)),
    thresholds_version: t === null ? null : thresholdsVersion(t),
  };
}

export function shadowRoutes(services: Services): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/thresholds/shadow',
      auth: 'principal',
      response: 'ShadowThresholdsView',
      operationId: 'getShadowThresholds',
      summary: 'The shadow thresholds evaluated next to every decision without effect',
      handler: async (ctx) => {
        const { db } = ctx;
        const { principalId } = ctx.auth;
        const live = await loadOverrides(db, principalId);
        const shadow = await loadShadow(db, principalId);
        return json(200, { ...view(live, shadow.overrides), updated_at: shadow.updatedAt?.toISOString() ?? null });
      },
    },
    {
      method: 'PUT',
      path: '/api/v1/thresholds/shadow',
      auth: 'principal',
      body: 'ShadowThresholdsUpdateRequest',
      response: 'ShadowThresholdsUpdateResponse',
      errors: ['no_fields_to_update', 'invalid_thresholds'],
      operationId: 'updateShadowThresholds',
      summary: 'Set shadow thresholds (a patch; null removes a field from the shadow set)',
      fieldErrors: (_ctx, raw) => replayablePatchErrors(raw, ''),
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const patch = ctx.body as Record<string, unknown>;
        const problems = replayablePatchErrors(patch, '');
        if (problems.length > 0) throw new ApiError('validation_error', undefined, { details: problems });
        if (Object.keys(patch).length === 0) throw new ApiError('no_fields_to_update');
        const result = await db.begin(async (tx) => {
          await tx`insert into shadow_thresholds (principal_id) values (${auth.principalId})
            on conflict (principal_id) do nothing`;
          const rows = await tx<Pick<ShadowThresholdsRow, 'overrides'>[]>`
            select overrides from shadow_thresholds where principal_id = ${auth.principalId} for update`;
          const before = cleanShadow(rows[0]?.overrides);
          const next: Record<string, number> = { ...before };
          for (const [k, v] of Object.entries(patch)) {
            if (v === null) delete next[k];
            else next[k] = v as number;
          }
          const live = await loadOverrides(tx as unknown as Sql, auth.principalId);
          // The shadow set laid over the live overrides must keep the cross-field order.
          if (Object.keys(next).length > 0) {
            const checked = validateThresholdOverrides(next, live);
            if (!checked.ok) throw new ApiError('invalid_thresholds', undefined, { details: checked.problems });
          }
          await tx`update shadow_thresholds set overrides = ${tx.json(next)}, updated_at = now()
            where principal_id = ${auth.principalId}`;
          const was = shadowThresholdsOf(live, before);
          const now = shadowThresholdsOf(live, next);
          const versionOf = (t: Thresholds | null) => (t === null ? null : thresholdsVersion(t));
          // The shadow fields set, removed or given another value.
          const fieldsChanged = REPLAYABLE_THRESHOLDS.filter((k) => before[k] !== next[k]).sort();
          await recordSecurityEvent(tx, ctx, {
            action: 'thresholds.shadow_updated',
            targetType: 'thresholds',
            targetId: auth.principalId,
            changes: { fields_changed: fieldsChanged, requested: patch, shadow_overrides: next },
          });
          return { live, next, changed: versionOf(was) !== versionOf(now), fieldsChanged };
        });
        if (result.changed) await invalidatePrincipal(services, auth.environment, auth.principalId);
        return json(200, {
          status: 'updated',
          fields_changed: result.fieldsChanged,
          ...view(result.live, result.next),
        });
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/thresholds/shadow',
      auth: 'principal',
      response: 'ThresholdsResetResponse',
      operationId: 'deleteShadowThresholds',
      summary: 'Stop evaluating shadow thresholds',
      handler: async (ctx) => {
        const { auth, db } = ctx;
        const removed = await db.begin(async (tx) => {
          const rows = await tx<Pick<ShadowThresholdsRow, 'overrides'>[]>`
            delete from shadow_thresholds where principal_id = ${auth.principalId} returning overrides`;
          const had = cleanShadow(rows[0]?.overrides);
          await recordSecurityEvent(tx, ctx, {
            action: 'thresholds.shadow_reset',
            targetType: 'thresholds',
            targetId: auth.principalId,
            changes: { removed_shadow_overrides: had },
          });
          return Object.keys(had).length > 0;
        });
        if (removed) await invalidatePrincipal(services, auth.environment, auth.principalId);
        return json(200, {
          status: 'reset',
          message: removed
            ? 'The shadow thresholds were removed; decisions are no longer evaluated under them.'
            : 'There were no shadow thresholds.',
        });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/thresholds/shadow/report',
      auth: 'principal',
      query: 'ShadowReportQuery',
      response: 'ShadowReport',
      operationId: 'getShadowReport',
      summary: 'Where the shadow decisions of a time range differ from the real ones',
      handler: async (ctx) => {
        const { principalId, environment } = ctx.auth;
        const to = ctx.query.to === undefined ? new Date() : new Date(ctx.query.to);
        const from = ctx.query.from === undefined ? new Date(to.getTime() - DAY_MS) : new Date(ctx.query.from);
        const problems = rangeErrors({ from: from.toISOString(), to: to.toISOString() });
        if (problems.length > 0) throw new ApiError('validation_error', undefined, { details: problems });
        const report = await services.ranges.shadow(environment, {
          principalId,
          from,
          to,
          cursor: ctx.query.cursor,
          limit: ctx.query.limit === undefined ? RANGE_DEFAULT_ROWS : Number(ctx.query.limit),
        });
        return json(200, {
          from: from.toISOString(),
          to: to.toISOString(),
          ...summaryOf(report),
        });
      },
    },
  ];
}
