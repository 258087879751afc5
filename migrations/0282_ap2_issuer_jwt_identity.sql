-- An open Payment Mandate is identified by its issuer-signed JWT (docs/ap2.md, issue 27 review):
-- the hash over the whole token changes when the disclosures are reordered or repeated, so one
-- signed grant could be imported many times (its budget and occurrences multiplied, a revoked
-- import brought back). issuer_jwt_hash is base64url SHA-256 of the part before the first `~`,
-- unique in each environment's database.
alter table ap2_mandates add column issuer_jwt_hash text;

-- Existing imports: the first import of each signed JWT keeps the identity; a later import of the
-- same JWT (a duplicate the old check let through) is left without it, so no presentation
-- reaches it any more (presentations look the mandate up by issuer_jwt_hash).
with hashed as (
  select mandate_id, imported_at,
    rtrim(translate(encode(sha256(convert_to(split_part(credential, '~', 1), 'UTF8')), 'base64'), E'+/\n', '-_'), '=') as h
  from ap2_mandates
), ranked as (
  select mandate_id, h, row_number() over (partition by h order by imported_at, mandate_id) as n from hashed
)
update ap2_mandates a set issuer_jwt_hash = r.h from ranked r where r.mandate_id = a.mandate_id and r.n = 1;

create unique index ap2_mandates_issuer_jwt_hash_idx on ap2_mandates (issuer_jwt_hash);
