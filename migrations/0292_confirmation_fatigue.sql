-- Against approval fatigue (issue 28, docs/step-up-confirmation.md "Fewer, better questions"):
-- - a cap on the confirmation e-mails a Principal's person receives per hour: beyond it a
--   step-up is not e-mailed (notify_status 'capped'; the Principal credential still confirms);
-- - notify-and-proceed for small amounts: a step-up of at most notify_proceed_max_amount in
--   notify_proceed_currency is e-mailed as a notice, and confirms itself (confirmed_via
--   'veto_window') notify_proceed_veto_seconds after the e-mail went out unless the person
--   declined it on the page first.
alter table principals add column if not exists confirmation_max_per_hour integer
  check (confirmation_max_per_hour is null or confirmation_max_per_hour between 1 and 1000);
alter table principals add column if not exists notify_proceed_currency text;
alter table principals add column if not exists notify_proceed_max_amount numeric;
alter table principals add column if not exists notify_proceed_veto_seconds integer;

-- When the notifier first claimed the step-up's e-mail (what the cap counts), and when a
-- notify-and-proceed step-up confirms itself.
alter table step_ups add column if not exists notify_claimed_at timestamptz;
alter table step_ups add column if not exists proceeds_at timestamptz;
alter table step_ups drop constraint if exists step_ups_notify_status_check;
alter table step_ups add constraint step_ups_notify_status_check
  check (notify_status in ('none', 'pending', 'sent', 'no_channel', 'failed', 'capped'));
alter table step_ups drop constraint if exists step_ups_confirmed_via_check;
alter table step_ups add constraint step_ups_confirmed_via_check
  check (confirmed_via in ('credential', 'code', 'link', 'veto_window'));
create index if not exists step_ups_principal_claimed_idx on step_ups (principal_id, notify_claimed_at)
  where notify_claimed_at is not null;
create index if not exists step_ups_proceeds_idx on step_ups (proceeds_at) where status = 'PENDING' and proceeds_at is not null;
