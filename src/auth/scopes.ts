// Credential scopes (SPEC.md "Scopes"): a comma-separated list fixed at issue; empty or `*`
// means full access, otherwise the request path must fall under one allowed scope's prefix.
import { ApiError } from '../errors/registry.js';

/**
 * Scope name -> the path prefixes it opens (docs/auth.md has the table). SPEC.md names the
 * first five. A prefix is strict (CONTRACT.md): `principals` opens /api/v1/principals and what
 * lies under it, nothing else. POST /onboard creates a Principal, its first Agent and a Mandate
 * at once, so it has its own scope, `onboard`, rather than riding on `principals`. The
 * read-surface scopes SPEC.md names without prefixes map to /api/v1/<name>; thresholds and
 * crypto are the remaining groups. An empty list or `*` opens every prefix, onboard included.
 */
export const SCOPE_PREFIXES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  // The agent's key: its decisions, and confirming a step-up with the one-time code the human
  // passed on (without the code a step-up needs step_ups or full access; docs/step-up-confirmation.md).
  authorize: ['/api/v1/authorize', '/api/v1/step-ups'],
  agents: ['/api/v1/agents'],
  mandates: ['/api/v1/mandates'],
  webhooks: ['/api/v1/webhooks'],
  principals: ['/api/v1/principals'],
  onboard: ['/api/v1/onboard'],
  thresholds: ['/api/v1/thresholds'],
  step_ups: ['/api/v1/step-ups'],
  crypto: ['/api/v1/crypto'],
  risk: ['/api/v1/risk'],
  metrics: ['/api/v1/metrics'],
  outcomes: ['/api/v1/outcomes'],
  vault: ['/api/v1/vault'],
  cases: ['/api/v1/cases'],
});

/**
 * Parses and normalises a scope list as given at issue ("agents, authorize"): trimmed,
 * de-duplicated, `*` alone when full access. Throws validation_error naming unknown scopes.
 */
export function normaliseScopes(raw: string | undefined | null, field = 'scopes'): string {
  const parts = (raw ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (parts.length === 0) return '';
  if (parts.includes('*')) return '*';
  const unknown = parts.filter((p) => SCOPE_PREFIXES[p] === undefined);
  if (unknown.length > 0) {
    throw new ApiError('validation_error', 'The request failed validation.', {
      details: [
        {
          field,
          code: 'enum',
          message: `unknown scope ${unknown.map((u) => `"${u}"`).join(', ')}; known: *, ${Object.keys(SCOPE_PREFIXES).join(', ')}`,
        },
      ],
    });
  }
  return [...new Set(parts)].join(',');
}

/** The stored comma-separated list as an array; [] means full access. */
export function parseScopes(stored: string): string[] {
  const out: string[] = [];
  for (const s of stored.split(',')) {
    const t = s.trim();
    if (t.length > 0) out.push(t);
  }
  return out.includes('*') ? [] : out;
}

/** True when a credential with `scopes` (parsed; [] = all) may call `path`. */
export function scopeAllows(scopes: readonly string[], path: string): boolean {
  if (scopes.length === 0) return true;
  for (const s of scopes) {
    const prefixes = SCOPE_PREFIXES[s];
    if (prefixes === undefined) continue;
    for (const p of prefixes) {
      if (path === p || (path.startsWith(p) && path.charCodeAt(p.length) === 47) /* / */) return true;
    }
  }
  return false;
}
