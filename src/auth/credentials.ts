// Credential records: issue (additive), the public JSON shape of CONTRACT.md, and row mapping.
// Lookups, rotation and revocation go through the cache in credential-store.ts.
import type { ClientId, CredentialId, PrincipalId } from '../domain/ids.js';
import { newId } from '../domain/ids.js';
import { ApiError } from '../errors/registry.js';
import type { Sql } from '../storage/db.js';
import { AGENT_SCOPE } from './agent-keys.js';
import { normaliseAllowlist } from './ip-allowlist.js';
import { generateApiKey, hashKey } from './keys.js';
import { normaliseScopes } from './scopes.js';
import type { Environment } from './types.js';

/** A credentials row as postgres.js returns it. */
export interface CredentialRow {
  id: string;
  client_id: string;
  principal_id: string | null;
  /** Set for an agent key: the one agent of the Principal it acts for (migration 0270). */
  agent_id: string | null;
  environment: Environment;
  key_hash: Buffer;
  previous_key_hash: Buffer | null;
  previous_key_expires_at: Date | null;
  scopes: string;
  ip_allowlist: string[];
  expires_at: Date | null;
  status: 'active' | 'revoked';
  revoked_at: Date | null;
  created_at: Date;
}

/** CONTRACT.md's credential object. principal_id appears on Principal credentials only. */
export interface CredentialJson {
  id: string;
  client_id: string;
  principal_id?: string;
  /** On agent keys only: the agent the key acts for. */
  agent_id?: string;
  environment: Environment;
  scopes: string;
  ip_allowlist: string[];
  expires_at: string | null;
  status: 'active' | 'revoked';
  created_at: string;
  /** Set after a rotation: when the previous key stops authenticating. */
  previous_key_expires_at?: string;
  revoked_at?: string;
}

export const CREDENTIAL_COLUMNS = [
  'id',
  'client_id',
  'principal_id',
  'agent_id',
  'environment',
  'key_hash',
  'previous_key_hash',
  'previous_key_expires_at',
  'scopes',
  'ip_allowlist',
  'expires_at',
  'status',
  'revoked_at',
  'created_at',
] as const;

export function credentialJson(row: CredentialRow): CredentialJson {
  const out: CredentialJson = { id: row.id, client_id: row.client_id } as CredentialJson;
  if (row.principal_id !== null) out.principal_id = row.principal_id;
  if (row.agent_id !== null) out.agent_id = row.agent_id;
  out.environment = row.environment;
  out.scopes = row.scopes;
  out.ip_allowlist = row.ip_allowlist;
  out.expires_at = row.expires_at === null ? null : row.expires_at.toISOString();
  out.status = row.status;
  out.created_at = row.created_at.toISOString();
  if (row.previous_key_expires_at !== null) out.previous_key_expires_at = row.previous_key_expires_at.toISOString();
  if (row.revoked_at !== null) out.revoked_at = row.revoked_at.toISOString();
  return out;
}

export interface IssueCredentialInput {
  clientId: ClientId | string;
  /** Set for a Principal credential; omitted for a Client credential. */
  principalId?: PrincipalId | string | null;
  /**
   * Set for an agent key (with principalId, the agent's Principal): the key carries the scope
   * `agent` and reaches only its agent's routes (agent-keys.ts); `scopes` is then ignored.
   */
  agentId?: string | null;
  environment: Environment;
  /** Comma-separated scope list; empty or `*` = full access. Unknown scopes: validation_error. */
  scopes?: string | null;
  /** IP addresses or CIDRs (v4 or v6); empty = any origin. Invalid entries: validation_error. */
  ipAllowlist?: readonly string[] | null;
  /** Expiry; must be in the future (validation_error otherwise). */
  expiresAt?: Date | string | null;
}

export interface IssuedCredential {
  credential: CredentialJson;
  /** The raw key: returned exactly once, never stored. */
  apiKey: string;
}

/**
 * Issues a new credential (issue is additive: existing keys stay valid). `sql` must be the
 * database of `input.environment`; the Client (and Principal, when given) must exist there.
 */
export async function issueCredential(sql: Sql, input: IssueCredentialInput): Promise<IssuedCredential> {
  const agentId = input.agentId ?? null;
  if (agentId !== null && (input.principalId ?? null) === null) throw new Error('an agent key needs its Principal');
  const scopes = agentId === null ? normaliseScopes(input.scopes ?? '') : AGENT_SCOPE;
  const allowlist = normaliseAllowlist(input.ipAllowlist ?? []);
  const expiresAt = parseExpiry(input.expiresAt);
  const apiKey = generateApiKey(input.environment);
  const id = newId('acr') as CredentialId;
  const [row] = await sql<CredentialRow[]>`
    insert into credentials (id, client_id, principal_id, agent_id, environment, key_hash, scopes, ip_allowlist, expires_at)
    values (${id}, ${input.clientId}, ${input.principalId ?? null}, ${agentId}, ${input.environment}, ${hashKey(apiKey)},
      ${scopes}, ${sql.array(allowlist)}, ${expiresAt})
    returning ${sql(CREDENTIAL_COLUMNS)}`;
  if (row === undefined) throw new Error('credential insert returned no row');
  return { credential: credentialJson(row), apiKey };
}

function parseExpiry(value: Date | string | null | undefined): Date | null {
  if (value === undefined || value === null) return null;
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) {
    throw new ApiError('validation_error', 'The request failed validation.', {
      details: [{ field: 'expires_at', code: 'format', message: 'must be an ISO 8601 timestamp' }],
    });
  }
  if (d.getTime() <= Date.now()) {
    throw new ApiError('validation_error', 'The request failed validation.', {
      details: [{ field: 'expires_at', code: 'minimum', message: 'must be in the future' }],
    });
  }
  return d;
}
