// The two reports over a Principal's audit rows of a time range, as plain functions of a
// database handle: the backtest (the rows decided again under proposed thresholds) and the
// shadow report (the rows' shadow decisions against the real ones). They run in the range
// worker (range-worker.ts), off the thread that answers /authorize; audit-range.ts bounds them.

import type { Thresholds } from '../decision/model/thresholds.js';
import { type Redecision, readReplayInputs, redecide, replayThresholds } from '../decision/threshold-eval.js';
import { fromDb } from '../domain/money.js';
import type { Sql } from '../storage/db.js';
import { type RangeBounds, type RangeReport, readRange } from './audit-range.js';
import { DecisionDiff, replayedGates } from './decision-diff.js';

interface ShadowRow {
  decision: string;
  gates_fired: string[];
}

function isShadowRow(v: unknown): v is ShadowRow {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.decision === 'string' && Array.isArray(r.gates_fired);
}

/** The range's rows decided again under `proposed`, from the scores stored with each. */
export async function backtestReport(sql: Sql, q: RangeBounds, proposed: Thresholds): Promise<RangeReport> {
  const rt = replayThresholds(proposed);
  const diff = new DecisionDiff();
  const scan = await readRange(sql, { ...q, shadowOnly: false }, (row) => {
    const inputs = readReplayInputs(row.replay);
    if (inputs === null) {
      diff.notReplayable();
      return;
    }
    const fixed = inputs.fixed === true;
    const before = { decision: row.decision, gates: replayedGates(row.gates_fired, fixed) };
    const after: Redecision | typeof before =
      inputs.fixed === true ? before : redecide(inputs, fromDb(row.amount) ?? 0n, rt);
    diff.add(row.id, row.agent_id, before, after);
  });
  return { ...diff.summary(), ...scan };
}

/** The range's shadow decisions against the real ones. */
export async function shadowReport(sql: Sql, q: RangeBounds): Promise<RangeReport> {
  const diff = new DecisionDiff();
  const scan = await readRange(sql, { ...q, shadowOnly: true }, (row) => {
    const inputs = readReplayInputs(row.replay);
    if (inputs === null || !isShadowRow(row.shadow)) {
      diff.notReplayable();
      return;
    }
    const fixed = inputs.fixed === true;
    const before = { decision: row.decision, gates: replayedGates(row.gates_fired, fixed) };
    diff.add(
      row.id,
      row.agent_id,
      before,
      fixed
        ? { decision: row.shadow.decision, gates: before.gates }
        : { decision: row.shadow.decision, gates: row.shadow.gates_fired },
    );
  });
  return { ...diff.summary(), ...scan };
}
