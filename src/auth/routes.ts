// Public authentication endpoints: POST /oauth/token (client_credentials, form or JSON) and
// GET /.well-known/jwks.json (the keys that verify access tokens and decision receipts).
import { ApiError } from '../errors/registry.js';
import { json, type Reply, type RequestContext, type RouteDef } from '../http/types.js';
import { originNotAllowed } from './authenticator.js';
import { AuthFailure } from './failure-guard.js';
import type { AuthService } from './service.js';

interface TokenRequest {
  grant_type: string;
  client_id?: unknown;
  client_secret?: unknown;
}

export function authRoutes(auth: AuthService, tokenTtlSeconds: number): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/oauth/token',
      auth: 'none',
      form: true,
      body: 'OAuthTokenRequest',
      response: 'OAuthTokenResponse',
      successStatus: 200,
      errors: ['unsupported_grant_type', 'unauthorized', 'forbidden', 'rate_limited'],
      operationId: 'issueAccessToken',
      summary: 'Exchange a Principal id and API key for an access token (client_credentials)',
      handler: async (ctx) => {
        const body = ctx.body as TokenRequest;
        if (body.grant_type !== 'client_credentials') throw new ApiError('unsupported_grant_type');
        // A client secret is a credential like any other: throttled, logged and rejected in
        // uniform time on failure (failure-guard.ts).
        // A key that authenticated here recently still gets its token from a throttled address.
        auth.guard.check(ctx.ip, () => {
          const [, secret] = clientCredentials(ctx, body);
          return secret !== null && auth.credentials.proven(secret);
        });
        try {
          return await issueToken(auth, tokenTtlSeconds, ctx, body);
        } catch (err) {
          if (err instanceof AuthFailure) {
            await auth.guard.failed(ctx.ip, '/oauth/token', err.failure, ctx.startedAt, err.credentialId);
          }
          throw err;
        }
      },
    },
    {
      method: 'GET',
      path: '/.well-known/jwks.json',
      auth: 'none',
      response: 'Jwks',
      operationId: 'getJwks',
      summary: 'The public keys (Ed25519, EdDSA) that verify access tokens (sk_) and decision receipts (rk_)',
      handler: () =>
        json(
          200,
          { keys: [...auth.tokens.jwks().keys, ...auth.receipts.published()] },
          {
            'cache-control': 'public, max-age=300',
          },
        ),
    },
  ];
}

async function issueToken(
  auth: AuthService,
  tokenTtlSeconds: number,
  ctx: RequestContext,
  body: TokenRequest,
): Promise<Reply> {
  const [clientId, secret] = clientCredentials(ctx, body);
  // Every mismatch is the same 401: no hint which part was wrong (SPEC.md rule 5).
  if (clientId === null || secret === null) throw new AuthFailure('missing');
  const found = await auth.authenticator.resolvePrincipalKey(secret);
  if (found instanceof AuthFailure) throw found;
  if (found.auth.principalId !== clientId) throw new AuthFailure('id_mismatch', { credentialId: found.cred.id });
  const { cred } = found;
  if (!auth.ipAllowed(cred, ctx.ip)) throw originNotAllowed(cred);
  const now = Math.floor(Date.now() / 1000);
  // The token never outlives its key (expiry, or the end of a rotation grace window), and names
  // the key (kh) so that it also dies when a later rotation's grace window ends.
  const exp = Math.min(now + tokenTtlSeconds, Math.floor(cred.notAfterMs / 1000));
  if (exp <= now) throw new AuthFailure('expired', { credentialId: cred.id });
  const scope = cred.scopes.length === 0 ? '*' : cred.scopes.join(',');
  // An agent key's token is bound to its agent as it is (agt), like its scope.
  const agent = cred.agentId === null ? {} : { agt: cred.agentId };
  const accessToken = await auth.tokens.mint(
    { sub: clientId, client_id: cred.clientId, cid: cred.id, env: cred.environment, scope, kh: cred.keyTag, ...agent },
    now,
    exp,
  );
  return json(
    200,
    { access_token: accessToken, token_type: 'Bearer', expires_in: exp - now, scope },
    { 'cache-control': 'no-store', pragma: 'no-cache' },
  );
}

/** client_id and client_secret from the body, or from HTTP Basic (RFC 6749 section 2.3.1). */
function clientCredentials(ctx: RequestContext, body: TokenRequest): [string | null, string | null] {
  let id = typeof body.client_id === 'string' && body.client_id.length > 0 ? body.client_id : null;
  let secret = typeof body.client_secret === 'string' && body.client_secret.length > 0 ? body.client_secret : null;
  const header = ctx.headers.authorization;
  if ((id === null || secret === null) && header !== undefined && header.slice(0, 6).toLowerCase() === 'basic ') {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      id = safeDecode(decoded.slice(0, colon));
      secret = safeDecode(decoded.slice(colon + 1));
    }
  }
  return [id, secret];
}

function safeDecode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}
