/* Generated from the OpenAPI document by packages/client/scripts/generate.mjs. Do not edit. */
/** Operations that take an Idempotency-Key header ("METHOD /path"). */
export const IDEMPOTENCY_KEY_HEADER: ReadonlySet<string> = new Set([
  'PATCH /api/v1/mandates/{mandate_id}',
  'POST /api/v1/mandates/{mandate_id}/revoke',
  'POST /api/v1/authorizations/{authorization_id}/capture',
  'POST /api/v1/authorizations/{authorization_id}/release',
  'POST /api/v1/authorizations/{authorization_id}/refund',
  'POST /api/v1/onboard',
  'POST /api/v1/principals',
  'POST /api/v1/principals/{principal_id}/agents',
  'POST /api/v1/agents/{agent_id}/mandates',
]);

/** Operations whose JSON body takes an idempotency_key field. */
export const IDEMPOTENCY_KEY_FIELD: ReadonlySet<string> = new Set([
  'POST /api/v1/authorize',
  'POST /api/v1/authorize/explain',
]);

/** Operations that need no credential. */
export const NO_CREDENTIAL: ReadonlySet<string> = new Set([
  'GET /health',
  'GET /ready',
  'GET /api/v1/openapi.json',
  'POST /oauth/token',
  'GET /.well-known/jwks.json',
  'GET /api/v1/ap2-mandates/{hash}/status',
  'GET /api/v1/webhooks/events',
]);
