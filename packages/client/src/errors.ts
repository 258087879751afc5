import type { components } from './generated/openapi.js';

/** The service's error envelope (every 4xx and 5xx answer). */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

/**
 * A 4xx or 5xx answer, thrown by `unwrap`. Branch on `code` (the envelope's stable `error`) and
 * `status`, never on `message`.
 */
export class AsasApiError extends Error {
  override readonly name = 'AsasApiError';
  /** The envelope's stable machine code, e.g. `validation_error`. */
  readonly code: string;
  readonly status: number;
  /** `req_…`, for support. */
  readonly requestId: string;
  /** Every field error of a 422, when the answer names fields. */
  readonly errors: NonNullable<ErrorEnvelope['errors']>;
  readonly envelope: ErrorEnvelope;
  readonly response: Response;

  constructor(envelope: ErrorEnvelope, response: Response) {
    super(`${envelope.status} ${envelope.error}: ${envelope.message}`);
    this.code = envelope.error;
    this.status = envelope.status;
    this.requestId = envelope.request_id;
    this.errors = envelope.errors ?? [];
    this.envelope = envelope;
    this.response = response;
  }
}

/** What every call of the client answers (openapi-fetch's result): `data` on success, else `error`. */
export interface CallResult {
  readonly data?: unknown;
  readonly error?: unknown;
  readonly response: Response;
}

/** The success body of a call's result type (its branch that has `data`). */
export type SuccessData<R> = R extends { data: infer D } ? D : never;

/** The answer's body on success; throws `AsasApiError` on a 4xx or 5xx answer. */
export function unwrap<R extends CallResult>(result: R): SuccessData<R> {
  if (result.error === undefined) return result.data as SuccessData<R>;
  throw new AsasApiError(toEnvelope(result.error, result.response), result.response);
}

/** The envelope of an error answer; one that has none (a proxy's page) gets one from the status. */
function toEnvelope(error: unknown, response: Response): ErrorEnvelope {
  const e = error as Partial<ErrorEnvelope> | null;
  if (e !== null && typeof e === 'object' && typeof e.error === 'string' && typeof e.message === 'string') {
    return {
      ...(e as ErrorEnvelope),
      status: typeof e.status === 'number' ? e.status : response.status,
      request_id: typeof e.request_id === 'string' ? e.request_id : '',
    };
  }
  return {
    error: 'http_error',
    message: typeof error === 'string' && error !== '' ? error.slice(0, 500) : response.statusText,
    status: response.status,
    request_id: '',
  };
}
