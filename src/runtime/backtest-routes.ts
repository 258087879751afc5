// POST /api/v1/thresholds/backtest: the Principal's own recorded decisions of [from, to)
// decided again under proposed thresholds, from the scores stored with each decision
// (explanation.replay, src/decision/threshold-eval.ts). Bounded per call in rows and time
// (audit-range.ts); next_cursor goes on where a call stopped.
import { replayablePatchErrors, replayableValues } from '../decision/model/replayable.js';
import { mergeThresholds, type Thresholds, validateThresholdOverrides } from '../decision/model/thresholds.js';
import { ApiError, type ErrorDetail } from '../errors/registry.js';
import { json, type RouteDef } from '../http/types.js';
import { RANGE_DEFAULT_ROWS, summaryOf } from './audit-range.js';
import type { RangeRunner } from './range-runner.js';
import { loadOverrides } from './thresholds-routes.js';

interface BacktestBody {
  overrides?: Record<string, unknown>;
  from: string;
  to: string;
  limit?: number;
  cursor?: string;
}

/** from before to (the schema checked each is a date-time). */
export function rangeErrors(b: { from?: unknown; to?: unknown }): ErrorDetail[] {
  if (typeof b.from !== 'string' || typeof b.to !== 'string') return [];
  if (!(Date.parse(b.from) < Date.parse(b.to)))
    return [{ field: 'to', code: 'invalid', message: 'must be after from' }];
  return [];
}

function backtestFieldErrors(b: unknown): ErrorDetail[] {
  if (typeof b !== 'object' || b === null) return [];
  const body = b as Record<string, unknown>;
  return [...replayablePatchErrors(body.overrides, 'overrides'), ...rangeErrors(body)];
}

export function backtestRoutes(ranges: RangeRunner): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/thresholds/backtest',
      auth: 'principal',
      body: 'ThresholdsBacktestRequest',
      response: 'ThresholdsBacktestResult',
      successStatus: 200,
      errors: ['invalid_thresholds'],
      operationId: 'backtestThresholds',
      summary: "Replay the Principal's recorded decisions of a time range under proposed thresholds",
      fieldErrors: (_ctx, raw) => backtestFieldErrors(raw),
      handler: async (ctx) => {
        const { db } = ctx;
        const { principalId, environment } = ctx.auth;
        const body = ctx.body as BacktestBody;
        const problems = backtestFieldErrors(body);
        if (problems.length > 0) throw new ApiError('validation_error', undefined, { details: problems });
        const current = await loadOverrides(db, principalId);
        const patch = body.overrides ?? {};
        let proposed: Thresholds;
        if (Object.keys(patch).length === 0) proposed = mergeThresholds(current);
        else {
          const checked = validateThresholdOverrides(patch, current);
          if (!checked.ok) {
            throw new ApiError('invalid_thresholds', undefined, {
              details: checked.problems.map((p) => ({ field: `overrides.${p.field}`, message: p.message })),
            });
          }
          proposed = checked.effective;
        }
        const report = await ranges.backtest(
          environment,
          {
            principalId,
            from: new Date(body.from),
            to: new Date(body.to),
            cursor: body.cursor,
            limit: body.limit ?? RANGE_DEFAULT_ROWS,
          },
          proposed,
        );
        return json(200, {
          from: new Date(body.from).toISOString(),
          to: new Date(body.to).toISOString(),
          thresholds: replayableValues(proposed),
          ...summaryOf(report),
        });
      },
    },
  ];
}
