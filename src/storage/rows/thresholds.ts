// The `thresholds` table (migrations/0001_core.sql), a Principal's overrides of the decision
// thresholds, and `shadow_thresholds` (migrations/0241_shadow_thresholds.sql), its shadow set
// evaluated next to the real decision without effect: the same columns. A row as postgres.js
// returns it, jsonb parsed.

export interface ThresholdsRow {
  principal_id: string;
  /** Threshold name -> value (src/decision/model/thresholds.ts). */
  overrides: Record<string, unknown>;
  updated_at: Date;
}

export type ShadowThresholdsRow = ThresholdsRow;
