// The seed of the independent corpus (docs/quality-independent-corpus.md). A measuring seed,
// never a tuning seed: no gate, threshold or weight is changed to move its figures, and the
// quality command refuses to list its individual errors.
export const INDEPENDENT_SEED = 424242;
