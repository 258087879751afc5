#!/usr/bin/env bash
# From an empty service to one APPROVE, one DECLINE and one STEP_UP, through the public API.
#
#   npm start                      # in one terminal (or any running deployment)
#   scripts/quickstart.sh          # in another, from the project directory
#
# BASE (default http://127.0.0.1:8080) names the service; ADMIN_KEY defaults to the key the
# service generated in DATA_DIR/admin.key (DATA_DIR defaults to ./data). Needs curl and node.
# Every answer is kept in a temporary directory, removed on exit; nothing is written elsewhere.
# The last line prints the Principal's sandbox key, its agent and mandate, for the README's
# other examples.
set -euo pipefail

BASE=${BASE:-http://127.0.0.1:8080}
ADMIN_KEY=${ADMIN_KEY:-$(cat "${DATA_DIR:-./data}/admin.key")}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# call NAME METHOD PATH [BODY] [HEADER...]: the answer's body goes to $TMP/NAME.json; a status
# outside 2xx stops the script with the error envelope printed.
call() {
  local name=$1 method=$2 path=$3 body=${4:-}
  shift 4 || shift $#
  local args=(-sS -o "$TMP/$name.json" -w '%{http_code}' -X "$method" "$BASE$path" -H 'Content-Type: application/json')
  for h in "$@"; do args+=(-H "$h"); done
  [ -n "$body" ] && args+=(-d "$body")
  local status
  status=$(curl "${args[@]}")
  if [ "${status:0:1}" != 2 ]; then
    echo "$method $path answered $status:" >&2
    cat "$TMP/$name.json" >&2
    echo >&2
    exit 1
  fi
}
# field NAME PATH: one field of a saved answer (PATH in JavaScript notation, e.g. agent.id).
field() { node -e "const a = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')); console.log(a.$2)" "$TMP/$1.json"; }
admin() { call "$1" POST "$2" "$3" "X-Admin-Key: $ADMIN_KEY"; }

# 1. The operator provisions a Client, a Program and a sandbox Client API key.
admin client /admin/v1/clients '{"name": "Acme Wallet"}'
CLIENT_ID=$(field client id)
admin program "/admin/v1/clients/$CLIENT_ID/programs" '{"name": "Shopping agents"}'
PROGRAM_ID=$(field program id)
admin client_key "/admin/v1/clients/$CLIENT_ID/credentials" '{"environment": "sandbox"}'
CLIENT_KEY=$(field client_key api_key)

# 2. The Client onboards a Principal, its first Agent and a Mandate in one atomic call.
call onboard POST /api/v1/onboard '{
  "principal": {
    "principal_kind": "personal",
    "program_ids": ["'"$PROGRAM_ID"'"],
    "profile": {"display_name": "Ada Lovelace", "email": "ada@example.com", "phone": "+14155550123", "country": "GB"},
    "verification": {"type": "KYC", "mode": "client_attested",
      "attestation": {"attested_by": "kyc@acme.example", "scope": "KYC", "statement": "ID document checked"}},
    "client_customer_ref": "cust-0001"
  },
  "agent": {"name": "Grocery agent", "capabilities": ["PURCHASE"]},
  "mandate": {
    "rails": ["card"],
    "limits": {"max_amount_per_transaction": "150.00", "max_daily_amount": "400.00", "currency": "USD"},
    "allowed_mccs": ["5411"],
    "allowed_countries": ["US", "GB"]
  }
}' "X-API-Key: $CLIENT_KEY" "Idempotency-Key: quickstart-$CLIENT_ID"
PRINCIPAL_ID=$(field onboard principal.id)
AGENT_ID=$(field onboard agent.id)
MANDATE_ID=$(field onboard mandate.id)
echo "onboarded principal $PRINCIPAL_ID with agent $AGENT_ID"

# 3. The Principal's own key (shown once); its agent asks to buy.
call principal_key POST "/api/v1/principals/$PRINCIPAL_ID/sandbox-key" '' "X-API-Key: $CLIENT_KEY"
PRINCIPAL_KEY=$(field principal_key api_key)

# authorize NAME AMOUNT MCC [EXTRA_FIELDS]: one purchase attempt by the agent; prints the decision.
authorize() {
  call "$1" POST /api/v1/authorize '{"agent_id": "'"$AGENT_ID"'", "amount": "'"$2"'", "currency": "USD",
    "mcc": "'"$3"'", "country": "US", "merchant_name": "Corner Grocer", "session_id": "quickstart",
    "intent_context": {"intent_type": "purchase", "task_reference": "weekly-groceries"}'"${4:-}"'}' \
    "X-API-Key: $PRINCIPAL_KEY"
  echo "$1: $(field "$1" decision) $(field "$1" "reason_codes.join(',')")"
}

# APPROVE: within the mandate.
authorize approve 42.50 5411
# DECLINE: a merchant category the mandate does not allow.
authorize decline 20.00 7995
# STEP_UP: the Principal lowers its step-up threshold to 0, so any risk asks for a human;
# re-sent with step_up_confirmed after the human said yes, the same purchase is approved.
call thresholds PUT /api/v1/thresholds '{"authorize_step_up_threshold": 0}' "X-API-Key: $PRINCIPAL_KEY"
authorize step_up 30.00 5411
authorize confirmed 30.00 5411 ', "step_up_confirmed": true'

# Back to the default thresholds, then the values the README's further examples use (a sandbox
# key: paste the line into your shell to try them against this Principal).
call reset DELETE /api/v1/thresholds '' "X-API-Key: $PRINCIPAL_KEY"
echo
echo "to try the README's examples, paste this line into your shell:"
echo "export BASE=$BASE PRINCIPAL_ID=$PRINCIPAL_ID PRINCIPAL_KEY=$PRINCIPAL_KEY AGENT_ID=$AGENT_ID MANDATE_ID=$MANDATE_ID CLIENT_KEY=$CLIENT_KEY"
