// Proof of possession for POST /agents with public_key_jwk (docs/runtime-plane.md):
// registration_proof is a compact JWS (RFC 7515) with protected header {"alg":"EdDSA"},
// signed with the Ed25519 private key of public_key_jwk, over a JSON payload
//   {"purpose": "agent_registration", "principal_id": <the caller>, "display_name": <as sent>,
//    "did": <as sent; required in the payload only when a did is sent>}
// Binding the Principal and the name stops a proof made for one registration being replayed
// for another Principal's agent.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';

export interface Ed25519Jwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
}

export interface ProofExpectation {
  readonly principalId: string;
  readonly displayName: string;
  readonly did: string | null;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/** Returns null when the proof verifies, otherwise why it does not. */
export function checkRegistrationProof(jwk: Ed25519Jwk, proof: string, expect: ProofExpectation): string | null {
  const parts = proof.split('.');
  if (parts.length !== 3 || !parts.every((p) => B64URL.test(p))) {
    return 'must be a compact JWS: header.payload.signature in base64url';
  }
  const [h, p, s] = parts as [string, string, string];
  const header = parseJson(h);
  if (header === null || header.alg !== 'EdDSA') return 'JWS header must be {"alg":"EdDSA"}';
  let key: KeyObject;
  try {
    key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  } catch {
    return 'public_key_jwk is not a valid Ed25519 key';
  }
  const signature = Buffer.from(s, 'base64url');
  if (signature.length !== 64 || !verify(null, Buffer.from(`${h}.${p}`, 'ascii'), key, signature)) {
    return 'signature does not verify with public_key_jwk';
  }
  const payload = parseJson(p);
  if (payload === null) return 'JWS payload must be a JSON object';
  if (payload.purpose !== 'agent_registration') return 'payload.purpose must be "agent_registration"';
  if (payload.principal_id !== expect.principalId) return "payload.principal_id must be the caller's Principal";
  if (payload.display_name !== expect.displayName) return 'payload.display_name must equal display_name';
  if (expect.did !== null && payload.did !== expect.did) return 'payload.did must equal did';
  return null;
}

function parseJson(b64: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(b64, 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
