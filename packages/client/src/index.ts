// @asas/client: a typed client of the Agent Spending Authorization Service's HTTP API.
// Receipt verification is in '@asas/client/receipts', webhook verification (Node) in
// '@asas/client/webhooks'.
import type { components } from './generated/openapi.js';

export { type AsasClient, type AsasClientOptions, createAsasClient, type RetryOptions } from './client.js';
export { AsasApiError, type CallResult, type ErrorEnvelope, type SuccessData, unwrap } from './errors.js';
export type { components, operations, paths } from './generated/openapi.js';

/** Every schema of the API by name, e.g. `Schemas['AuthorizeRequest']`. */
export type Schemas = components['schemas'];
export type AuthorizeRequest = Schemas['AuthorizeRequest'];
export type AuthorizeResponse = Schemas['AuthorizeResponse'];
