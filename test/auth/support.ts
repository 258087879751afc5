// Shared helpers of the authentication tests: the built service's auth modules, request
// contexts for driving the authenticator directly, and a uniform-401 assertion.
import { expect } from 'vitest';
import { expectEnvelope, type HttpResult, request } from '../fixtures/server.js';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url).href;

export const scopesModule = (await import(`${DIST}auth/scopes.js`)) as typeof import('../../src/auth/scopes.js');
export const keysModule = (await import(`${DIST}auth/keys.js`)) as typeof import('../../src/auth/keys.js');
export const allowlistModule = (await import(
  `${DIST}auth/ip-allowlist.js`
)) as typeof import('../../src/auth/ip-allowlist.js');

/** Asserts a 401 unauthorized envelope and returns what must be identical across failures. */
export function expectUnauthorized(res: HttpResult): { status: number; error: string; message: string; keys: string } {
  const env = expectEnvelope(res, 401, 'unauthorized');
  expect(res.headers.get('www-authenticate') ?? null).toBe(null);
  return { status: env.status, error: env.error, message: env.message, keys: Object.keys(env).sort().join(',') };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Creates a Principal through POST /api/v1/principals with a Client key; returns its id. */
export async function createPrincipal(server: { url: string }, clientKey: string, programId: string): Promise<string> {
  const { principalBody } = await import('../fixtures/onboarding.js');
  const res = await request(server, 'POST', '/api/v1/principals', {
    apiKey: clientKey,
    body: principalBody(programId),
  });
  if (res.status !== 201 && res.status !== 202) throw new Error(`POST /principals: ${res.status} ${res.text}`);
  return (res.body as { id: string }).id;
}

/** A well-formed key no credential has. */
export function unknownKey(env: 'live' | 'sandbox' = 'live'): string {
  return keysModule.generateApiKey(env);
}
