// The `receipt_keys` table (migrations/0200_receipts_and_webhook_secret_rotation.sql): the
// Ed25519 keys that sign decision receipts, in the live database only. A row as postgres.js
// returns it: timestamptz as Date, jsonb parsed.

export interface ReceiptKeyRow {
  kid: string;
  /** Sealed at rest (src/secrets/), AAD receipt_keys.private_key:<kid>. */
  private_key_sealed: string;
  /** The public JWK published at /.well-known/jwks.json (src/auth/tokens.ts PublicJwk). */
  public_jwk: Record<string, unknown>;
  /** Signs from here until a newer key's signs_from. */
  signs_from: Date;
  /** Published until (null: while it signs, and for the retention set when it was rotated out). */
  published_until: Date | null;
  created_at: Date;
}
