-- The in-doubt window of the group commit (docs/engine-durability.md "Voids"): a batch whose
-- COMMIT reached PostgreSQL before its commit_by but whose answer came back after the edge had
-- answered its decisions with the safe DECLINE (the round trip grew meanwhile). Its rows are in
-- the audit log as decided, the agents were told system_unavailable. The committer then voids
-- them in a transaction of their own, as a card network reverses an authorization whose answer
-- timed out: a row here for each, an APPROVE's amount and count given back to its windows and
-- to the Principal's budget (a budget credit of kind void), its hold (opened for an automatic
-- APPROVE as a refund opens it) VOIDED, and an authorization.voided event. The audit row itself
-- stays as written (immutable); GET /authorize/log/{id} shows the status VOIDED.
create table if not exists authorization_voids (
  authorization_id text primary key,
  principal_id text not null,
  agent_id text not null,
  -- The decision recorded (the answer was the safe DECLINE system_unavailable).
  decision text not null,
  reason text not null check (reason in ('answered_safe_decline')),
  voided_at timestamptz not null default now()
);
create index if not exists authorization_voids_principal_idx on authorization_voids (principal_id, voided_at);

alter table holds drop constraint if exists holds_status_check;
alter table holds add constraint holds_status_check
  check (status in ('HELD', 'CAPTURED', 'RELEASED', 'EXPIRED', 'VOIDED'));
alter table budget_credits drop constraint if exists budget_credits_kind_check;
alter table budget_credits add constraint budget_credits_kind_check
  check (kind in ('capture_remainder', 'release', 'expiry', 'refund', 'void'));
