// The `signing_keys` table (migrations/0010_auth.sql, 0100_security_log_and_sealed_secrets.sql):
// the Ed25519 keys that sign OAuth2 access tokens, in the live database only. A row as
// postgres.js returns it: bytea as Buffer, timestamptz as Date, jsonb parsed.

export interface SigningKeyRow {
  kid: string;
  algorithm: string;
  /** PKCS#8 DER in clear; migration 0100: null once sealed into private_key_sealed. */
  private_key_pkcs8: Buffer | null;
  /** The public JWK published at /.well-known/jwks.json (src/auth/tokens.ts PublicJwk). */
  public_jwk: Record<string, unknown>;
  active: boolean;
  created_at: Date;
  /** Migration 0100: the private key sealed at rest (src/secrets/). */
  private_key_sealed: string | null;
}
