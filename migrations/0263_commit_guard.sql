-- The database's own deadline for a group commit (src/audit/committer.ts). The committer sends
-- BEGIN, the batch's statement and COMMIT in one round trip; the batch's outbox row carries
-- commit_by, the instant after which its decisions have been (or will be) answered at the edge
-- as the safe DECLINE. A deferred constraint trigger checks it at COMMIT, against the database's
-- clock: a commit that would land after it (a database that stalled after receiving the batch,
-- a slow network) raises instead, and the transaction rolls back, so no decision is recorded that
-- its caller was told was declined. Rows written by other writers leave commit_by null: no check.
alter table outbox_batches add column if not exists commit_by timestamptz;

create or replace function asas_commit_guard() returns trigger
language plpgsql as $$
begin
  if new.commit_by is not null and clock_timestamp() > new.commit_by then
    raise exception using errcode = 'AS001',
      message = 'group commit past its deadline: its decisions were answered as the safe decline';
  end if;
  return null;
end $$;

drop trigger if exists outbox_commit_guard on outbox_batches;
create constraint trigger outbox_commit_guard after insert on outbox_batches
  deferrable initially deferred for each row execute function asas_commit_guard();
