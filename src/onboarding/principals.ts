// Principals on the onboarding plane: registration (client_attested is VERIFIED at once,
// platform_provider is PENDING with a verification session), Program enrollment, reads.
import { toAlpha3 } from '../domain/country.js';
import { newId, randomToken } from '../domain/ids.js';
import { iso } from '../domain/timestamp.js';
import { ApiError } from '../errors/registry.js';
import type { Sql } from '../storage/db.js';
import type { PrincipalRow } from '../storage/rows/principals.js';
import type { ProgramRow } from '../storage/rows/programs.js';
import { Problems } from '../validation/storable.js';
import { type AgentSummary, listAgentSummaries } from './agents.js';
import { isUniqueViolation } from './checks.js';
import type { Db, Tx } from './idempotency.js';

/** How long a platform verification session stays open. */
export const VERIFICATION_SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;
const E164 = /^\+[1-9][0-9]{6,14}$/;

/** schemas/PrincipalCreateRequest.json */
export interface PrincipalInput {
  principal_kind: 'personal' | 'merchant';
  program_ids: string[];
  profile: { display_name: string; email: string; phone?: string; country?: string };
  verification: {
    type: 'KYC' | 'KYB';
    mode: 'client_attested' | 'platform_provider';
    attestation?: { attested_by: string; scope?: string; statement?: string; evidence_ref?: string };
  };
  client_customer_ref?: string;
  step_up?: { method?: 'sms' | 'email'; phone?: string };
  metadata?: Record<string, unknown>;
}

/**
 * The pending platform verification. SPEC.md leaves its structure open; no identity provider is
 * wired to this service, so the session records what is pending and until when. The move to
 * VERIFIED is not part of the public API.
 */
export interface VerificationSession {
  id: string;
  provider: 'platform';
  type: 'KYC' | 'KYB';
  status: 'pending';
  created_at: string;
  expires_at: string;
}

/** schemas/Principal.json */
export interface PrincipalRecord {
  id: string;
  client_id: string;
  principal_kind: string;
  client_customer_ref: string | null;
  verification_status: string;
  verification_mode: string;
  verification_type: string;
  risk_tier: string;
  programs: string[];
  agents: AgentSummary[];
  verification_session: VerificationSession | null;
  profile: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  created_at: string;
}

/** The columns of a principals row a PrincipalRecord shows, its verification session as written. */
type StoredPrincipal = Pick<
  PrincipalRow,
  | 'id'
  | 'client_id'
  | 'principal_kind'
  | 'client_customer_ref'
  | 'verification_status'
  | 'verification_mode'
  | 'verification_type'
  | 'risk_tier'
  | 'profile'
  | 'metadata'
  | 'created_at'
> & { verification_session: VerificationSession | null };

/**
 * Checks a registration beyond its schema and creates the Principal and its enrollments in
 * `tx`. `root` prefixes error fields ('principal' inside /onboard).
 */
export async function createPrincipal(
  tx: Tx,
  clientId: string,
  input: PrincipalInput,
  root = '',
): Promise<{ record: PrincipalRecord; pending: boolean }> {
  const at = (f: string) => (root === '' ? f : `${root}.${f}`);
  const attested = input.verification.mode === 'client_attested';
  if (attested && input.verification.attestation === undefined) {
    throw new ApiError('attestation_required', undefined, {
      details: [
        {
          field: at('verification.attestation'),
          code: 'required',
          message: 'is required when mode is client_attested',
        },
      ],
    });
  }
  checkPhones(input, at);

  const problems = new Problems(root);
  const profile: Record<string, unknown> = { ...input.profile };
  if (input.profile.country !== undefined) {
    const alpha3 = toAlpha3(input.profile.country);
    if (alpha3 === null) problems.add('profile.country', 'is not an ISO 3166-1 country code');
    else profile.country = alpha3;
  }
  problems.throwIfAny();

  const programIds = [...new Set(input.program_ids)];
  await assertProgramsOwned(tx, clientId, programIds, at('program_ids'));

  const id = newId('prn');
  const now = new Date();
  const session: VerificationSession | null = attested
    ? null
    : {
        id: `vs_${randomToken()}`,
        provider: 'platform',
        type: input.verification.type,
        status: 'pending',
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + VERIFICATION_SESSION_TTL_SECONDS * 1000).toISOString(),
      };
  try {
    await tx`insert into principals (id, client_id, principal_kind, client_customer_ref, verification_status,
        verification_mode, verification_type, risk_tier, profile, verification, step_up, metadata,
        verification_session, created_at)
      values (${id}, ${clientId}, ${input.principal_kind}, ${input.client_customer_ref ?? null},
        ${attested ? 'VERIFIED' : 'PENDING'}, ${input.verification.mode}, ${input.verification.type}, 'LOW',
        ${tx.json(profile as never)}, ${tx.json(input.verification as never)},
        ${input.step_up === undefined ? null : tx.json(input.step_up as never)},
        ${input.metadata === undefined ? null : tx.json(input.metadata as never)},
        ${session === null ? null : tx.json(session as never)}, ${now})`;
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new ApiError('duplicate_client_customer_ref', undefined, {
        details: [
          { field: at('client_customer_ref'), code: 'already_exists', message: 'already exists for this Client' },
        ],
      });
    }
    throw err;
  }
  for (const programId of programIds) {
    await tx`insert into principal_programs (principal_id, program_id) values (${id}, ${programId})`;
  }
  return {
    record: {
      id,
      client_id: clientId,
      principal_kind: input.principal_kind,
      client_customer_ref: input.client_customer_ref ?? null,
      verification_status: attested ? 'VERIFIED' : 'PENDING',
      verification_mode: input.verification.mode,
      verification_type: input.verification.type,
      risk_tier: 'LOW',
      programs: programIds,
      agents: [],
      verification_session: session,
      profile,
      metadata: input.metadata ?? null,
      created_at: now.toISOString(),
    },
    pending: !attested,
  };
}

/** invalid_phone_format: a phone that is not E.164, or an sms step-up without any phone. */
function checkPhones(input: PrincipalInput, at: (f: string) => string): void {
  const bad = (field: string, message: string) =>
    new ApiError('invalid_phone_format', undefined, { details: [{ field: at(field), code: 'pattern', message }] });
  if (input.profile.phone !== undefined && !E164.test(input.profile.phone)) {
    throw bad('profile.phone', 'must be an E.164 number such as +14155550123');
  }
  if (input.step_up?.phone !== undefined && !E164.test(input.step_up.phone)) {
    throw bad('step_up.phone', 'must be an E.164 number such as +14155550123');
  }
  if (input.step_up?.method === 'sms' && input.step_up.phone === undefined && input.profile.phone === undefined) {
    throw bad('step_up.phone', 'an sms step-up needs an E.164 phone in step_up.phone or profile.phone');
  }
}

/** program_not_owned unless every id is a Program of the Client. */
export async function assertProgramsOwned(
  db: Db,
  clientId: string,
  programIds: readonly string[],
  field: string,
): Promise<void> {
  const owned = await db<Pick<ProgramRow, 'id'>[]>`select id from programs
    where client_id = ${clientId} and id = any(${programIds as string[]})`;
  const ownedIds = new Set(owned.map((r) => r.id));
  const foreign = programIds.filter((p) => !ownedIds.has(p));
  if (foreign.length > 0) {
    throw new ApiError('program_not_owned', undefined, {
      details: foreign.map((p) => ({ field, code: 'not_allowed', message: `${p} is not a Program of this Client` })),
    });
  }
}

/** The Principal of `clientId` with its Program ids, or principal_not_found. */
export async function findClientPrincipal(
  db: Db,
  clientId: string,
  principalId: string,
  lock = false,
): Promise<{ id: string; programs: string[] }> {
  const rows = lock
    ? await db<Pick<PrincipalRow, 'id'>[]>`
        select id from principals where id = ${principalId} and client_id = ${clientId} for update`
    : await db<Pick<PrincipalRow, 'id'>[]>`
        select id from principals where id = ${principalId} and client_id = ${clientId}`;
  if (rows.length === 0) throw new ApiError('principal_not_found');
  return { id: principalId, programs: await programsOf(db, principalId) };
}

export async function programsOf(db: Db, principalId: string): Promise<string[]> {
  const rows = await db<{ program_id: string }[]>`select program_id from principal_programs
    where principal_id = ${principalId} order by enrolled_at, program_id`;
  return rows.map((r) => r.program_id);
}

/** The full record, or null when the row does not exist. */
export async function loadPrincipal(db: Sql, principalId: string): Promise<PrincipalRecord | null> {
  const [row] = await db<StoredPrincipal[]>`select id, client_id, principal_kind, client_customer_ref,
    verification_status, verification_mode, verification_type, risk_tier, profile, metadata,
    verification_session, created_at from principals where id = ${principalId}`;
  if (row === undefined) return null;
  return {
    id: row.id,
    client_id: row.client_id,
    principal_kind: row.principal_kind,
    client_customer_ref: row.client_customer_ref,
    verification_status: row.verification_status,
    verification_mode: row.verification_mode,
    verification_type: row.verification_type,
    risk_tier: row.risk_tier,
    programs: await programsOf(db, row.id),
    agents: await listAgentSummaries(db, row.id),
    verification_session: row.verification_session,
    profile: row.profile,
    metadata: row.metadata,
    created_at: iso(row.created_at),
  };
}

/** Idempotent enrollment: re-enrolling is a no-op. Returns every enrolled Program id. */
export async function enrollPrincipal(
  tx: Tx,
  clientId: string,
  principalId: string,
  programId: string,
): Promise<{ principal_id: string; programs: string[] }> {
  await findClientPrincipal(tx, clientId, principalId, true);
  await assertProgramsOwned(tx, clientId, [programId], 'program_id');
  await tx`insert into principal_programs (principal_id, program_id) values (${principalId}, ${programId})
    on conflict do nothing`;
  return { principal_id: principalId, programs: await programsOf(tx, principalId) };
}
