-- Authentication state of the service itself. Applied to both databases like every migration;
-- the service reads and writes these tables in the live database only.

-- Ed25519 keys that sign OAuth2 access tokens (published at /.well-known/jwks.json). Generated
-- once, kept here so tokens survive a restart and every instance signs with the same key.
create table signing_keys (
  kid text primary key,
  algorithm text not null default 'EdDSA',
  private_key_pkcs8 bytea not null,
  public_jwk jsonb not null,
  active boolean not null default true,
  created_at timestamptz not null default now()
);
create unique index signing_keys_one_active_idx on signing_keys (active) where active;

-- Hashes of service-wide secrets, e.g. the generated operator key ('admin_key').
create table service_secrets (
  name text primary key,
  value_hash bytea not null,
  created_at timestamptz not null default now()
);
