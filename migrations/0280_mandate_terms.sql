-- Richer mandate terms (issue 27, docs/mandate-lifecycle.md "Terms"): allowed payees and a
-- merchant lock, a minimum amount, an execution window (dates and optionally days of the week)
-- and recurrence (frequency and maximum occurrences), kept together as one jsonb document so a
-- mandate that uses none of them has `terms` null and the decision engine skips them with one
-- comparison. The shape is src/runtime/mandate-terms.ts StoredTerms; both mandate planes write it.
alter table mandates add column if not exists terms jsonb;
