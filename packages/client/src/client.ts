// The typed client: openapi-fetch over the generated paths, with the service's credentials,
// idempotency keys and retries of the requests that are safe to send again.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { AsasApiError } from './errors.js';
import type { components, paths } from './generated/openapi.js';
import { IDEMPOTENCY_KEY_FIELD, IDEMPOTENCY_KEY_HEADER, NO_CREDENTIAL } from './generated/operations.js';
import { backoffMs, type RetryOptions, type RetryPolicy, retryDelayMs, retryPolicy, sleep } from './retry.js';

export type AsasClient = Client<paths, 'application/json'>;

export interface AsasClientOptions {
  /** The service's address, e.g. `https://asas.example.com` (paths start with /api/v1). */
  baseUrl: string;
  /** A Client or Principal API key (`mdt_live_…`, `mdt_test_…`), sent as X-API-Key. */
  apiKey?: string;
  /** An access token from POST /oauth/token, or a function giving the current one, sent as a Bearer token. */
  accessToken?: string | (() => string | Promise<string>);
  /**
   * A Principal's id and API key: the client mints access tokens with them (POST /oauth/token,
   * client_credentials), renews one before it expires and mints again once after a 401.
   */
  clientCredentials?: { principalId: string; apiKey: string };
  /** Retries of safe and idempotent requests; `false` sends every request once. */
  retry?: RetryOptions | false;
  /** The idempotency keys the client makes up when the caller gives none. Default crypto.randomUUID. */
  newIdempotencyKey?: () => string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch to send with (default globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

/** What the client knows of a request once its own middleware has seen it. */
interface Traits {
  /** GET or HEAD, or an operation that replays under the idempotency key the request carries. */
  readonly resendable: boolean;
  /** The operation needs no credential. */
  readonly open: boolean;
}

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/**
 * A client for every operation of the service's OpenAPI document:
 * `await client.POST('/api/v1/authorize', { body })` answers `{ data }` or `{ error }` (the error
 * envelope) with the `response`; `unwrap()` gives the data or throws `AsasApiError`.
 *
 * - Credentials: `apiKey`, `accessToken` or `clientCredentials` (one of them), added to every
 *   operation that needs one, unless the request sets its own X-API-Key or Authorization.
 * - Idempotency: an operation that takes an Idempotency-Key header gets a new key unless the
 *   request has one; POST /api/v1/authorize (and the other operations with an `idempotency_key`
 *   body field) gets one in the body unless the body has one.
 * - Retries: GET and HEAD, and requests carrying an idempotency key of an operation that honours
 *   it, are sent again after a network failure, a 429, a 5xx or a 409 idempotency_key_in_use,
 *   after Retry-After when the answer has one, else after an exponential backoff with jitter. Any
 *   other request is sent once.
 */
export function createAsasClient(options: AsasClientOptions): AsasClient {
  const ways = [options.apiKey, options.accessToken, options.clientCredentials].filter((w) => w !== undefined);
  if (ways.length > 1) throw new TypeError('createAsasClient: give one of apiKey, accessToken and clientCredentials');
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const newKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const policy = retryPolicy(options.retry);
  const traits = new WeakMap<Request, Traits>();
  const credential = credentials(options, baseUrl, send);

  const idempotency: Middleware = {
    async onRequest({ request, schemaPath }) {
      const operation = `${request.method} ${schemaPath}`;
      const open = NO_CREDENTIAL.has(operation);
      if (IDEMPOTENCY_KEY_HEADER.has(operation)) {
        if (!request.headers.has('idempotency-key')) request.headers.set('idempotency-key', newKey());
        traits.set(request, { resendable: true, open });
        return request;
      }
      if (IDEMPOTENCY_KEY_FIELD.has(operation)) {
        const { request: keyed, hasKey } = await withBodyKey(request, newKey);
        traits.set(keyed, { resendable: hasKey, open });
        return keyed;
      }
      traits.set(request, { resendable: SAFE_METHODS.has(request.method), open });
      return request;
    },
  };

  async function sendWithRetries(request: Request): Promise<Response> {
    const { resendable, open } = traits.get(request) ?? { resendable: SAFE_METHODS.has(request.method), open: false };
    // Only a token the client minted itself may be minted again, not one the request brought.
    let mintAgain =
      credential?.minted === true && !request.headers.has('authorization') && !request.headers.has('x-api-key');
    for (let attempt = 0; ; attempt++) {
      const outgoing = request.clone();
      if (!open && credential !== null) await credential.apply(outgoing.headers);
      let response: Response;
      try {
        response = await send(outgoing);
      } catch (err) {
        if (!resendable || attempt >= policy.retries || request.signal.aborted) throw err;
        await sleep(backoffMs(policy, attempt), request.signal);
        continue;
      }
      // A refused token was never acted on: mint a new one and send again, once.
      if (response.status === 401 && mintAgain && !open) {
        mintAgain = false;
        credential?.forget();
        await response.body?.cancel();
        attempt--;
        continue;
      }
      if (!resendable || attempt >= policy.retries) return response;
      const wait = await retryDelayMs(policy, response, attempt);
      if (wait === null) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  }

  const client = createClient<paths, 'application/json'>({
    baseUrl,
    fetch: sendWithRetries,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  });
  client.use(idempotency);
  return client;
}

/** `request` with an idempotency_key added to its JSON object body unless it has one; `hasKey`: it carries one now. */
async function withBodyKey(request: Request, newKey: () => string): Promise<{ request: Request; hasKey: boolean }> {
  const body = await jsonBody(request);
  if (body === null) return { request, hasKey: false };
  if (body.idempotency_key !== undefined) return { request, hasKey: typeof body.idempotency_key === 'string' };
  return {
    request: new Request(request, { body: JSON.stringify({ ...body, idempotency_key: newKey() }) }),
    hasKey: true,
  };
}

async function jsonBody(request: Request): Promise<Record<string, unknown> | null> {
  if (request.body === null) return null;
  try {
    const body = (await request.clone().json()) as unknown;
    return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

interface Credential {
  /** Whether the client mints the tokens itself (and may mint again after a 401). */
  readonly minted: boolean;
  /** Sets the credential on `headers` unless they carry one already. */
  apply(headers: Headers): Promise<void>;
  /** Drops a minted token so that the next request mints a new one. */
  forget(): void;
}

type TokenAnswer = components['schemas']['OAuthTokenResponse'];

function credentials(
  options: AsasClientOptions,
  baseUrl: string,
  send: (request: Request) => Promise<Response>,
): Credential | null {
  const unset = (headers: Headers) => !headers.has('x-api-key') && !headers.has('authorization');
  const { apiKey, accessToken, clientCredentials } = options;
  if (apiKey !== undefined) {
    return {
      minted: false,
      async apply(headers) {
        if (unset(headers)) headers.set('x-api-key', apiKey);
      },
      forget() {},
    };
  }
  if (accessToken !== undefined) {
    return {
      minted: false,
      async apply(headers) {
        if (unset(headers)) {
          headers.set('authorization', `Bearer ${typeof accessToken === 'string' ? accessToken : await accessToken()}`);
        }
      },
      forget() {},
    };
  }
  if (clientCredentials === undefined) return null;
  let token: Promise<{ value: string; renewAtMs: number }> | null = null;
  const mint = () => {
    // A failed mint is not kept: the next request tries again.
    const minting = mintToken().catch((err: unknown) => {
      if (token === minting) token = null;
      throw err;
    });
    token = minting;
    return minting;
  };
  const mintToken = async () => {
    const response = await send(
      new Request(`${baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: clientCredentials.principalId,
          client_secret: clientCredentials.apiKey,
        }),
      }),
    );
    const body = (await response.json().catch(() => null)) as TokenAnswer | null;
    if (!response.ok || body === null) {
      const envelope = body as unknown as { error?: string; message?: string; request_id?: string } | null;
      throw new AsasApiError(
        {
          error: envelope?.error ?? 'http_error',
          message: envelope?.message ?? `POST /oauth/token: ${response.status}`,
          status: response.status,
          request_id: envelope?.request_id ?? '',
        },
        response,
      );
    }
    // Renew a tenth of its lifetime (at most a minute) before it expires.
    const lifetimeMs = body.expires_in * 1000;
    return { value: body.access_token, renewAtMs: Date.now() + lifetimeMs - Math.min(60_000, lifetimeMs / 10) };
  };
  return {
    minted: true,
    async apply(headers) {
      if (!unset(headers)) return;
      let current = await (token ?? mint());
      if (Date.now() >= current.renewAtMs) current = await mint();
      headers.set('authorization', `Bearer ${current.value}`);
    },
    forget() {
      token = null;
    },
  };
}

export type { RetryOptions, RetryPolicy };
