// The inputs of a threshold replay stored with every decision, and the thresholds a replay
// decides under (threshold-eval.ts uses them).
import type { Units } from '../domain/money.js';
import type { Thresholds } from './model/thresholds.js';

/**
 * What the gates read that the replayable thresholds act on, stored with every decision as
 * `explanation.replay`. `fixed`: the decision was made by a gate no replayable threshold acts
 * on (the agent, its session, the mandate, rapid-fire); it stays what it was.
 */
export type ReplayInputs =
  | { readonly fixed: true }
  | {
      readonly fixed?: undefined;
      readonly risk_score: number;
      /** STEP_UP findings of stage 2 that no replayable threshold governs. */
      readonly velocity: boolean;
      readonly outlier: boolean;
      readonly country_jump: boolean;
      /** limit_probing (absent in rows recorded before it existed). */
      readonly probing?: boolean;
      /** merchant_lookalike (absent in rows recorded before it existed). */
      readonly lookalike?: boolean;
      /** new_category_run (absent in rows recorded before it existed). */
      readonly category_run?: boolean;
      readonly trust_score: number;
      readonly intent_anomaly_score: number;
      /** The selected mandate's max_amount_per_transaction (exact decimal text). */
      readonly per_transaction_limit: string;
      /** A step_up_confirmed matched a pending STEP_UP and cleared the STEP_UP gates. */
      readonly confirmed: boolean;
    };

export const FIXED: ReplayInputs = Object.freeze({ fixed: true });

/** The thresholds of a replay with their limit multipliers as exact units (computed once). */
export interface ReplayThresholds {
  readonly t: Thresholds;
  readonly amber: Units;
  readonly red: Units;
}

/** A Principal's shadow thresholds as the actor holds them (one shared object per distinct set). */
export interface ShadowSet extends ReplayThresholds {
  /** thresholdsVersion of the shadow thresholds, stored with each shadow decision. */
  readonly version: string;
}
