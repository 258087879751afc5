// The receipt of a decision about to be recorded: called by the shard's actor system
// (src/shard/actors.ts) right after the decision core evaluated a request and before the
// decision is handed to the group committer, so the receipt is stored with the response (an
// idempotent replay returns it unchanged) and only decisions that are recorded are ever signed
// (a dry run that evaluates without recording gets none).

import type { AuthorizeRequest } from '../decision/model/contract.js';
import { currencyExponent } from '../domain/currency.js';
import { formatAmount, parseAmount } from '../domain/money.js';
import { signReceipt } from '../receipts/signer.js';

/** Sets `response.receipt` when this thread has a receipt key and the decision has an id. */
export function attachReceipt(request: AuthorizeRequest, response: Record<string, unknown>): void {
  const authorizationId = response.authorization_id;
  if (typeof authorizationId !== 'string') return;
  const units = parseAmount(request.amount);
  const receipt = signReceipt({
    authorization_id: authorizationId,
    agent_id: request.agentId,
    mandate_id: typeof response.mandate_id === 'string' ? response.mandate_id : null,
    // Exactly the currency's minor units, so verifiers compare text ("10.00", "1000", "1.500").
    amount: units === null ? request.amount : formatAmount(units, currencyExponent(request.currency) ?? 2),
    currency: request.currency,
    merchant: request.merchantId ?? request.merchantName,
    decision: String(response.decision),
    iat: Math.floor(Date.parse(String(response.timestamp)) / 1000),
  });
  if (receipt !== null) response.receipt = receipt;
}
