-- The Principal's own confirmation channel (issue 28, docs/step-up-confirmation.md): the one-time
-- code of a step-up no longer travels in the Client's step_up.created event (nor its outbox
-- batch, NATS subject or webhook bodies); the service e-mails the code and a single-use link to
-- the confirmation page to the address the Principal registered with its own credential.

-- Set with PUT /api/v1/principals/{id}/confirmation-channel (a Principal credential, never a
-- Client's): where the person who confirms step-ups reads them.
alter table principals add column if not exists confirmation_email text;
alter table principals add column if not exists confirmation_channel_updated_at timestamptz;

-- The agent's stated reason for a purchase that opened a step-up (the request's intent_context:
-- intent type, task, reasoning summary), shown on the confirmation page. Set by the actor only on
-- the STEP_UP that opens a step-up; copied into step_ups by the trigger below.
alter table authorizations add column if not exists step_up_intent jsonb;

-- The code and the link are made by the step-up notifier (src/runtime/step-up-notifier.ts), when
-- it sends the e-mail: code_hash stays null until then (only the Principal's credential confirms),
-- link_hash is the hex SHA-256 of the link's token. A new sending (a retry) replaces both.
alter table step_ups alter column code_hash drop not null;
alter table step_ups add column if not exists link_hash text;
alter table step_ups add column if not exists intent jsonb;
-- The person may decline on the page: DECLINED is final, and the agent's same request is then
-- declined until the step-up's window ends (reason step_up_declined).
alter table step_ups drop constraint if exists step_ups_status_check;
alter table step_ups add constraint step_ups_status_check
  check (status in ('PENDING', 'CONFIRMED', 'DECLINED', 'USED'));
alter table step_ups drop constraint if exists step_ups_confirmed_via_check;
alter table step_ups add constraint step_ups_confirmed_via_check
  check (confirmed_via in ('credential', 'code', 'link'));
alter table step_ups add column if not exists declined_at timestamptz;
-- Delivery of the e-mail: 'pending' (the notifier's work, claimed with FOR UPDATE SKIP LOCKED and
-- leased by pushing notify_after ahead), 'sent', 'no_channel' (the Principal registered no
-- address), 'failed' (attempts used up), 'none' (rows older than this migration: their code went
-- out in step_up.created).
alter table step_ups add column if not exists notify_status text not null default 'none'
  check (notify_status in ('none', 'pending', 'sent', 'no_channel', 'failed'));
alter table step_ups alter column notify_status set default 'pending';
alter table step_ups add column if not exists notify_attempts integer not null default 0;
alter table step_ups add column if not exists notify_after timestamptz;
alter table step_ups add column if not exists notified_at timestamptz;
create index if not exists step_ups_notify_idx on step_ups (created_at) where notify_status = 'pending';
create index if not exists step_ups_link_idx on step_ups (link_hash) where link_hash is not null;

-- A step-up is opened by the decision whose row carries step_up_expires_at (there is no code hash
-- on the decision any more); an APPROVE uses the step-up it names, as before.
create or replace function step_ups_track() returns trigger language plpgsql as $$
begin
  if new.decision = 'STEP_UP' and new.step_up_expires_at is not null then
    insert into step_ups (id, authorization_id, principal_id, agent_id, amount, currency, merchant_id, merchant_name,
      code_hash, expires_at, intent)
    values (new.step_up_id, new.id, new.principal_id, new.agent_id, new.amount, new.currency, new.merchant_id,
      new.merchant_name, new.step_up_code_hash, new.step_up_expires_at, new.step_up_intent)
    on conflict (id) do nothing;
  elsif new.decision = 'APPROVE' then
    update step_ups set status = 'USED', used_at = now(), used_by_authorization_id = new.id
    where id = new.step_up_id and status = 'CONFIRMED';
  end if;
  return null;
end
$$;
