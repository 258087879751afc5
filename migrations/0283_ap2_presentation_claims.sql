-- A presentation's claim can be reconciled (docs/ap2.md, issue 27 review): a claim left PENDING by
-- a process killed between the claim and its settlement, a settlement that failed, or a decision
-- answered as the safe DECLINE (its commit possibly in doubt) no longer blocks the checkout for
-- ever. claimed_at is when the current claim was taken and request_id the request that took it:
-- its decision, if one was recorded, is the authorization whose idempotency_key is
-- 'ap2:' || request_id. A PENDING claim older than the answer deadline (AUTHORIZE_DEADLINE_MS;
-- past it the commit guard of 0263 lets no decision of that request land) becomes CONSUMED when
-- that authorization is an APPROVE, else the next presentation takes it over.
alter table ap2_presentations add column request_id text;
alter table ap2_presentations add column claimed_at timestamptz;
update ap2_presentations set claimed_at = presented_at where claimed_at is null;
alter table ap2_presentations alter column claimed_at set default now();
alter table ap2_presentations alter column claimed_at set not null;
