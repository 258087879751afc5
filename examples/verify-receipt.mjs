// Verifies a decision receipt (the `receipt` of a POST /api/v1/authorize response) with jose,
// as a merchant or PSP would, against the service's published keys.
//
//   node examples/verify-receipt.mjs <receipt> https://asas.example.com/.well-known/jwks.json
//   node examples/verify-receipt.mjs <receipt> jwks.json     # offline: a saved copy of the JWKS
//
// Prints the verified payload as JSON and exits 0; prints why and exits 1 when the receipt does
// not verify (altered, signed by an unknown key, or not a receipt).
import { readFileSync } from 'node:fs';
import { compactVerify, createLocalJWKSet, createRemoteJWKSet } from 'jose';

const [receipt, source] = process.argv.slice(2);
if (!receipt || !source) {
  console.error('usage: node examples/verify-receipt.mjs <receipt> <jwks url or file>');
  process.exit(2);
}
const keys = /^https?:\/\//.test(source)
  ? createRemoteJWKSet(new URL(source))
  : createLocalJWKSet(JSON.parse(readFileSync(source, 'utf8')));

try {
  const { payload, protectedHeader } = await compactVerify(receipt, keys, { algorithms: ['EdDSA'] });
  if (protectedHeader.typ !== 'asas-receipt+jwt')
    throw new Error(`not a decision receipt (typ ${protectedHeader.typ})`);
  const claims = JSON.parse(new TextDecoder().decode(payload));
  // claims: authorization_id, agent_id, mandate_id, amount (text, e.g. "10.00"), currency,
  // merchant, decision (APPROVE, DECLINE or STEP_UP), iat (seconds). Compare amount as text.
  console.log(JSON.stringify({ valid: true, kid: protectedHeader.kid, ...claims }));
} catch (err) {
  console.log(JSON.stringify({ valid: false, reason: err instanceof Error ? err.message : String(err) }));
  process.exit(1);
}
