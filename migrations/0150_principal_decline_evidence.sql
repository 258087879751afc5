-- Evidence across a Principal (src/engine/pipeline/principal-evidence.ts): when a thread first
-- loads an agent of a Principal (and at most once a minute after), it reads the Principal's
-- DECLINEs of the last 30 days, newest first, to learn which merchants its agents were refused
-- at for reasons that point to compromise. Decisions on other threads and instances, and
-- before a restart, then count as well as this thread's own.
create index authorizations_principal_declines_idx on authorizations (principal_id, created_at desc)
  where decision = 'DECLINE';
