// The `agents` table (migrations/0001_core.sql; 0090 made the DID unique per Client): a row as
// postgres.js returns it, NUMERIC as exact decimal text, timestamptz as Date, jsonb parsed.

import type { TrustLevel } from '../../domain/decision.js';

export type AgentStatus = 'ACTIVE' | 'SUSPENDED' | 'REVOKED';

export interface AgentRow {
  id: string;
  principal_id: string;
  client_id: string;
  program_id: string | null;
  name: string;
  did: string;
  did_method: string;
  status: AgentStatus;
  status_reason: string | null;
  trust_level: TrustLevel;
  /** 2 decimals; null until the first decision scores it. */
  kya_score: string | null;
  capabilities: string[];
  external_agent_ref: string | null;
  metadata: Record<string, unknown> | null;
  public_key_jwk: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}
