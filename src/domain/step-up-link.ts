// The single-use link to the confirmation page of a step-up (docs/step-up-confirmation.md):
// `<PUBLIC_URL>/step-up/<token>`, the token being the database's environment and 256 random bits
// (`live.` or `sandbox.` then 43 base64url characters). Only its hash is stored (step_ups.link_hash:
// hex SHA-256 of the whole token), so the database alone does not open the page.
import { createHash, randomBytes } from 'node:crypto';
import type { Environment } from './environment.js';

const TOKEN = /^(live|sandbox)\.([A-Za-z0-9_-]{43})$/;

export function newStepUpLinkToken(env: Environment): string {
  return `${env}.${randomBytes(32).toString('base64url')}`;
}

export function hashStepUpLinkToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The environment and hash of a well-formed token; null for anything else (a tampered link). */
export function parseStepUpLinkToken(token: string): { env: Environment; hash: string } | null {
  const m = TOKEN.exec(token);
  if (m === null) return null;
  return { env: m[1] as Environment, hash: hashStepUpLinkToken(token) };
}
