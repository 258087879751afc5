-- Per-Client overrides of the request rate limits (src/http/rate-limit.ts), set by the operator
-- (PUT /admin/v1/clients/{client_id}/rate-limits). A null column keeps the configured default.
-- Read by every instance (the live database's rows; each instance polls them), so an override
-- holds cluster-wide within the poll interval.
create table if not exists client_rate_limits (
  client_id text primary key references clients (id),
  credential_requests_per_second integer check (credential_requests_per_second >= 0),
  credential_burst_requests integer check (credential_burst_requests >= 1),
  client_requests_per_second integer check (client_requests_per_second >= 0),
  client_burst_requests integer check (client_burst_requests >= 1),
  updated_at timestamptz not null default now()
);
