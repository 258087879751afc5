// The `programs` table (migrations/0001_core.sql): a Client's Programs, the same rows in both
// databases (src/admin/provisioning.ts). A row as postgres.js returns it, timestamptz as Date.

export interface ProgramRow {
  id: string;
  client_id: string;
  name: string;
  created_at: Date;
}
