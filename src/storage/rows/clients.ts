// The `clients` table (migrations/0001_core.sql): the tenants, the same rows in both databases
// (src/admin/provisioning.ts). A row as postgres.js returns it, timestamptz as Date.

export interface ClientRow {
  id: string;
  name: string;
  created_at: Date;
}
