-- Mandate lifecycle (issue 16): PATCH /api/v1/mandates/{id} amends a mandate in place and
-- POST /api/v1/mandates/{id}/revoke ends it (docs/mandate-lifecycle.md). The row keeps when it
-- was last amended and when and why it was revoked; status REVOKED is set by one conditional
-- UPDATE (status = 'ACTIVE'), so a revoke racing an amendment has one order, decided by the row
-- lock. The agent's actor reads only ACTIVE mandates at load (src/engine/pipeline/load.ts).
alter table mandates add column if not exists updated_at timestamptz;
alter table mandates add column if not exists revoked_at timestamptz;
alter table mandates add column if not exists revocation_reason text;
