// The seed of the independent corpus (docs/quality-independent-corpus.md). A measuring seed,
// never a tuning seed: no gate, threshold or weight is changed to move its figures, and the
// quality command refuses to list its individual errors.
export const INDEPENDENT_SEED = 424242;
/**
 * The seeds pooled for the independent corpus's pooled column (INDEPENDENT_SEED and nine more):
 * one seed holds six compromised histories per kind, so one history moves a kind's "stopped
 * within 3" by 17 points, and the figures swing from seed to seed (docs/decision-engine.md "Two corpora"). Measuring
 * seeds as INDEPENDENT_SEED is.
 */
export const INDEPENDENT_POOL_SEEDS: readonly number[] = [INDEPENDENT_SEED, 1, 2, 3, 4, 5, 6, 7, 8, 9];
