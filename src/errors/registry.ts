// The one error registry: every error the API can answer has a stable machine code, an HTTP
// status and a default message here. Handlers throw ApiError; only src/http/envelope.ts turns
// an error into the SPEC.md envelope.

export const ERRORS = {
  // SPEC.md "Error codes"
  program_not_owned: { status: 422, message: 'A program_id does not belong to the calling Client.' },
  duplicate_client_customer_ref: { status: 409, message: 'client_customer_ref already exists for this Client.' },
  principal_not_in_program: {
    status: 422,
    message: 'The Principal is not enrolled in that Program, or program_id is required.',
  },
  principal_not_found: { status: 404, message: 'Principal not found.' },
  principal_budget_not_found: { status: 404, message: 'The Principal has no budget (PUT one first).' },
  invalid_phone_format: { status: 422, message: 'SMS step-up requires a valid E.164 phone number.' },
  attestation_required: { status: 422, message: 'verification.attestation is required in client_attested mode.' },
  idempotency_key_reuse: { status: 422, message: 'This Idempotency-Key was used with a different request body.' },
  idempotency_key_expired: {
    status: 422,
    message:
      'This idempotency key was used more than 24 hours ago, or its stored answer was dropped by the per-owner store cap; use a new key.',
  },
  idempotency_key_in_use: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed; retry later.',
  },
  sandbox_only: { status: 403, message: 'This action is available with a sandbox credential only.' },
  validation_error: { status: 422, message: 'The request failed validation.' },
  unauthorized: { status: 401, message: 'Missing or invalid credentials.' },
  forbidden: { status: 403, message: 'Access to this resource is forbidden.' },
  // Values CONTRACT.md and this service fix where SPEC.md is silent
  invalid_status_transition: { status: 422, message: 'That status transition is not allowed.' },
  invalid_thresholds: { status: 422, message: 'The threshold values are inconsistent.' },
  invalid_webhook_url: { status: 422, message: 'The webhook URL is not allowed.' },
  webhook_inactive: { status: 422, message: 'The webhook is not active.' },
  mandate_limit_reached: {
    status: 422,
    message: 'The agent already holds the most unexpired ACTIVE mandates one agent may hold (100).',
  },
  // Holds (docs/holds.md)
  authorization_not_held: {
    status: 409,
    message: 'Only an APPROVE with capture_method manual is a hold that can be captured or released.',
  },
  hold_not_active: {
    status: 409,
    message: 'The hold was already captured, released or expired; its status is in the message.',
  },
  hold_expired: { status: 409, message: 'The hold passed its expiry time; its budget is given back.' },
  amount_exceeds_hold: { status: 422, message: 'The capture amount is greater than the amount held.' },
  authorization_not_refundable: {
    status: 409,
    message: 'Only a captured APPROVE can be refunded (a hold must be captured first).',
  },
  amount_exceeds_captured: {
    status: 422,
    message: 'The refund amount is greater than what was captured and not yet refunded.',
  },
  invalid_timezone: { status: 422, message: 'timezone must be an IANA time zone name, e.g. Europe/Berlin or UTC.' },
  not_found: { status: 404, message: 'Resource not found.' },
  // Portable mandates (AP2 Payment Mandates, docs/ap2.md)
  ap2_malformed_credential: {
    status: 422,
    message: 'The credential is not an SD-JWT (issuer-signed JWT, then disclosures, separated by ~).',
  },
  ap2_unknown_issuer_key: {
    status: 422,
    message: "The credential's kid names no ACTIVE issuer key registered for this Principal.",
  },
  ap2_invalid_signature: { status: 422, message: 'The signature of the credential does not verify.' },
  ap2_invalid_disclosure: { status: 422, message: 'A disclosure does not match a digest of the credential.' },
  ap2_wrong_vct: { status: 422, message: 'The credential is not of the AP2 type this call takes (vct).' },
  ap2_credential_expired: { status: 422, message: 'The credential is past its exp.' },
  ap2_agent_key_not_registered: {
    status: 422,
    message: "The credential's cnf key is not the public key the agent registered.",
  },
  unresolved_constraint: {
    status: 422,
    message: 'The mandate holds constraints this service cannot enforce; details name them.',
  },
  ap2_mandate_already_imported: { status: 409, message: 'This credential was already imported.' },
  ap2_mandate_not_imported: {
    status: 422,
    message: 'The open Payment Mandate of the chain was not imported for this agent.',
  },
  ap2_key_binding_invalid: {
    status: 422,
    message: "The closed Payment Mandate is not signed by the open mandate's cnf key, or not bound to it (sd_hash).",
  },
  ap2_mandate_already_consumed: {
    status: 409,
    message: 'This closed Payment Mandate (or its transaction_id) was already presented.',
  },
  ap2_mandate_unknown_hash: { status: 404, message: 'No portable mandate of the caller has this hash.' },
  agent_not_found: { status: 404, message: 'Agent not found.' },
  mandate_not_found: { status: 404, message: 'Mandate not found.' },
  step_up_not_found: { status: 404, message: 'Step-up not found.' },
  step_up_not_pending: {
    status: 409,
    message:
      'The step-up is not awaiting confirmation: it was confirmed or used already (a confirmation is single-use).',
  },
  step_up_expired: {
    status: 409,
    message: 'The step-up expired before it was confirmed: re-submit the request for a new STEP_UP.',
  },
  invalid_step_up_code: { status: 422, message: 'The one-time code does not match this step-up.' },
  step_up_code_locked: {
    status: 409,
    message:
      'Too many wrong codes for this step-up: confirm it with the Principal credential, or re-submit the request for a new STEP_UP.',
  },
  step_up_confirmation_forbidden: {
    status: 403,
    message:
      'Confirming a step-up without its one-time code needs the Principal own credential (full access or the step_ups scope); a credential limited to authorize must send the code.',
  },
  mandate_not_active: {
    status: 422,
    message: 'The mandate is not ACTIVE (it is REVOKED or EXPIRED): it can no longer be amended or revoked.',
  },
  authorization_not_found: { status: 404, message: 'Authorization not found.' },
  webhook_not_found: { status: 404, message: 'Webhook not found.' },
  client_not_found: { status: 404, message: 'Client not found.' },
  credential_not_found: { status: 404, message: 'Credential not found.' },
  route_not_found: { status: 404, message: 'No such endpoint.' },
  method_not_allowed: { status: 405, message: 'Method not allowed on this endpoint.' },
  unsupported_grant_type: { status: 400, message: 'grant_type must be client_credentials.' },
  bad_request: { status: 400, message: 'The request is malformed.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  unsupported_media_type: { status: 415, message: 'Content-Type must be application/json.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  no_fields_to_update: { status: 400, message: 'No field to update was provided.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  rate_limited: { status: 429, message: 'Too many requests; retry after the indicated delay.' },
  internal_error: { status: 500, message: 'Internal server error; safe to retry with backoff.' },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * The machine code of one field's error (`errors[].code` of the envelope): stable, one per kind
 * of mistake, so that a client can branch or translate without reading `message`.
 */
export const FIELD_ERROR_CODES = {
  required: 'a required field is missing',
  unknown_field: 'the field is not part of this request',
  type: 'the value has the wrong JSON type',
  format: 'the text is not in the format named (date-time, email, uri)',
  pattern: 'the text is not in the form the field takes (the message says which)',
  too_short: 'the text is shorter than allowed (or empty)',
  too_long: 'the text is longer than allowed',
  too_few_items: 'the list has fewer items than allowed',
  too_many_items: 'the list has more items than allowed',
  too_many_properties: 'the object has more keys than allowed',
  duplicate_items: 'the list holds the same item twice',
  enum: 'the value is not one of the allowed values',
  minimum: 'the number is below the minimum',
  maximum: 'the number is above the maximum',
  invalid_amount: 'the amount is not a positive decimal the currency allows',
  invalid_country: 'the country is not an ISO 3166-1 code',
  invalid_cursor: 'the cursor was not returned by this endpoint',
  already_exists: 'the value is already registered',
  not_allowed: 'the value is refused in this state or by policy',
  unstorable_text: 'the text holds characters that cannot be stored',
  duplicate_header: 'a header that frames the request appears more than once',
  too_large: 'the value is larger than allowed',
  too_deep: 'the object or list is nested deeper than allowed',
  invalid: 'the value is invalid (the message says why)',
} as const;

export type FieldErrorCode = keyof typeof FIELD_ERROR_CODES;

export interface ErrorDetail {
  /** Dotted path of the offending field, e.g. "principal.profile.email". */
  field: string;
  /** The kind of mistake; the envelope answers `invalid` when a detail names none. */
  code?: FieldErrorCode;
  /** For people: says what is expected, never a raw regex. */
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: readonly ErrorDetail[] | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options?: { details?: readonly ErrorDetail[]; headers?: Record<string, string>; cause?: unknown },
  ) {
    super(message ?? ERRORS[code].message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = options?.details;
    this.headers = options?.headers;
  }
}

export function apiError(code: ErrorCode, message?: string, details?: readonly ErrorDetail[]): ApiError {
  return new ApiError(code, message, details === undefined ? undefined : { details });
}
