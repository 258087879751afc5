/* Generated from the OpenAPI document by packages/client/scripts/generate.mjs. Do not edit. */
export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Process liveness */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: databases and event bus reachable */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The public API as an OpenAPI 3.1 document */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Exchange a Principal id and API key for an access token (client_credentials) */
        post: operations["issueAccessToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The public keys (Ed25519, EdDSA) that verify access tokens (sk_) and decision receipts (rk_) */
        get: operations["getJwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decide a transaction an agent attempts (APPROVE, DECLINE or STEP_UP)
         * @description Also open to an agent key, for its own agent only; another agent (named, or owning the resource) is 403 forbidden.
         */
        post: operations["authorize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorize/explain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dry run: the decision /authorize would give now, with each gate score, threshold and margin, the limits and caps (records nothing)
         * @description Also open to an agent key, for its own agent only; another agent (named, or owning the resource) is 403 forbidden.
         */
        post: operations["explainAuthorization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorize/log/{authorization_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One authorization audit log entry of the calling Principal */
        get: operations["getAuthorizationLogEntry"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorize/log/agent/{agent_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An agent's authorization log, newest first, cursor-paged
         * @description Also open to an agent key, for its own agent only (the path's agent_id); another agent is 403 forbidden.
         */
        get: operations["listAgentAuthorizationLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's agents, newest first, paged */
        get: operations["listAgents"];
        put?: never;
        /** Register an agent under the calling Principal */
        post: operations["createAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agent_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of the caller's agents */
        get: operations["getAgent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agent_id}/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An agent's decision counts and trust promotion eligibility */
        get: operations["getAgentMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agent_id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Suspend, reactivate or revoke an agent (REVOKED is final) */
        patch: operations["setAgentStatus"];
        trace?: never;
    };
    "/api/v1/agents/{agent_id}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An agent's keys, newest first (never the keys themselves) */
        get: operations["listAgentKeys"];
        put?: never;
        /** Issue an API key bound to one agent (decisions, mandates, holds and step-ups of that agent only) */
        post: operations["createAgentKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agent_id}/keys/{credential_id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke an agent key at once and for good (its tokens too) */
        post: operations["revokeAgentKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling agent key: its credential and the agent it acts for (agent keys only)
         * @description Also open to an agent key, for its own agent only; another agent (named, or owning the resource) is 403 forbidden.
         */
        get: operations["getOwnAgentKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/mandates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Grant one of the caller's agents a mandate */
        post: operations["createMandate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/mandates/{mandate_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One of the caller's mandates
         * @description Also open to an agent key, for its own agent only; another agent (named, or owning the resource) is 403 forbidden.
         */
        get: operations["getMandate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Amend an ACTIVE mandate's limits, lists or valid_until (null removes an optional limit or list) */
        patch: operations["updateMandate"];
        trace?: never;
    };
    "/api/v1/mandates/agent/{agent_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The mandates of one of the caller's agents, newest first
         * @description Also open to an agent key, for its own agent only (the path's agent_id); another agent is 403 forbidden.
         */
        get: operations["listAgentMandates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/mandates/{mandate_id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke a mandate: status REVOKED, every later decision on it declines (final) */
        post: operations["revokeMandate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/thresholds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Effective decision thresholds, the overrides and the platform defaults */
        get: operations["getThresholds"];
        /** Override any subset of thresholds; null reverts a field to its default */
        put: operations["updateThresholds"];
        post?: never;
        /** Remove every threshold override */
        delete: operations["resetThresholds"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/thresholds/backtest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replay the Principal's recorded decisions of a time range under proposed thresholds */
        post: operations["backtestThresholds"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/thresholds/shadow": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The shadow thresholds evaluated next to every decision without effect */
        get: operations["getShadowThresholds"];
        /** Set shadow thresholds (a patch; null removes a field from the shadow set) */
        put: operations["updateShadowThresholds"];
        post?: never;
        /** Stop evaluating shadow thresholds */
        delete: operations["deleteShadowThresholds"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/thresholds/shadow/report": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where the shadow decisions of a time range differ from the real ones */
        get: operations["getShadowReport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorizations/{authorization_id}/capture": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Capture a hold (all of it, or `amount` of it and release the rest)
         * @description Also open to an agent key, for its own agent only; another agent (named, or owning the resource) is 403 forbidden.
         */
        post: operations["captureAuthorization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorizations/{authorization_id}/release": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Release a hold: its whole amount goes back to the budget
         * @description Also open to an agent key, for its own agent only; another agent (named, or owning the resource) is 403 forbidden.
         */
        post: operations["releaseAuthorization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorizations/{authorization_id}/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Refund a captured authorization (all that is left, or `amount`) */
        post: operations["refundAuthorization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{principal_id}/timezone": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The Principal's time zone (calendar windows of the mandate caps) */
        get: operations["getPrincipalTimezone"];
        /** Set the Principal's IANA time zone (default UTC) */
        put: operations["setPrincipalTimezone"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{principal_id}/step-up-policy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who clears a STEP_UP of the Principal agents: the agent (default) or the Principal */
        get: operations["getStepUpPolicy"];
        /** Set who clears a STEP_UP: agent (re-send with step_up_confirmed) or principal (confirm first) */
        put: operations["setStepUpPolicy"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/step-ups/{step_up_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where a step-up stands (PENDING, CONFIRMED, USED, EXPIRED)
         * @description Also open to an agent key, for its own agent only; another agent (named, or owning the resource) is 403 forbidden.
         */
        get: operations["getStepUp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/step-ups/{step_up_id}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Confirm a step-up: with the Principal credential, or with the one-time code e-mailed to the Principal */
        post: operations["confirmStepUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{principal_id}/budget": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The Principal's budget for all of its agents and its usage in the current window */
        get: operations["getPrincipalBudget"];
        /** Set the Principal's budget for all of its agents (per day, week, month or year) */
        put: operations["setPrincipalBudget"];
        post?: never;
        /** Remove the Principal's budget (its agents are then bound by their mandates only) */
        delete: operations["deletePrincipalBudget"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{principal_id}/ap2-issuer-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The JWKS of a Principal's AP2 mandate issuers, with the retired kids */
        get: operations["getAp2IssuerKeys"];
        /** Register the JWKS that signs a Principal's AP2 open Payment Mandates (replaces the set) */
        put: operations["putAp2IssuerKeys"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agent_id}/ap2-mandates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import an AP2 open Payment Mandate (SD-JWT VC) as a mandate of one of the caller’s agents */
        post: operations["importAp2Mandate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/authorize/ap2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Present an AP2 closed Payment Mandate: verified, decided as /authorize, consumed once
         * @description Also open to an agent key, for its own agent only; another agent (named, or owning the resource) is 403 forbidden.
         */
        post: operations["authorizeAp2"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ap2-mandates/{hash}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The status of an imported open or a presented closed Payment Mandate, by its hash */
        get: operations["getAp2MandateStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/ap2-mandates/{hash}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** For merchants and credential providers holding a Payment Mandate: its status by hash, signed */
        get: operations["getAp2MandatePublicStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/mandates/{mandate_id}/budget-statement": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A signed statement of what remains of a mandate, now (verifiable offline against the JWKS)
         * @description Also open to an agent key, for its own agent only; another agent (named, or owning the resource) is 403 forbidden.
         */
        get: operations["getBudgetStatement"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{principal_id}/confirmation-channel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The e-mail address the step-up confirmation link and code go to */
        get: operations["getConfirmationChannel"];
        /** Set the e-mail address the step-up confirmation link and code go to (the Principal's own credential) */
        put: operations["setConfirmationChannel"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/onboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a Principal, its first Agent and a Mandate atomically (202 when verification is pending) */
        post: operations["onboard"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Register a Principal and enroll it in Programs (202 when verification is pending) */
        post: operations["createPrincipal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{principal_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The calling Principal's own record */
        get: operations["getPrincipal"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{principal_id}/programs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enroll a Principal in a Program (idempotent) */
        post: operations["enrollPrincipalInProgram"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{principal_id}/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A Principal's agents */
        get: operations["listPrincipalAgents"];
        put?: never;
        /** Register an Agent under a Principal */
        post: operations["createPrincipalAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agent_id}/mandates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Grant a Mandate to an Agent */
        post: operations["createAgentMandate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{principal_id}/sandbox-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a sandbox API key for a Principal (sandbox Client key only) */
        post: operations["createSandboxKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The webhook event catalog with a sample payload per type */
        get: operations["listWebhookEventTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the Principal's webhooks, oldest first, with a cursor */
        get: operations["listWebhooks"];
        put?: never;
        /** Register a webhook (the signing secret is returned once) */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one webhook */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /** Delete a webhook (pending deliveries are dropped) */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /** Update a webhook; active: true re-enables it and resets the failure counter */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/api/v1/webhooks/{webhook_id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a signed sample event (test: true) to an active webhook */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A webhook's recent deliveries, newest first, with their attempts */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhook_id}/deliveries/{event_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deliver an event again (e.g. one that ran out of retries), with a fresh retry budget */
        post: operations["redeliverWebhookEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhook_id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the signing secret; deliveries carry both signatures during the grace period */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{webhook_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deliver again one event, or the failed deliveries of a time range (bounded per call) */
        post: operations["redeliverWebhookEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description An agent key's credential (never the key itself). Its scope is always `agent`. */
        AgentCredential: {
            id: string;
            client_id: string;
            principal_id: string;
            agent_id: string;
            /** @enum {string} */
            environment: "live" | "sandbox";
            /** @enum {string} */
            scopes: "agent";
            ip_allowlist: string[];
            expires_at: components["schemas"]["common.timestamp"] | null;
            /** @enum {string} */
            status: "active" | "revoked";
            created_at: components["schemas"]["common.timestamp"];
            previous_key_expires_at?: components["schemas"]["common.timestamp"];
            revoked_at?: components["schemas"]["common.timestamp"];
        };
        /** @description An agent key, shown once: store it now, it cannot be recovered. */
        AgentKeyCreated: {
            credential: components["schemas"]["AgentCredential"];
            api_key: string;
        };
        /** @description An API key bound to one agent; its environment is the caller's. */
        AgentKeyCreateRequest: {
            /** @description IPv4/IPv6 addresses or CIDRs; empty means any origin */
            ip_allowlist?: string[];
            /** @description When the key stops authenticating; null or absent for never */
            expires_at?: components["schemas"]["common.timestamp"] | null;
        };
        /** @description An agent's keys, newest first, active and revoked. */
        AgentKeyList: {
            agent_id: string;
            keys: components["schemas"]["AgentCredential"][];
        };
        /** @description The revoked agent key's credential. */
        AgentKeyRevoked: {
            credential: components["schemas"]["AgentCredential"];
        };
        /** @description POST /api/v1/authorize/ap2: a closed Payment Mandate presented after the open one it is bound to (the AP2 chain: open~~closed). The amount, currency and payee are the closed mandate's; the rest is as for POST /api/v1/authorize. */
        Ap2AuthorizeRequest: {
            agent_id: string;
            payment_mandate: string;
            intent_context: {
                intent_type?: string;
                task_reference: string;
                reasoning_summary?: string;
                confidence?: number;
            };
            merchant_name?: string;
            mcc?: components["schemas"]["common.mcc"];
            country?: components["schemas"]["common.country"];
            session_id?: string;
            /**
             * @description true when presenting again, after the human confirmed it, a closed mandate that was answered STEP_UP (a STEP_UP does not consume it)
             * @default false
             */
            step_up_confirmed?: boolean;
        };
        /** @description The POST /api/v1/authorize answer for the presented mandate, with `ap2`: the signed AP2 payment receipt (a compact JWS verifiable with GET /.well-known/jwks.json; its claims carry `environment`, and its `iss` is agent-spending-authorization in live, agent-spending-authorization/sandbox in the sandbox; `amount` has the currency's minor units, `payment_amount` is AP2's {currency, amount in minor units}), the hashes and whether the closed mandate was consumed (only an APPROVE consumes it). */
        Ap2AuthorizeResponse: {
            /** @enum {string} */
            decision: "APPROVE" | "DECLINE" | "STEP_UP";
            reason_codes: string[];
            authorization_id: string | null;
            ap2: {
                receipt: string;
                closed_mandate_hash: string;
                open_mandate_hash: string;
                transaction_id: string;
                consumed: boolean;
                consumed_at: string | null;
            };
        };
        /** @description The issuer keys of a Principal's AP2 mandates: the ACTIVE ones as a JWKS, and the retired kids. */
        Ap2IssuerKeys: {
            principal_id: string;
            keys: Record<string, unknown>[];
            retired: {
                kid: string;
                retired_at: string | null;
            }[];
        };
        /** @description PUT /api/v1/principals/{principal_id}/ap2-issuer-keys: the public keys (a JWKS) that may sign the Principal's AP2 open Payment Mandates. Replaces the set: a kid left out is retired (no new import verifies with it; mandates imported before stay). Rotate by publishing the new key beside the old one, then the new one alone. */
        Ap2IssuerKeysRequest: {
            keys: {
                /** @enum {string} */
                kty: "EC" | "OKP" | "RSA";
                kid: string;
                crv?: string;
                x?: string;
                y?: string;
                n?: string;
                e?: string;
                /** @enum {string} */
                alg?: "ES256" | "ES384" | "EdDSA" | "RS256";
                use?: string;
            }[];
        };
        /** @description POST /api/v1/agents/{agent_id}/ap2-mandates: an AP2 open Payment Mandate (vct mandate.payment.open.1), the SD-JWT compact serialisation with its disclosures (issuer-signed JWT~disclosure~...~). */
        Ap2MandateImportRequest: {
            credential: string;
        };
        /** @description GET /api/v1/ap2-mandates/{hash}: an imported open Payment Mandate (kind open) or a presented closed one (kind closed: consumed, by which authorization, when). */
        Ap2MandateStatus: {
            /** @enum {string} */
            kind: "open" | "closed";
            hash: string;
            vct: string;
            mandate_id: string;
            agent_id: string;
            /** @enum {string} */
            status: "ACTIVE" | "EXPIRED" | "REVOKED" | "PENDING" | "CONSUMED";
            imported_at?: string;
            valid_until?: string;
            consumed_presentations?: number;
            open_mandate_hash?: string;
            transaction_id?: string;
            consumed?: boolean;
            authorization_id?: string | null;
            consumed_at?: string | null;
            amount?: number;
            currency?: string;
            payee_id?: string;
        };
        /** @description GET /api/v1/ap2-mandates/{hash}/status (no credential): for a merchant or credential provider holding the token, whether an open Payment Mandate is in force, or whether a closed one was consumed, by which authorization and when; `statement` signs the same claims (EdDSA, verify with GET /.well-known/jwks.json; its `iss` is agent-spending-authorization/sandbox for a sandbox mandate). Bounded per client address (AP2_STATUS_REQUESTS_PER_SECOND, AP2_STATUS_BURST_REQUESTS): beyond it 429 rate_limited with Retry-After. */
        Ap2PublicStatus: {
            /** @enum {string} */
            kind: "open" | "closed";
            hash: string;
            vct: string;
            /** @enum {string} */
            environment: "live" | "sandbox";
            /** @enum {string} */
            status: "ACTIVE" | "EXPIRED" | "REVOKED" | "PENDING" | "CONSUMED";
            valid_until?: string;
            consumed?: boolean;
            authorization_id?: string | null;
            consumed_at?: string | null;
            transaction_id?: string;
            statement: string;
        };
        /** @description An immutable audit log entry (SPEC.md Authorization); also the data of the authorization.decided event. */
        AuthorizationLogEntry: {
            id: string;
            agent_id: string;
            mandate_id: string | null;
            amount: number;
            currency: string;
            mcc: string | null;
            merchant_id: string | null;
            /** @description ISO 3166-1 alpha-3 */
            country: string | null;
            /** @enum {string} */
            decision: "APPROVE" | "DECLINE" | "STEP_UP";
            /**
             * @description GET /authorize/log/{id} only: the decision under the Principal's shadow thresholds at the time (PUT /api/v1/thresholds/shadow), which had no effect; null when it had none
             * @enum {string|null}
             */
            shadow_decision?: "APPROVE" | "DECLINE" | "STEP_UP" | null;
            /** @description GET /authorize/log/{id} only: the gates of shadow_decision (null without a shadow decision) */
            shadow_gates_fired?: string[] | null;
            /** @description GET /authorize/log/{id} only: the version of the shadow thresholds (thr_ + FNV-1a of the merged set) */
            shadow_thresholds_version?: string | null;
            reason_codes: string[];
            kya_score: number | null;
            trust_level: string | null;
            processing_time_ms: number;
            created_at: components["schemas"]["common.timestamp"];
            /** @enum {string} */
            capture_method: "automatic" | "manual";
            /**
             * @description APPROVE only (null for DECLINE and STEP_UP): automatic approvals are CAPTURED; a manual one (a hold) is HELD, then CAPTURED, RELEASED or EXPIRED; VOIDED when it was recorded after the service had answered it with the safe DECLINE (authorization.voided). In the authorization.decided event: the status at decision time.
             * @enum {string|null}
             */
            status: "HELD" | "CAPTURED" | "RELEASED" | "EXPIRED" | "VOIDED" | null;
            /** @description GET /authorize/log/{id} only: what decided it, to reproduce the decision. thresholds_version (the thresholds in force), gates_fired, features (the inputs the risk gates read: request counts in their windows, amount to median, robust z, amount to the per-transaction limit, country-jump score, agent trust factor, MCC group bits; null when the pipeline stopped before risk scoring) and scores (risk_score and its signals, trust_score and its dimensions, intent_anomaly_score and its signals). replay: what the thresholds a backtest or a shadow set may change act on (risk_score, the STEP_UP findings velocity, outlier and country_jump, trust_score, intent_anomaly_score, per_transaction_limit, confirmed), or {fixed: true} when a gate no such threshold acts on decided. Null for decisions recorded before it was kept and for safe decisions. */
            explanation?: Record<string, unknown> | null;
        };
        /** @description A page of an agent's authorization log, newest first. Pass next_cursor as cursor for the next page; null on the last page. */
        AuthorizationLogPage: {
            items: {
                id: string;
                /** @enum {string} */
                decision: "APPROVE" | "DECLINE" | "STEP_UP";
                amount: number;
                currency: string;
                created_at: components["schemas"]["common.timestamp"];
            }[];
            next_cursor: string | null;
        };
        /** @description Body of POST /api/v1/authorize. One of agent_id or agent_did is required. intent_context takes intent_type and task_reference, or the alternative names task (for task_reference) and reasoning (for reasoning_summary). Cross-field rules checked by the handler (422 validation_error naming the field): one of agent_id/agent_did; intent_type and task_reference (or task); crypto when rail is CRYPTO; amount > 0 with at most the currency's ISO 4217 minor units. The same idempotency_key with a different transaction is 422 idempotency_key_reuse; a replay carries the header Idempotent-Replayed: true. */
        AuthorizeRequest: {
            agent_id?: string;
            agent_did?: string;
            amount: components["schemas"]["common.amount"];
            /** @default USD */
            currency?: components["schemas"]["common.currency"];
            merchant_name?: string;
            merchant_id?: string;
            merchant?: string;
            mcc?: components["schemas"]["common.mcc"];
            country?: components["schemas"]["common.country"];
            intent_context: {
                intent_type?: string;
                task_reference?: string;
                task?: string;
                reasoning_summary?: string;
                reasoning?: string;
                confidence?: number;
                alternatives_considered?: unknown[];
            };
            session_id?: string;
            /**
             * @default CARD
             * @enum {string}
             */
            rail?: "CARD" | "CRYPTO";
            crypto?: {
                chain?: string;
                asset?: string;
                counterparty?: string;
            };
            idempotency_key?: string;
            /**
             * @description true when re-sending a STEP_UP request after the human confirmed it. Under the Principal's step-up policy principal it clears only a step-up confirmed through the Principal: on the confirmation page, with the e-mailed code, or with POST /api/v1/step-ups/{step_up_id}/confirm (else the answer stays STEP_UP, reason step_up_not_confirmed; a step-up the person declined answers DECLINE, reason step_up_declined).
             * @default false
             */
            step_up_confirmed?: boolean;
            /**
             * @description automatic: an APPROVE is captured at once. manual: an APPROVE is a hold (status HELD) that counts against every cap until it is captured (POST /authorizations/{id}/capture), released or expires (docs/holds.md).
             * @default automatic
             * @enum {string}
             */
            capture_method?: "automatic" | "manual";
        };
        /** @description Answer of POST /api/v1/authorize (always 200). A decision that could not be recorded is a DECLINE with reason code system_unavailable and authorization_id null. */
        AuthorizeResponse: {
            authorization_id: string | null;
            /** @enum {string} */
            decision: "APPROVE" | "DECLINE" | "STEP_UP";
            reason_codes: string[];
            reason_detail: string;
            agent_id: string | null;
            mandate_id: string | null;
            amount: number | null;
            currency: string;
            kya_score: number | null;
            trust_score: number | null;
            trust_level: string | null;
            risk_score: number | null;
            risk_assessment: {
                score: number | null;
                reason_codes: string[];
                condition_code: string | null;
                velocity_indicator: boolean;
                highest_severity: string | null;
            };
            gates_fired: string[];
            daily_amount_used: number | null;
            daily_count_used: number | null;
            intent_context_provided: boolean;
            intent_anomaly_score: number | null;
            intent_anomaly_triggered: boolean;
            cognitive_limit_active: boolean;
            cognitive_limit_multiplier: number | null;
            effective_limit: number | null;
            recommendations: string[];
            /** @enum {string} */
            capture_method: "automatic" | "manual";
            /**
             * @description APPROVE: HELD for capture_method manual (a hold), CAPTURED for automatic. null for DECLINE and STEP_UP.
             * @enum {string|null}
             */
            status: "HELD" | "CAPTURED" | null;
            /** @description A hold (status HELD): when it expires unless captured or released. null otherwise. */
            hold_expires_at: string | null;
            /** @description Under the Principal's step-up policy principal (docs/step-up-confirmation.md): on a STEP_UP the step-up to confirm with POST /api/v1/step-ups/{step_up_id}/confirm (the same one while it awaits the Principal), on an APPROVE the step-up whose confirmation it used. null otherwise. */
            step_up_id?: string | null;
            processing_time_ms: number;
            timestamp: components["schemas"]["common.timestamp"];
            /** @description Signed decision receipt: a compact JWS (alg EdDSA, typ asas-receipt+jwt, kid of a key in /.well-known/jwks.json) whose payload is {authorization_id, agent_id, mandate_id, amount (decimal text with the currency's minor units), currency, merchant (merchant_id, else merchant_name), decision, iat}. The same on an idempotent replay. Null only on the system_unavailable safe decline (nothing was recorded); absent on replays of decisions recorded before receipts existed. */
            receipt?: string | null;
        };
        /** @description GET /api/v1/mandates/{mandate_id}/budget-statement: what remains of the mandate now, per cap window and in occurrences, as a compact JWS (EdDSA, the receipt key; verify with GET /.well-known/jwks.json) and its claims in clear. It names no purchase and no merchant. Amounts are decimal strings with the currency's ISO 4217 minor units ("60.00" USD, "200" JPY). `environment` says whose data it states; the JWS `iss` is agent-spending-authorization in live and agent-spending-authorization/sandbox in the sandbox (both sign with the same keys): a verifier checks both. */
        BudgetStatement: {
            statement: string;
            claims: {
                mandate_id: string;
                mandate_hash: string;
                credential_hash?: string | null;
                status?: string;
                /** @enum {string} */
                environment: "live" | "sandbox";
                currency: string;
                as_of: string;
                valid_until?: string;
                max_amount_per_transaction?: string;
                windows: Record<string, unknown>;
                occurrences: Record<string, unknown>;
            };
        };
        /** @description Decimal amount without minor units, as a string or a number, greater than 0, with at most the currency's ISO 4217 minor units as written (USD 2, JPY 0, BHD 3). A JSON number is read from its source text, exponent notation included (1E2 is 100; 1e-7 USD is refused). */
        "common.amount": string | number;
        /** @description ISO 3166-1 alpha-2 or alpha-3 */
        "common.country": string;
        /** @description ISO 4217 code */
        "common.currency": string;
        "common.error": {
            error: string;
            message: string;
            status: number;
            request_id: string;
            details?: {
                field: string;
                message: string;
            }[];
            /** @description Every field error of the request at once (at most 50), each with a stable machine code (required, unknown_field, type, format, pattern, too_short, too_long, enum, minimum, maximum, invalid_amount, ...) and a message for people. Present whenever details is, in the same order. */
            errors?: {
                /** @description Dotted path of the field, e.g. intent_context.task_reference; (body) for the body itself. */
                field: string;
                code: string;
                message: string;
            }[];
        };
        /** @description When the mandate may pay: from not_before to not_after (both inclusive; either may be left out) and, optionally, only on some days of the week in the Principal's time zone. */
        "common.executionWindow": {
            not_before?: components["schemas"]["common.timestamp"];
            not_after?: components["schemas"]["common.timestamp"];
            /** @description local days (00:00 to 24:00 in the Principal's time zone) on which it may pay */
            days_of_week?: ("MON" | "TUE" | "WED" | "THU" | "FRI" | "SAT" | "SUN")[];
        };
        "common.mcc": string;
        /** @description Arbitrary key/value pairs, stored and returned as given. */
        "common.metadata": Record<string, unknown>;
        /** @description merchant_id values the mandate may pay (the request's merchant_id, compared exactly) */
        "common.payees": string[];
        /** @description Recurrence (AP2 payment.agent_recurrence): at most one approval (holds included) per calendar period of the frequency in the Principal's time zone (ON_DEMAND: no period), and at most max_occurrences over the mandate's life. The budget across occurrences is max_total_amount. docs/mandate-lifecycle.md "Terms" gives the edges. */
        "common.recurrence": {
            /** @enum {string} */
            frequency: "ON_DEMAND" | "DAILY" | "WEEKLY" | "BIWEEKLY" | "MONTHLY" | "QUARTERLY" | "ANNUALLY";
            max_occurrences?: number;
        };
        /** Format: date-time */
        "common.timestamp": string;
        ErrorEnvelope: components["schemas"]["common.error"];
        /** @description Answer of POST /api/v1/authorize/explain (always 200): the decision POST /api/v1/authorize would give now for the same body. To the Principal's full credential (no scopes), every field of the /authorize answer and why (disclosure "full"); to a narrower credential, such as an agent's authorize key, only the verdict and its reason codes (disclosure "verdict"): no score, threshold, margin, cap or limit. Nothing is recorded, signed, emitted or counted. */
        ExplainResponse: {
            /** @description Always null: a dry run creates no authorization. */
            authorization_id: null;
            /** @enum {string} */
            decision: "APPROVE" | "DECLINE" | "STEP_UP";
            reason_codes: string[];
            reason_detail?: string;
            agent_id: string | null;
            mandate_id?: string | null;
            amount: number | null;
            currency: string;
            kya_score?: number | null;
            trust_score?: number | null;
            trust_level?: string | null;
            risk_score?: number | null;
            risk_assessment?: {
                score: number | null;
                reason_codes: string[];
                condition_code: string | null;
                velocity_indicator: boolean;
                highest_severity: string | null;
            };
            gates_fired?: string[];
            daily_amount_used?: number | null;
            daily_count_used?: number | null;
            intent_context_provided?: boolean;
            intent_anomaly_score?: number | null;
            intent_anomaly_triggered?: boolean;
            cognitive_limit_active?: boolean;
            cognitive_limit_multiplier?: number | null;
            effective_limit?: number | null;
            recommendations?: string[];
            /** @enum {string} */
            capture_method?: "automatic" | "manual";
            /**
             * @description APPROVE: HELD for capture_method manual (a hold), CAPTURED for automatic. null for DECLINE and STEP_UP.
             * @enum {string|null}
             */
            status?: "HELD" | "CAPTURED" | null;
            /** @description A hold (status HELD): when it expires unless captured or released. null otherwise. */
            hold_expires_at?: string | null;
            processing_time_ms: number;
            timestamp: components["schemas"]["common.timestamp"];
            /** @description Always null: a dry run is not signed (nothing was decided or recorded). */
            receipt?: null;
            /** @constant */
            dry_run: true;
            /** @description Every check of the gates, in pipeline order: the score it read, the threshold it compares with and the margin between them. Empty on the system_unavailable safe decline. */
            gates?: {
                /** @description The gate of gates_fired the check reports to. */
                gate: string;
                /** @description The check within the gate: a threshold name (risk_score_hard_decline, cts_red_threshold, ...), a mandate field (max_amount_per_transaction, max_daily_amount, ...), effective_limit, or a rule without a number (agent_status, session, mandate_selection, merchant_category, merchant_country, crypto). */
                check: string;
                /** @description The pipeline reached the check: it stops at the first DECLINE of an earlier stage (a later stage's score is then shown as not evaluated). */
                evaluated: boolean;
                /** @description What the check read (amounts in major units, counts including this request); null for a rule without a number. */
                score: number | null;
                threshold: number | null;
                /** @description Distance from the score to the threshold on the passing side: positive passes; the check fires when the margin is below 0 (fires_when above or below) or at most 0 (at_or_above). */
                margin: number | null;
                /** @enum {string|null} */
                fires_when: "above" | "at_or_above" | "below" | null;
                /** @description The check's condition held (a confirmed STEP_UP may still clear its reason code). */
                fired: boolean;
            }[];
            /** @description The limits of the mandate the request is decided under (null when no mandate was selected). */
            limits?: {
                mandate_id: string;
                currency: string;
                max_amount_per_transaction: number;
                crypto_max_transfer: number | null;
                /** @description max_amount_per_transaction under the trust zone's cognitive_limit_multiplier. */
                effective_limit: number | null;
                cognitive_limit_multiplier: number | null;
            } | null;
            /** @description The richer terms of the mandate (null: none; docs/mandate-lifecycle.md "Terms"): minimum amount, payees, the merchant lock and the payee it holds, the execution window, and the recurrence with its occurrences and those of the current period before this request. */
            terms?: {
                min_amount_per_transaction?: number | null;
                allowed_payees?: string[] | null;
                merchant_lock?: boolean;
                locked_payee?: string | null;
                execution_window?: Record<string, unknown> | null;
                recurrence?: Record<string, unknown> | null;
            } | null;
            /** @description Each cap the mandate has (max_daily_amount, max_weekly_amount, max_monthly_amount, max_yearly_amount, max_total_amount, max_daily_count, max_monthly_count) in its current window of the Principal's time zone: limit, used (approved, holds included, before this request), what remains, and what would remain after this request is decided as shown. */
            caps?: {
                [key: string]: {
                    /** @enum {string} */
                    window: "day" | "week" | "month" | "year" | "total";
                    window_start: string | null;
                    limit: number;
                    used: number;
                    remaining: number;
                    remaining_after: number;
                };
            };
            /** @description Event types the decision would emit (none is emitted by the dry run). */
            would_emit?: string[];
            /** @description Version of the thresholds the gates used (as in the audit log explanation). */
            thresholds_version?: string | null;
            /**
             * @description full: every field below (the Principal's full credential); verdict: only authorization_id (null), decision, reason_codes, agent_id, amount, currency, dry_run, processing_time_ms and timestamp (a narrower credential).
             * @enum {string}
             */
            disclosure: "full" | "verdict";
        };
        /** @description POST /api/v1/authorizations/{authorization_id}/capture. Without amount the whole hold is captured; with it, that amount (at most the amount held) is captured and the rest is released to the budget. The body may be empty. */
        HoldCaptureRequest: {
            /** @description at most the amount held; default: all of it */
            amount?: components["schemas"]["common.amount"];
        };
        HoldCaptureResponse: {
            authorization_id: string;
            /** @enum {string} */
            status: "CAPTURED";
            captured_amount: number;
            /** @description the rest of the hold, given back to the budget */
            released_amount: number;
        };
        /** @description POST /api/v1/authorizations/{authorization_id}/refund of a captured APPROVE (a captured hold or an automatic approval). Without amount, everything captured and not yet refunded is refunded. The body may be empty. */
        HoldRefundRequest: {
            /** @description at most the amount captured and not yet refunded; default: all of it */
            amount?: components["schemas"]["common.amount"];
        };
        HoldRefundResponse: {
            authorization_id: string;
            refund_id: string;
            /**
             * @description the authorization stays CAPTURED
             * @enum {string}
             */
            status: "CAPTURED";
            /** @description this refund */
            refund_amount: number;
            /** @description all refunds of the authorization so far */
            refunded_amount: number;
            captured_amount: number;
        };
        /** @description POST /api/v1/authorizations/{authorization_id}/release: no fields; the body may be empty. */
        HoldReleaseRequest: Record<string, unknown>;
        HoldReleaseResponse: {
            authorization_id: string;
            /** @enum {string} */
            status: "RELEASED";
            /** @description the whole hold, given back to the budget */
            released_amount: number;
        };
        Jwks: {
            keys: {
                /** @enum {string} */
                kty: "OKP";
                /** @enum {string} */
                crv: "Ed25519";
                x: string;
                kid: string;
                use?: string;
                alg?: string;
            }[];
        };
        /** @description RFC 6749 section 4.4 client_credentials grant, as JSON or application/x-www-form-urlencoded. A missing or mismatched client_id or client_secret is 401 unauthorized (no hint which part was wrong). */
        OAuthTokenRequest: {
            /** @description client_credentials */
            grant_type: string;
            /** @description The Principal id (prn_...) */
            client_id?: unknown;
            /** @description The Principal's API key */
            client_secret?: unknown;
            /** @description Ignored: the token carries the key's own scope */
            scope?: unknown;
        };
        OAuthTokenResponse: {
            /** @description JWT signed EdDSA (Ed25519); verify with /.well-known/jwks.json */
            access_token: string;
            /** @enum {string} */
            token_type: "Bearer";
            /** @description Seconds until the token expires */
            expires_in: number;
            /** @description Comma-separated scope list frozen into the token; * is full access */
            scope: string;
        };
        /** @description An Agent record (onboarding plane). */
        OnboardAgent: {
            id: string;
            principal_id: string;
            client_id: string;
            program_id: string;
            did: string;
            did_method: string;
            name: string;
            /** @enum {string} */
            status: "ACTIVE" | "SUSPENDED" | "REVOKED";
            /** @enum {string} */
            trust_level: "REGISTERED" | "VERIFIED" | "TRUSTED";
            kya_score: number | null;
            capabilities: string[];
            external_agent_ref: string | null;
            metadata: Record<string, unknown> | null;
            created_at: components["schemas"]["common.timestamp"];
        };
        /** @description An Agent under a Principal (POST /principals/{principal_id}/agents; the agent object of POST /onboard). */
        OnboardAgentCreateRequest: {
            name: string;
            /** @description Required only when the Principal is in 0 or more than 1 Programs; otherwise inherited. */
            program_id?: string;
            /**
             * @description Free-form capability names on the onboarding plane.
             * @default [
             *       "PURCHASE"
             *     ]
             */
            capabilities?: string[];
            /** @description W3C DID of the agent; a did:key (Ed25519) is generated when absent. */
            did?: string;
            external_agent_ref?: string;
            metadata?: components["schemas"]["common.metadata"];
        };
        OnboardAgentList: {
            principal_id: string;
            agents: components["schemas"]["OnboardAgentSummary"][];
            count: number;
        };
        OnboardAgentSummary: {
            id: string;
            name: string;
            /** @enum {string} */
            status: "ACTIVE" | "SUSPENDED" | "REVOKED";
            /** @enum {string} */
            trust_level: "REGISTERED" | "VERIFIED" | "TRUSTED";
            kya_score: number | null;
        };
        /** @description A Mandate (onboarding-plane shape). Amounts are JSON numbers. */
        OnboardMandate: {
            id: string;
            agent_id: string;
            program_id: string | null;
            /** @enum {string} */
            status: "ACTIVE" | "EXPIRED" | "REVOKED";
            rails: ("card" | "crypto")[];
            limits: {
                max_amount_per_transaction: number;
                max_daily_amount: number;
                currency: string;
            };
            allowed_mccs: string[] | null;
            allowed_countries: string[] | null;
            crypto: null | {
                chains: string[];
                assets: string[];
                max_transfer: number | null;
            };
            mandate_hash: string;
            valid_from?: components["schemas"]["common.timestamp"];
            valid_until: components["schemas"]["common.timestamp"];
            created_at: components["schemas"]["common.timestamp"];
            allowed_payees?: string[] | null;
            merchant_lock?: boolean;
            execution_window?: components["schemas"]["common.executionWindow"] | null;
            recurrence?: components["schemas"]["common.recurrence"] | null;
        };
        /** @description A Mandate for an Agent (POST /agents/{agent_id}/mandates; the mandate object of POST /onboard). */
        OnboardMandateCreateRequest: {
            rails: ("card" | "crypto")[];
            limits: {
                max_amount_per_transaction: components["schemas"]["common.amount"];
                max_daily_amount: components["schemas"]["common.amount"];
                currency: components["schemas"]["common.currency"];
                /** @description per calendar week, Principal's time zone */
                max_weekly_amount?: components["schemas"]["common.amount"];
                /** @description per calendar year, Principal's time zone */
                max_yearly_amount?: components["schemas"]["common.amount"];
                /** @description over the mandate's whole life */
                max_total_amount?: components["schemas"]["common.amount"];
                max_daily_count?: number;
                max_monthly_count?: number;
                /** @description hold lifetime; default 604800 (7 days) */
                hold_expiry_seconds?: number;
                /** @description budget.threshold_reached at this share of a cap; default 0.8 */
                budget_alert_share?: number;
                /** @description smallest amount one transaction may have (at most max_amount_per_transaction) */
                min_amount_per_transaction?: components["schemas"]["common.amount"];
            };
            allowed_mccs?: components["schemas"]["common.mcc"][];
            /** @description ISO 3166-1 alpha-2 or alpha-3; stored and returned as alpha-3. */
            allowed_countries?: components["schemas"]["common.country"][];
            /** @description Required if and only if rails includes crypto. */
            crypto?: {
                chains: string[];
                assets: string[];
                max_transfer?: components["schemas"]["common.amount"];
            };
            valid_until?: components["schemas"]["common.timestamp"];
            allowed_payees?: components["schemas"]["common.payees"];
            /** @description true: the mandate pays only the merchant_id of its first approval (a merchant_id is then required) */
            merchant_lock?: boolean;
            execution_window?: components["schemas"]["common.executionWindow"];
            recurrence?: components["schemas"]["common.recurrence"];
        };
        /** @description A Principal, its first Agent and a Mandate, created atomically. */
        OnboardRequest: {
            principal: components["schemas"]["PrincipalCreateRequest"];
            agent: components["schemas"]["OnboardAgentCreateRequest"];
            mandate: components["schemas"]["OnboardMandateCreateRequest"];
        };
        OnboardResponse: {
            principal: components["schemas"]["Principal"];
            agent: components["schemas"]["OnboardAgent"];
            mandate: components["schemas"]["OnboardMandate"];
        };
        /** @description A Principal record (onboarding plane). */
        Principal: {
            id: string;
            client_id: string;
            /** @enum {string} */
            principal_kind: "personal" | "merchant";
            client_customer_ref: string | null;
            /** @enum {string} */
            verification_status: "VERIFIED" | "PENDING";
            /** @enum {string} */
            verification_mode: "client_attested" | "platform_provider";
            /** @enum {string} */
            verification_type?: "KYC" | "KYB";
            risk_tier: string;
            programs: string[];
            agents: components["schemas"]["OnboardAgentSummary"][];
            /** @description null when verified at once; the pending platform verification otherwise. */
            verification_session: null | {
                id: string;
                provider: string;
                /** @enum {string} */
                type: "KYC" | "KYB";
                /** @enum {string} */
                status: "pending";
                created_at: components["schemas"]["common.timestamp"];
                expires_at: components["schemas"]["common.timestamp"];
            };
            profile?: Record<string, unknown>;
            metadata?: Record<string, unknown> | null;
            created_at: components["schemas"]["common.timestamp"];
        };
        /** @description The Principal's budget for all of its agents together and where it stands in the current window (docs/principal-budget.md). */
        PrincipalBudget: {
            principal_id: string;
            /** @description the budget per window */
            amount: number;
            currency: string;
            /** @enum {string} */
            window: "day" | "week" | "month" | "year";
            alert_share: number;
            /**
             * Format: date-time
             * @description spend counts from here (a budget set mid-window counts from the moment it was set)
             */
            effective_from: string;
            /** @description The current window, shaped like a mandate's usage entry: used (captured and automatic approvals of every agent, credits taken off), held (open holds), remaining = limit - used - held (never below 0); escrowed: the part of remaining already handed to agents' slices and not spent yet (docs/principal-budget.md). */
            usage: {
                /** @enum {string} */
                window: "day" | "week" | "month" | "year";
                /** Format: date-time */
                window_start: string;
                limit: number;
                used: number;
                held: number;
                remaining: number;
                escrowed: number;
            };
        };
        /** @description PUT /api/v1/principals/{principal_id}/budget: one budget for all of the Principal's agents together, per calendar window of the Principal's time zone (docs/principal-budget.md). Changing the currency or the window starts the budget afresh from now; changing the amount or alert_share keeps what was spent. */
        PrincipalBudgetRequest: {
            /** @description The Principal of the path; optional, refused when it names another. */
            readonly principal_id?: string;
            /** @description the budget per window, with at most the currency's minor units */
            amount: components["schemas"]["common.amount"];
            /** @description spend in this currency counts in the budget (no conversion: other currencies do not) */
            currency: components["schemas"]["common.currency"];
            /**
             * @description calendar window in the Principal's time zone (week: from Monday)
             * @enum {string}
             */
            window: "day" | "week" | "month" | "year";
            /**
             * @description share of the budget at which principal_budget.threshold_reached is emitted
             * @default 0.8
             */
            alert_share?: number;
        };
        /** @description Where the person who confirms the Principal's step-ups is reached (docs/step-up-confirmation.md): when a STEP_UP opens a step-up under the step-up policy principal, the service e-mails this address a single-use link to the confirmation page and the one-time code. Set only with the Principal's own credential (full access or the principals scope; never a Client credential, an agent key or a token minted from one). */
        PrincipalConfirmationChannel: {
            principal_id: string;
            /**
             * Format: email
             * @description the confirmation address; null: none (a step-up is then confirmed only with the Principal credential)
             */
            email: string | null;
            /** @description when it was last set (null: never) */
            updated_at: components["schemas"]["common.timestamp"] | null;
            /** @description At most this many confirmation e-mails per rolling hour for the Principal; beyond it a step-up is not e-mailed (notification capped) and only the Principal credential confirms it. null: no cap (the default). */
            max_confirmations_per_hour: number | null;
            /** @description Notify-and-proceed for small amounts: a step-up of at most max_amount in currency is e-mailed as a notice and confirms itself (confirmed_via veto_window) veto_seconds after the e-mail went out, unless the person declined it on the page first. null: off (the default). */
            notify_and_proceed: {
                currency: string;
                max_amount: string;
                /** @description how long after the e-mail went out the person may decline before the step-up confirms itself (less than the step-up window to matter) */
                veto_seconds: number;
            } | null;
            /** @description the notification endpoint, if the Principal chose one instead of an address */
            notify_url: string | null;
            /** @description the endpoint's signing secret: only in the answer of the PUT that set a new notify_url, shown once */
            notify_secret?: string;
        };
        /** @description PUT /api/v1/principals/{principal_id}/confirmation-channel: the address the step-up confirmation e-mail goes to, or null to remove it. notify_url, max_confirmations_per_hour and notify_and_proceed left out are null (off). At most one of email and notify_url. */
        PrincipalConfirmationChannelRequest: {
            /** Format: email */
            email: string | null;
            /** @description At most this many confirmation e-mails per rolling hour for the Principal; beyond it a step-up is not e-mailed (notification capped) and only the Principal credential confirms it. null: no cap (the default). */
            max_confirmations_per_hour?: number | null;
            /** @description Notify-and-proceed for small amounts: a step-up of at most max_amount in currency is e-mailed as a notice and confirms itself (confirmed_via veto_window) veto_seconds after the e-mail went out, unless the person declined it on the page first. null: off (the default). */
            notify_and_proceed?: {
                currency: string;
                max_amount: string;
                /** @description how long after the e-mail went out the person may decline before the step-up confirms itself (less than the step-up window to matter) */
                veto_seconds: number;
            } | null;
            /** @description a notification endpoint instead of an e-mail address (at most one of the two): the service POSTs the link and the one-time code there as JSON, signed with the Standard Webhooks headers under the whsec_ secret this call answers once (a new secret whenever the URL changes). Under WEBHOOK_URL_POLICY=public: https on an allowed port, public addresses only. */
            notify_url?: string | null;
        };
        /** @description Registration of a Principal (POST /principals; the principal object of POST /onboard). */
        PrincipalCreateRequest: {
            /** @enum {string} */
            principal_kind: "personal" | "merchant";
            /** @description Programs to enroll the Principal in, all owned by the calling Client. */
            program_ids: string[];
            profile: {
                display_name: string;
                /** Format: email */
                email: string;
                /** @description E.164, e.g. +14155550123 */
                phone?: string;
                country?: components["schemas"]["common.country"];
            };
            verification: {
                /** @enum {string} */
                type: "KYC" | "KYB";
                /** @enum {string} */
                mode: "client_attested" | "platform_provider";
                /** @description Required when mode is client_attested. */
                attestation?: {
                    attested_by: string;
                    scope?: string;
                    statement?: string;
                    evidence_ref?: string;
                };
            };
            client_customer_ref?: string;
            step_up?: {
                /** @enum {string} */
                method?: "sms" | "email";
                /** @description E.164; needed for sms when profile.phone is absent */
                phone?: string;
            };
            metadata?: components["schemas"]["common.metadata"];
        };
        PrincipalPrograms: {
            principal_id: string;
            programs: string[];
        };
        /** @description Enroll a Principal in one more Program (idempotent). */
        PrincipalProgramsRequest: {
            program_id: string;
        };
        /** @description A Principal sandbox API key, shown once. */
        PrincipalSandboxKey: {
            principal_id: string;
            api_key: string;
            /** @enum {string} */
            env: "sandbox";
            message: string;
        };
        /** @description Who clears a STEP_UP of the Principal's agents (docs/step-up-confirmation.md). agent (default): re-sending the same request with step_up_confirmed: true. principal: a STEP_UP carries a step_up_id and is cleared only after POST /api/v1/step-ups/{step_up_id}/confirm, with a Principal credential that is not limited to the authorize scope, or by the person on the confirmation page (or with the one-time code) e-mailed to the address the Principal registered (PUT /api/v1/principals/{principal_id}/confirmation-channel). */
        PrincipalStepUpPolicy: {
            readonly principal_id?: string;
            /** @enum {string} */
            confirmation: "agent" | "principal";
        };
        /** @description The Principal's IANA time zone: the calendar day, week (Monday), month and year of its mandates' caps run in it. Default UTC. */
        PrincipalTimezone: {
            readonly principal_id?: string;
            /** @description e.g. Europe/Berlin, America/New_York, UTC */
            timezone: string;
        };
        /** @description An agent on the runtime plane. */
        RuntimeAgent: {
            id: string;
            principal_id: string;
            program_id: string | null;
            did: string;
            did_method: string;
            display_name: string;
            /** @enum {string} */
            status: "ACTIVE" | "SUSPENDED" | "REVOKED";
            /** @enum {string} */
            trust_level: "REGISTERED" | "VERIFIED" | "TRUSTED";
            kya_score: number | null;
            capabilities: string[];
            metadata: Record<string, unknown> | null;
            total_transactions: number;
            decline_rate: number;
            created_at: components["schemas"]["common.timestamp"];
        };
        /** @description POST /api/v1/agents. registration_proof is a compact JWS (alg EdDSA) made with the private key of public_key_jwk; see docs/runtime-plane.md. */
        RuntimeAgentCreateRequest: {
            display_name: string;
            capabilities: ("PURCHASE" | "SUBSCRIPTION" | "REFUND_REQUEST" | "BALANCE_INQUIRY" | "TRANSFER")[];
            /** @description W3C DID; a did:key is generated when absent */
            did?: string;
            /** @description Ed25519 public key as a JWK (kty OKP, crv Ed25519, x) */
            public_key_jwk?: {
                /** @constant */
                kty: "OKP";
                /** @constant */
                crv: "Ed25519";
                x: string;
            };
            registration_proof?: string;
            principal_id?: string;
            metadata?: components["schemas"]["common.metadata"];
        };
        RuntimeAgentList: {
            agents: components["schemas"]["RuntimeAgent"][];
            total: number;
            page: number;
            page_size: number;
        };
        RuntimeAgentMetrics: {
            agent_id: string;
            /** @enum {string} */
            trust_level: "REGISTERED" | "VERIFIED" | "TRUSTED";
            total_transactions: number;
            successful_transactions: number;
            declined_transactions: number;
            decline_rate: number;
            dispute_deflection_rate: number;
            trust_promotion_eligible: boolean;
            /** @enum {string|null} */
            next_trust_level: "VERIFIED" | "TRUSTED" | null;
            promotion_criteria: {
                [key: string]: {
                    required: number | boolean | string;
                    actual: number | boolean | string | null;
                    met: boolean;
                };
            };
        };
        RuntimeAgentStatusRequest: {
            /**
             * @description REVOKED is final
             * @enum {string}
             */
            status: "ACTIVE" | "SUSPENDED" | "REVOKED";
            reason: string;
        };
        RuntimeAgentStatusResponse: {
            id: string;
            /** @enum {string} */
            status: "ACTIVE" | "SUSPENDED" | "REVOKED";
            /** @enum {string} */
            trust_level: "REGISTERED" | "VERIFIED" | "TRUSTED";
            display_name: string;
        };
        /** @description A mandate on the runtime plane (flat). Amounts are JSON numbers. status is EXPIRED once valid_until has passed. */
        RuntimeMandate: {
            id: string;
            agent_id: string;
            principal_id: string;
            /** @enum {string} */
            status: "ACTIVE" | "EXPIRED" | "REVOKED";
            valid_from: components["schemas"]["common.timestamp"];
            valid_until: components["schemas"]["common.timestamp"];
            max_amount_per_transaction: number;
            currency: string;
            max_daily_amount: number | null;
            max_monthly_amount: number | null;
            allowed_mccs: string[] | null;
            blocked_mccs: string[] | null;
            allowed_countries: string[] | null;
            blocked_countries: string[] | null;
            allowed_chains: string[] | null;
            allowed_assets: string[] | null;
            allowed_counterparties: string[] | null;
            max_weekly_amount?: number | null;
            max_yearly_amount?: number | null;
            max_total_amount?: number | null;
            max_daily_count?: number | null;
            max_monthly_count?: number | null;
            /** @description null: 604800 (7 days) */
            hold_expiry_seconds?: number | null;
            /** @description null: 0.8 */
            budget_alert_share?: number | null;
            /** @description the last amendment or the revocation (null: never changed) */
            updated_at?: components["schemas"]["common.timestamp"] | null;
            revoked_at?: components["schemas"]["common.timestamp"] | null;
            revocation_reason?: string | null;
            /** @description GET /api/v1/mandates/{mandate_id} and the answers of PATCH and revoke: per cap the mandate has, used (captured and automatic approvals, credits taken off), held (open holds) and remaining, in the current calendar window of the Principal's time zone (docs/holds.md). */
            usage?: {
                [key: string]: {
                    /** @enum {string} */
                    window: "day" | "week" | "month" | "year" | "total";
                    window_start: string | null;
                    limit: number;
                    used: number;
                    held: number;
                    remaining: number;
                };
            };
            mandate_hash: string;
            created_at: components["schemas"]["common.timestamp"];
            min_amount_per_transaction?: number | null;
            allowed_payees?: string[] | null;
            merchant_lock?: boolean;
            execution_window?: components["schemas"]["common.executionWindow"] | null;
            recurrence?: components["schemas"]["common.recurrence"] | null;
            /** @description POST /api/v1/agents/{agent_id}/ap2-mandates: the imported AP2 open Payment Mandate (docs/ap2.md) */
            ap2?: {
                vct?: string;
                credential_hash?: string;
                issuer_kid?: string;
                cnf_jwk_thumbprint?: string;
                reference?: string | null;
                imported_at?: string;
            } | null;
        };
        /** @description POST /api/v1/mandates. Countries may be alpha-2 or alpha-3 and are stored as alpha-3. */
        RuntimeMandateCreateRequest: {
            agent_id: string;
            /** @description default: now */
            valid_from?: components["schemas"]["common.timestamp"];
            /** @description must be in the future */
            valid_until: components["schemas"]["common.timestamp"];
            /** @description greater than 0, at most 2 decimal places */
            max_amount_per_transaction: components["schemas"]["common.amount"];
            /** @default USD */
            currency?: components["schemas"]["common.currency"];
            /** @description greater than 0, at most 2 decimal places */
            max_daily_amount?: components["schemas"]["common.amount"];
            /** @description greater than 0, at most 2 decimal places */
            max_monthly_amount?: components["schemas"]["common.amount"];
            /** @description cap per calendar week (Monday 00:00 to Monday 00:00 in the Principal's time zone); holds count */
            max_weekly_amount?: components["schemas"]["common.amount"];
            /** @description cap per calendar year in the Principal's time zone; holds count */
            max_yearly_amount?: components["schemas"]["common.amount"];
            /** @description cap over the mandate's whole life; holds count, releases and refunds give back */
            max_total_amount?: components["schemas"]["common.amount"];
            /** @description APPROVEs (holds included) per calendar day in the Principal's time zone */
            max_daily_count?: number;
            /** @description APPROVEs (holds included) per calendar month in the Principal's time zone */
            max_monthly_count?: number;
            /** @description how long a hold (capture_method manual) lives before it expires; default 604800 (7 days) */
            hold_expiry_seconds?: number;
            /** @description share of each cap at which budget.threshold_reached is emitted; default 0.8 */
            budget_alert_share?: number;
            allowed_mccs?: components["schemas"]["common.mcc"][];
            blocked_mccs?: components["schemas"]["common.mcc"][];
            allowed_countries?: components["schemas"]["common.country"][];
            blocked_countries?: components["schemas"]["common.country"][];
            allowed_chains?: string[];
            allowed_assets?: string[];
            allowed_counterparties?: string[];
            /** @description smallest amount one transaction may have (greater than 0, at most max_amount_per_transaction) */
            min_amount_per_transaction?: components["schemas"]["common.amount"];
            allowed_payees?: components["schemas"]["common.payees"];
            /** @description true: the mandate pays only the merchant_id of its first approval (a merchant_id is then required) */
            merchant_lock?: boolean;
            execution_window?: components["schemas"]["common.executionWindow"];
            recurrence?: components["schemas"]["common.recurrence"];
        };
        RuntimeMandateList: {
            mandates: components["schemas"]["RuntimeMandate"][];
            total: number;
        };
        /** @description POST /api/v1/mandates/{mandate_id}/revoke. REVOKED is final. */
        RuntimeMandateRevokeRequest: {
            /** @description why, kept on the mandate (revocation_reason) and sent in mandate.revoked */
            reason: string;
        };
        /** @description PATCH /api/v1/mandates/{mandate_id}: the fields to amend, checked as at creation in the mandate's currency. A field left out stays as it is; null removes an optional limit or list (max_amount_per_transaction and valid_until cannot be removed). currency, valid_from, agent_id and the rails are not amendable: grant a new mandate. An amount below what is already used in the current window makes later decisions decline; nothing is clawed back. */
        RuntimeMandateUpdateRequest: {
            /** @description must be in the future and after valid_from */
            valid_until?: components["schemas"]["common.timestamp"];
            /** @description greater than 0, at most 2 decimal places */
            max_amount_per_transaction?: components["schemas"]["common.amount"];
            /** @description greater than 0, at most 2 decimal places */
            max_daily_amount?: components["schemas"]["common.amount"] | null;
            /** @description greater than 0, at most 2 decimal places */
            max_monthly_amount?: components["schemas"]["common.amount"] | null;
            /** @description cap per calendar week (Monday 00:00 to Monday 00:00 in the Principal's time zone); holds count */
            max_weekly_amount?: components["schemas"]["common.amount"] | null;
            /** @description cap per calendar year in the Principal's time zone; holds count */
            max_yearly_amount?: components["schemas"]["common.amount"] | null;
            /** @description cap over the mandate's whole life; holds count, releases and refunds give back */
            max_total_amount?: components["schemas"]["common.amount"] | null;
            /** @description APPROVEs (holds included) per calendar day in the Principal's time zone */
            max_daily_count?: number | null;
            /** @description APPROVEs (holds included) per calendar month in the Principal's time zone */
            max_monthly_count?: number | null;
            /** @description how long a new hold lives (holds already open keep their expiry); null: the default 604800 */
            hold_expiry_seconds?: number | null;
            /** @description share of each cap for budget.threshold_reached; null: the default 0.8 */
            budget_alert_share?: number | null;
            allowed_mccs?: components["schemas"]["common.mcc"][] | null;
            blocked_mccs?: components["schemas"]["common.mcc"][] | null;
            allowed_countries?: components["schemas"]["common.country"][] | null;
            blocked_countries?: components["schemas"]["common.country"][] | null;
            /** @description only on a mandate that covers the crypto rail */
            allowed_chains?: string[] | null;
            /** @description only on a mandate that covers the crypto rail */
            allowed_assets?: string[] | null;
            /** @description only on a mandate that covers the crypto rail */
            allowed_counterparties?: string[] | null;
            /** @description greater than 0, at most max_amount_per_transaction; null removes it */
            min_amount_per_transaction?: components["schemas"]["common.amount"] | null;
            /** @description replaces the list; null removes it */
            allowed_payees?: components["schemas"]["common.payees"] | null;
            /** @description false or null removes the lock */
            merchant_lock?: boolean | null;
            /** @description replaces the whole window; null removes it */
            execution_window?: components["schemas"]["common.executionWindow"] | null;
            /** @description replaces the recurrence; null removes it (occurrences already approved stay counted) */
            recurrence?: components["schemas"]["common.recurrence"] | null;
        };
        /** @description GET /api/v1/thresholds/shadow/report: the real decisions of a time range that had a shadow decision, compared with it (before: real, after: shadow). */
        ShadowReport: {
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            to: string;
            /** @description Decisions compared */
            evaluated: number;
            /** @description Decisions that would be (or were, in the shadow) another decision */
            changed: number;
            /** @description Decisions that stay the same with other gates fired */
            gates_changed: number;
            /** @description Decisions read without stored scores to compare (recorded before they were kept, or safe decisions of an outage) */
            not_replayable: number;
            /** @description Compared decisions of an agent that had an earlier changed decision (or the same decision with other gates) among those this call read: their stored scores came from agent state that the earlier change would have altered (windows, sessions, totals), so they are exact for the scores as recorded, not for the agent's altered history */
            after_change: number;
            /** @description Changed decisions by recorded -> other decision, most frequent first */
            transitions: {
                /** @enum {string} */
                from: "APPROVE" | "DECLINE" | "STEP_UP";
                /** @enum {string} */
                to: "APPROVE" | "DECLINE" | "STEP_UP";
                count: number;
                /** @description Up to 10 authorization ids, oldest first (GET /authorize/log/{id}) */
                sample_ids: string[];
            }[];
            /** @description Per gate: decisions it fired in as recorded (before) and in the other decision (after). The session_terminated gate that post-processing adds when a decision ends a session is not re-judged: it is left out of decisions decided again. */
            gates: {
                gate: string;
                before: number;
                after: number;
            }[];
            /** @description Decisions with a shadow decision read by this call */
            rows_read: number;
            /**
             * @description complete: the range is done; row_limit or time_budget: call again with next_cursor
             * @enum {string}
             */
            stopped: "complete" | "row_limit" | "time_budget";
            /** @description Send with the same from and to for the next decisions; null when the range is done. Counts are per call: add them up. */
            next_cursor: string | null;
        };
        /** @description PUT /api/v1/thresholds/shadow: any subset of the replayable thresholds (those that act on scores already computed); null removes a field from the shadow set, which then follows the live value. The shadow set is laid over the Principal's live overrides and must keep the cross-field order of PUT /thresholds. */
        ShadowThresholdsUpdateRequest: {
            /** @description risk_score at or above which the decision is STEP_UP; null removes it from the shadow set */
            authorize_step_up_threshold?: number | null;
            /** @description risk_score at or above which the decision is DECLINE; null removes it from the shadow set */
            risk_score_hard_decline?: number | null;
            /** @description CTS at or above which the zone is GREEN; null removes it from the shadow set */
            cts_green_threshold?: number | null;
            /** @description CTS at or above which the zone is AMBER; null removes it from the shadow set */
            cts_amber_threshold?: number | null;
            /** @description CTS at or above which the zone is RED (below: CRITICAL); null removes it from the shadow set */
            cts_red_threshold?: number | null;
            /** @description cognitive_limit_multiplier in the AMBER zone; null removes it from the shadow set */
            cognitive_multiplier_amber?: number | null;
            /** @description cognitive_limit_multiplier in the RED zone; null removes it from the shadow set */
            cognitive_multiplier_red?: number | null;
            /** @description intent_anomaly_score at or above which the intent_anomaly gate declines; null removes it from the shadow set */
            intent_anomaly_threshold?: number | null;
        };
        /** @description PUT /api/v1/thresholds/shadow: the shadow set in force from the next decision on, on every instance. */
        ShadowThresholdsUpdateResponse: {
            /** @constant */
            status: "updated";
            /** @description Replayable fields whose shadow value changed, sorted */
            fields_changed: string[];
            /** @description Whether decisions are evaluated under shadow thresholds (at least one field set) */
            active: boolean;
            /** @description The shadow fields set */
            overrides: {
                [key: string]: number;
            };
            /** @description The replayable thresholds shadow decisions are made under (live overrides with the shadow fields over them); null when not active */
            thresholds: {
                [key: string]: number;
            } | null;
            /** @description The replayable thresholds in force, for comparison */
            live_thresholds: {
                [key: string]: number;
            };
            /** @description Version of the shadow thresholds stored with each shadow decision (shadow_thresholds_version of the log entry) */
            thresholds_version: string | null;
        };
        /** @description GET /api/v1/thresholds/shadow. */
        ShadowThresholdsView: {
            /** @description Whether decisions are evaluated under shadow thresholds (at least one field set) */
            active: boolean;
            /** @description The shadow fields set */
            overrides: {
                [key: string]: number;
            };
            /** @description The replayable thresholds shadow decisions are made under (live overrides with the shadow fields over them); null when not active */
            thresholds: {
                [key: string]: number;
            } | null;
            /** @description The replayable thresholds in force, for comparison */
            live_thresholds: {
                [key: string]: number;
            };
            /** @description Version of the shadow thresholds stored with each shadow decision (shadow_thresholds_version of the log entry) */
            thresholds_version: string | null;
            /**
             * Format: date-time
             * @description Last change (null: never set)
             */
            updated_at: string | null;
        };
        /** @description A step-up under the Principal's step-up policy principal (docs/step-up-confirmation.md). Once CONFIRMED, the agent's next request with the same amount, currency and merchant and step_up_confirmed: true, before expires_at, clears it; it is then USED. DECLINED when the person declined it on the confirmation page (final). EXPIRED once expires_at has passed unconfirmed or unused. */
        StepUp: {
            step_up_id: string;
            /** @enum {string} */
            status: "PENDING" | "CONFIRMED" | "DECLINED" | "USED" | "EXPIRED";
            /** @description the STEP_UP decision that opened it */
            authorization_id: string;
            agent_id: string;
            amount: number;
            currency: string;
            merchant_id: string | null;
            merchant_name: string | null;
            expires_at: components["schemas"]["common.timestamp"];
            confirmed_at: components["schemas"]["common.timestamp"] | null;
            /** @enum {string|null} */
            confirmed_via: "credential" | "code" | "link" | "veto_window" | null;
            used_at: components["schemas"]["common.timestamp"] | null;
            /** @description the APPROVE that used the confirmation */
            used_by_authorization_id: string | null;
            /** @description when the person declined it on the confirmation page (status DECLINED) */
            declined_at: components["schemas"]["common.timestamp"] | null;
            /**
             * @description the e-mail to the Principal's confirmation address: pending (being sent), sent, no_channel (the Principal registered no address, or the service sends no e-mail), failed (attempts used up), capped (the Principal's max_confirmations_per_hour was reached), none (opened before e-mail existed)
             * @enum {string}
             */
            notification: "pending" | "sent" | "no_channel" | "failed" | "capped" | "none";
            /** @description notify-and-proceed: when the step-up confirms itself unless the person declines first (null: it waits for an answer) */
            proceeds_at: components["schemas"]["common.timestamp"] | null;
        };
        /** @description POST /api/v1/step-ups/{step_up_id}/confirm. Without code: the caller's credential must be the Principal's own (full access, or the step_ups scope). With code: the one-time code e-mailed to the Principal's confirmation address (case, spaces and dashes ignored), from any credential of the Principal that reaches this path, e.g. the agent's authorize-scoped key; five wrong codes lock the code. */
        StepUpConfirmRequest: {
            code?: string;
        };
        /** @description POST /api/v1/thresholds/backtest: the proposed thresholds and the time range of the Principal's recorded decisions to replay under them. Call again with next_cursor (same overrides, from and to) for the rest of a range one call did not finish. */
        ThresholdsBacktestRequest: {
            /** @description A patch over the Principal's current overrides, as for PUT /thresholds (a number per field, null reverts a field to its platform default), restricted to the thresholds that act on stored scores: authorize_step_up_threshold, risk_score_hard_decline, cts_green_threshold, cts_amber_threshold, cts_red_threshold, cognitive_multiplier_amber, cognitive_multiplier_red, intent_anomaly_threshold. Empty or absent: the current thresholds. */
            overrides?: Record<string, unknown>;
            /**
             * Format: date-time
             * @description Decisions recorded at or after this instant
             */
            from: string;
            /**
             * Format: date-time
             * @description Decisions recorded before this instant
             */
            to: string;
            /** @description Decisions read at most by this call (default 5000); a call also stops after 2 seconds. next_cursor says where to go on. */
            limit?: number;
            /** @description next_cursor of the previous call */
            cursor?: string;
        };
        /** @description POST /api/v1/thresholds/backtest: what the proposed thresholds would have decided for the decisions this call read, oldest first. */
        ThresholdsBacktestResult: {
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            to: string;
            /** @description The replayable thresholds the decisions were decided again under (the current ones with the overrides applied) */
            thresholds: {
                [key: string]: number;
            };
            /** @description Decisions compared */
            evaluated: number;
            /** @description Decisions that would be (or were, in the shadow) another decision */
            changed: number;
            /** @description Decisions that stay the same with other gates fired */
            gates_changed: number;
            /** @description Decisions read without stored scores to compare (recorded before they were kept, or safe decisions of an outage) */
            not_replayable: number;
            /** @description Compared decisions of an agent that had an earlier changed decision (or the same decision with other gates) among those this call read: their stored scores came from agent state that the earlier change would have altered (windows, sessions, totals), so they are exact for the scores as recorded, not for the agent's altered history */
            after_change: number;
            /** @description Changed decisions by recorded -> other decision, most frequent first */
            transitions: {
                /** @enum {string} */
                from: "APPROVE" | "DECLINE" | "STEP_UP";
                /** @enum {string} */
                to: "APPROVE" | "DECLINE" | "STEP_UP";
                count: number;
                /** @description Up to 10 authorization ids, oldest first (GET /authorize/log/{id}) */
                sample_ids: string[];
            }[];
            /** @description Per gate: decisions it fired in as recorded (before) and in the other decision (after). The session_terminated gate that post-processing adds when a decision ends a session is not re-judged: it is left out of decisions decided again. */
            gates: {
                gate: string;
                before: number;
                after: number;
            }[];
            /** @description Decisions read by this call (evaluated + not_replayable) */
            rows_read: number;
            /**
             * @description complete: the range is done; row_limit or time_budget: call again with next_cursor
             * @enum {string}
             */
            stopped: "complete" | "row_limit" | "time_budget";
            /** @description Send with the same overrides, from and to for the next decisions; null when the range is done. Counts are per call: add them up. */
            next_cursor: string | null;
        };
        ThresholdsResetResponse: {
            /** @constant */
            status: "reset";
            message: string;
        };
        /** @description PUT /api/v1/thresholds: any subset of the threshold fields; null reverts a field to its platform default. Ranges and the cross-field order are checked by the handler; defaults and ranges are in GET /api/v1/thresholds (platform_defaults) and docs/decision-engine.md. */
        ThresholdsUpdateRequest: {
            /** @description risk_score at or above which the decision is STEP_UP; null reverts to the platform default */
            authorize_step_up_threshold?: number | null;
            /** @description risk_score at or above which the decision is DECLINE; null reverts to the platform default */
            risk_score_hard_decline?: number | null;
            /** @description window of the spending-velocity gate, seconds; null reverts to the platform default */
            risk_velocity_window_seconds?: number | null;
            /** @description approved transactions allowed in the velocity window; null reverts to the platform default */
            risk_velocity_max_count?: number | null;
            /** @description window of the rapid-fire gate, seconds; null reverts to the platform default */
            rapid_fire_window_seconds?: number | null;
            /** @description requests (any decision) allowed in the rapid-fire window; null reverts to the platform default */
            rapid_fire_max_count?: number | null;
            /** @description amount above this multiple of the agent mean approved amount is an outlier; null reverts to the platform default */
            amount_outlier_multiplier?: number | null;
            /** @description approved transactions needed before outliers are judged; null reverts to the platform default */
            amount_outlier_min_history?: number | null;
            /** @description declines at one merchant after which the merchant is flagged for the agent; null reverts to the platform default */
            merchant_decline_flag_count?: number | null;
            /** @description CTS at or above which the zone is GREEN; null reverts to the platform default */
            cts_green_threshold?: number | null;
            /** @description CTS at or above which the zone is AMBER; null reverts to the platform default */
            cts_amber_threshold?: number | null;
            /** @description CTS at or above which the zone is RED (below: CRITICAL); null reverts to the platform default */
            cts_red_threshold?: number | null;
            /** @description cognitive_limit_multiplier in the AMBER zone; null reverts to the platform default */
            cognitive_multiplier_amber?: number | null;
            /** @description cognitive_limit_multiplier in the RED zone; null reverts to the platform default */
            cognitive_multiplier_red?: number | null;
            /** @description intent_anomaly_score at or above which the intent_anomaly gate declines; null reverts to the platform default */
            intent_anomaly_threshold?: number | null;
            /** @description distinct merchants in one session before a new one is drift; null reverts to the platform default */
            session_max_merchants?: number | null;
            /** @description consecutive DECLINEs that terminate a session; null reverts to the platform default */
            session_max_consecutive_denials?: number | null;
            /** @description how long a STEP_UP can be confirmed, seconds; null reverts to the platform default */
            step_up_window_seconds?: number | null;
            /** @description approved transactions needed for VERIFIED; null reverts to the platform default */
            verified_min_successful_txns?: number | null;
            /** @description agent age needed for VERIFIED, hours; null reverts to the platform default */
            verified_min_age_hours?: number | null;
            /** @description highest decline rate allowed for VERIFIED; null reverts to the platform default */
            verified_max_decline_rate?: number | null;
            /** @description approved transactions needed for TRUSTED; null reverts to the platform default */
            trusted_min_successful_txns?: number | null;
            /** @description agent age needed for TRUSTED, hours; null reverts to the platform default */
            trusted_min_age_hours?: number | null;
            /** @description highest decline rate allowed for TRUSTED; null reverts to the platform default */
            trusted_max_decline_rate?: number | null;
        };
        ThresholdsUpdateResponse: {
            /** @constant */
            status: "updated";
            /** @description fields whose effective value changed, sorted */
            fields_changed: string[];
            effective_thresholds: components["schemas"]["ThresholdValues"];
        };
        /** @description GET /api/v1/thresholds: the effective thresholds, the Principal's overrides and the platform defaults. */
        ThresholdsView: {
            thresholds: components["schemas"]["ThresholdValues"];
            overrides: {
                [key: string]: number;
            };
            platform_defaults: components["schemas"]["ThresholdValues"];
        };
        /** @description A complete set of decision threshold values. */
        ThresholdValues: {
            /** @description risk_score at or above which the decision is STEP_UP */
            authorize_step_up_threshold: number;
            /** @description risk_score at or above which the decision is DECLINE */
            risk_score_hard_decline: number;
            /** @description window of the spending-velocity gate, seconds */
            risk_velocity_window_seconds: number;
            /** @description approved transactions allowed in the velocity window */
            risk_velocity_max_count: number;
            /** @description window of the rapid-fire gate, seconds */
            rapid_fire_window_seconds: number;
            /** @description requests (any decision) allowed in the rapid-fire window */
            rapid_fire_max_count: number;
            /** @description amount above this multiple of the agent mean approved amount is an outlier */
            amount_outlier_multiplier: number;
            /** @description approved transactions needed before outliers are judged */
            amount_outlier_min_history: number;
            /** @description declines at one merchant after which the merchant is flagged for the agent */
            merchant_decline_flag_count: number;
            /** @description CTS at or above which the zone is GREEN */
            cts_green_threshold: number;
            /** @description CTS at or above which the zone is AMBER */
            cts_amber_threshold: number;
            /** @description CTS at or above which the zone is RED (below: CRITICAL) */
            cts_red_threshold: number;
            /** @description cognitive_limit_multiplier in the AMBER zone */
            cognitive_multiplier_amber: number;
            /** @description cognitive_limit_multiplier in the RED zone */
            cognitive_multiplier_red: number;
            /** @description intent_anomaly_score at or above which the intent_anomaly gate declines */
            intent_anomaly_threshold: number;
            /** @description distinct merchants in one session before a new one is drift */
            session_max_merchants: number;
            /** @description consecutive DECLINEs that terminate a session */
            session_max_consecutive_denials: number;
            /** @description how long a STEP_UP can be confirmed, seconds */
            step_up_window_seconds: number;
            /** @description approved transactions needed for VERIFIED */
            verified_min_successful_txns: number;
            /** @description agent age needed for VERIFIED, hours */
            verified_min_age_hours: number;
            /** @description highest decline rate allowed for VERIFIED */
            verified_max_decline_rate: number;
            /** @description approved transactions needed for TRUSTED */
            trusted_min_successful_txns: number;
            /** @description agent age needed for TRUSTED, hours */
            trusted_min_age_hours: number;
            /** @description highest decline rate allowed for TRUSTED */
            trusted_max_decline_rate: number;
        };
        Webhook: {
            id: string;
            url: string;
            event_types: string[];
            description: string | null;
            active: boolean;
            consecutive_failures: number;
            /** Format: date-time */
            last_delivery_at: string | null;
            /** @description HTTP status of the last attempt; null before any attempt or when no response arrived. */
            last_status_code: number | null;
            /** Format: date-time */
            created_at: string;
        };
        WebhookCreated: {
            webhook: components["schemas"]["Webhook"];
            /** @description Shown once: keys X-Mandate-Signature and webhook-signature. */
            signing_secret: string;
        };
        WebhookCreateRequest: {
            /** @description Public HTTPS URL receiving the signed POSTs. */
            url: string;
            /** @description Event types to receive; "*" means all, including future types. */
            event_types: components["schemas"]["WebhookEventTypeName"][];
            description?: string;
        };
        WebhookDeliveryList: {
            items: {
                event_id: string;
                event_type: string;
                /** @enum {string} */
                status: "pending" | "succeeded" | "failed";
                attempts: number;
                /** Format: date-time */
                next_attempt_at: string | null;
                last_status_code: number | null;
                last_error: string | null;
                /** Format: date-time */
                created_at?: string;
                attempt_log?: {
                    attempt?: number;
                    succeeded?: boolean;
                    status_code?: number | null;
                    error?: string | null;
                    duration_ms?: number;
                    /** Format: date-time */
                    attempted_at?: string;
                }[];
            }[];
        };
        WebhookEventCatalog: {
            event_types: {
                type: string;
                description: string;
                sample_payload: Record<string, unknown>;
            }[];
            wildcard: string;
        };
        /**
         * @description A webhook event type, an alias of one (kya.zone.red, kya.zone.critical) or the wildcard "*".
         * @enum {string}
         */
        WebhookEventTypeName: "gate.fired" | "authorization.decline" | "cts.red" | "cts.critical" | "session.terminate" | "trust.promotion" | "step_up.created" | "step_up.confirmed" | "step_up.declined" | "webhook.delivery_exhausted" | "authorization.captured" | "authorization.released" | "authorization.expired" | "authorization.refunded" | "authorization.voided" | "budget.threshold_reached" | "budget.exhausted" | "mandate.updated" | "mandate.revoked" | "principal_budget.threshold_reached" | "principal_budget.exhausted" | "ap2_mandate.imported" | "ap2_mandate.consumed" | "ap2_mandate.refused" | "kya.zone.red" | "kya.zone.critical" | "*";
        WebhookList: {
            items: components["schemas"]["Webhook"][];
            /** @description Pass as cursor for the next page; null at the end. */
            next_cursor: string | null;
        };
        WebhookRangeRedeliverResult: {
            /** @enum {string} */
            status: "queued";
            webhook_id: string;
            /** @description The event, when one was asked for */
            event_id?: string;
            /** @description Deliveries queued by this call */
            queued: number;
            /** @description Failed deliveries remain in the range beyond the limit */
            more: boolean;
            /**
             * Format: date-time
             * @description Call again with this as from (same to) for the rest; null when none remain
             */
            next_from: string | null;
        };
        /** @description Body of POST /api/v1/webhooks/{webhook_id}/redeliver: one event (event_id), or the failed deliveries of events recorded in [from, to). */
        WebhookRedeliverRequest: {
            /** @description One event to deliver again */
            event_id?: string;
            /**
             * Format: date-time
             * @description Events recorded at or after this instant
             */
            from?: string;
            /**
             * Format: date-time
             * @description Events recorded before this instant
             */
            to?: string;
            /** @description Deliveries queued at most by this call (default and maximum 1000); the answer says whether more remain */
            limit?: number;
        };
        WebhookRedeliverResult: {
            /** @enum {string} */
            status: "queued";
            webhook_id: string;
            event_id: string;
        };
        /** @description Body of POST /api/v1/webhooks/{webhook_id}/rotate-secret (optional). */
        WebhookRotateSecretRequest: {
            /** @description Seconds during which deliveries are signed with both the new and the previous secret (default 86400; 0 ends the previous secret at once) */
            grace_period_seconds?: number;
        };
        WebhookSecretRotated: {
            webhook_id: string;
            /** @description The new secret, shown once: signs every delivery from now on. */
            signing_secret: string;
            /**
             * Format: date-time
             * @description Until then deliveries also carry a signature with the previous secret; null with a grace period of 0.
             */
            previous_secret_expires_at: string | null;
        };
        WebhookTestResult: {
            /** @enum {string} */
            status: "delivered" | "failed";
            event_type: string;
            event_id?: string;
            status_code?: number | null;
            message: string;
        };
        WebhookUpdateRequest: {
            url?: string;
            event_types?: components["schemas"]["WebhookEventTypeName"][];
            description?: string | null;
            /** @description true re-enables a webhook and resets consecutive_failures. */
            active?: boolean;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    issueAccessToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OAuthTokenRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["OAuthTokenRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthTokenResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             *
             *     `unsupported_grant_type`: grant_type must be client_credentials.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getJwks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Jwks"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    authorize: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuthorizeRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorizeResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    explainAuthorization: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuthorizeRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExplainResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getAuthorizationLogEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                authorization_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorizationLogEntry"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `authorization_not_found`: Authorization not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listAgentAuthorizationLog: {
        parameters: {
            query?: {
                limit?: string;
                cursor?: string;
            };
            header?: never;
            path: {
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorizationLogPage"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `agent_not_found`: Agent not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listAgents: {
        parameters: {
            query?: {
                status?: "ACTIVE" | "SUSPENDED" | "REVOKED";
                trust_level?: "REGISTERED" | "VERIFIED" | "TRUSTED";
                page?: string;
                page_size?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeAgentList"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createAgent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RuntimeAgentCreateRequest"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeAgent"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeAgent"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `agent_not_found`: Agent not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getAgentMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeAgentMetrics"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `agent_not_found`: Agent not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    setAgentStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RuntimeAgentStatusRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeAgentStatusResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `agent_not_found`: Agent not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `invalid_status_transition`: That status transition is not allowed.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listAgentKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentKeyList"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `agent_not_found`: Agent not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createAgentKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["AgentKeyCreateRequest"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentKeyCreated"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `agent_not_found`: Agent not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    revokeAgentKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_id: string;
                credential_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentKeyRevoked"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `agent_not_found`: Agent not found.
             *
             *     `credential_not_found`: Credential not found.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getOwnAgentKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentCredential"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createMandate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RuntimeMandateCreateRequest"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeMandate"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getMandate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                mandate_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeMandate"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `mandate_not_found`: Mandate not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    updateMandate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 hours; the same key with another body is 422 idempotency_key_reuse. */
                "Idempotency-Key"?: string;
            };
            path: {
                mandate_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RuntimeMandateUpdateRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeMandate"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             *
             *     `no_fields_to_update`: No field to update was provided.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `mandate_not_found`: Mandate not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `idempotency_key_in_use`: A request with this Idempotency-Key is still being processed; retry later. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `idempotency_key_reuse`: This Idempotency-Key was used with a different request body.
             *
             *     `idempotency_key_expired`: This idempotency key was used more than 24 hours ago, or its stored answer was dropped by the per-owner store cap; use a new key.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listAgentMandates: {
        parameters: {
            query?: {
                status?: "ACTIVE" | "EXPIRED" | "REVOKED";
            };
            header?: never;
            path: {
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeMandateList"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `agent_not_found`: Agent not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    revokeMandate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 hours; the same key with another body is 422 idempotency_key_reuse. */
                "Idempotency-Key"?: string;
            };
            path: {
                mandate_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RuntimeMandateRevokeRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeMandate"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `mandate_not_found`: Mandate not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `idempotency_key_in_use`: A request with this Idempotency-Key is still being processed; retry later. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `idempotency_key_reuse`: This Idempotency-Key was used with a different request body.
             *
             *     `idempotency_key_expired`: This idempotency key was used more than 24 hours ago, or its stored answer was dropped by the per-owner store cap; use a new key.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getThresholds: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThresholdsView"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    updateThresholds: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ThresholdsUpdateRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThresholdsUpdateResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             *
             *     `no_fields_to_update`: No field to update was provided.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `invalid_thresholds`: The threshold values are inconsistent.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    resetThresholds: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThresholdsResetResponse"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    backtestThresholds: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ThresholdsBacktestRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThresholdsBacktestResult"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `invalid_thresholds`: The threshold values are inconsistent.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getShadowThresholds: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShadowThresholdsView"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    updateShadowThresholds: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ShadowThresholdsUpdateRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShadowThresholdsUpdateResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             *
             *     `no_fields_to_update`: No field to update was provided.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `invalid_thresholds`: The threshold values are inconsistent.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteShadowThresholds: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThresholdsResetResponse"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getShadowReport: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                limit?: string;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShadowReport"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    captureAuthorization: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 hours; the same key with another body is 422 idempotency_key_reuse. */
                "Idempotency-Key"?: string;
            };
            path: {
                authorization_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["HoldCaptureRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldCaptureResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `authorization_not_found`: Authorization not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `idempotency_key_in_use`: A request with this Idempotency-Key is still being processed; retry later. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `idempotency_key_reuse`: This Idempotency-Key was used with a different request body.
             *
             *     `idempotency_key_expired`: This idempotency key was used more than 24 hours ago, or its stored answer was dropped by the per-owner store cap; use a new key.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    releaseAuthorization: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 hours; the same key with another body is 422 idempotency_key_reuse. */
                "Idempotency-Key"?: string;
            };
            path: {
                authorization_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["HoldReleaseRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldReleaseResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `authorization_not_found`: Authorization not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `idempotency_key_in_use`: A request with this Idempotency-Key is still being processed; retry later. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `idempotency_key_reuse`: This Idempotency-Key was used with a different request body.
             *
             *     `idempotency_key_expired`: This idempotency key was used more than 24 hours ago, or its stored answer was dropped by the per-owner store cap; use a new key.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    refundAuthorization: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 hours; the same key with another body is 422 idempotency_key_reuse. */
                "Idempotency-Key"?: string;
            };
            path: {
                authorization_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["HoldRefundRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HoldRefundResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `authorization_not_found`: Authorization not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `idempotency_key_in_use`: A request with this Idempotency-Key is still being processed; retry later. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `idempotency_key_reuse`: This Idempotency-Key was used with a different request body.
             *
             *     `idempotency_key_expired`: This idempotency key was used more than 24 hours ago, or its stored answer was dropped by the per-owner store cap; use a new key.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPrincipalTimezone: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalTimezone"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    setPrincipalTimezone: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PrincipalTimezone"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalTimezone"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `invalid_timezone`: timezone must be an IANA time zone name, e.g. Europe/Berlin or UTC.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getStepUpPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalStepUpPolicy"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    setStepUpPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PrincipalStepUpPolicy"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalStepUpPolicy"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getStepUp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                step_up_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StepUp"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `step_up_not_found`: Step-up not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    confirmStepUp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                step_up_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["StepUpConfirmRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StepUp"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `forbidden`: Access to this resource is forbidden.
             *
             *     `step_up_confirmation_forbidden`: Confirming a step-up without its one-time code needs the Principal own credential (full access or the step_ups scope); a credential limited to authorize must send the code.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `step_up_not_found`: Step-up not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `step_up_not_pending`: The step-up is not awaiting confirmation: it was confirmed or used already (a confirmation is single-use).
             *
             *     `step_up_expired`: The step-up expired before it was confirmed: re-submit the request for a new STEP_UP.
             *
             *     `step_up_code_locked`: Too many wrong codes for this step-up: confirm it with the Principal credential, or re-submit the request for a new STEP_UP.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `invalid_step_up_code`: The one-time code does not match this step-up.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPrincipalBudget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalBudget"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    setPrincipalBudget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PrincipalBudgetRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalBudget"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deletePrincipalBudget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getAp2IssuerKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ap2IssuerKeys"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    putAp2IssuerKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Ap2IssuerKeysRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ap2IssuerKeys"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    importAp2Mandate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Ap2MandateImportRequest"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuntimeMandate"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `agent_not_found`: Agent not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `ap2_mandate_already_imported`: This credential was already imported. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `ap2_malformed_credential`: The credential is not an SD-JWT (issuer-signed JWT, then disclosures, separated by ~).
             *
             *     `ap2_unknown_issuer_key`: The credential's kid names no ACTIVE issuer key registered for this Principal.
             *
             *     `ap2_invalid_signature`: The signature of the credential does not verify.
             *
             *     `ap2_invalid_disclosure`: A disclosure does not match a digest of the credential.
             *
             *     `ap2_wrong_vct`: The credential is not of the AP2 type this call takes (vct).
             *
             *     `ap2_credential_expired`: The credential is past its exp.
             *
             *     `ap2_agent_key_not_registered`: The credential's cnf key is not the public key the agent registered.
             *
             *     `unresolved_constraint`: The mandate holds constraints this service cannot enforce; details name them.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    authorizeAp2: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Ap2AuthorizeRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ap2AuthorizeResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `ap2_mandate_already_consumed`: This closed Payment Mandate (or its transaction_id) was already presented. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `ap2_malformed_credential`: The credential is not an SD-JWT (issuer-signed JWT, then disclosures, separated by ~).
             *
             *     `ap2_mandate_not_imported`: The open Payment Mandate of the chain was not imported for this agent.
             *
             *     `ap2_key_binding_invalid`: The closed Payment Mandate is not signed by the open mandate's cnf key, or not bound to it (sd_hash).
             *
             *     `ap2_invalid_disclosure`: A disclosure does not match a digest of the credential.
             *
             *     `ap2_wrong_vct`: The credential is not of the AP2 type this call takes (vct).
             *
             *     `ap2_credential_expired`: The credential is past its exp.
             *
             *     `mandate_not_active`: The mandate is not ACTIVE (it is REVOKED or EXPIRED): it can no longer be amended or revoked.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getAp2MandateStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ap2MandateStatus"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `not_found`: Resource not found.
             *
             *     `ap2_mandate_unknown_hash`: No portable mandate of the caller has this hash.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getAp2MandatePublicStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ap2PublicStatus"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `not_found`: Resource not found.
             *
             *     `ap2_mandate_unknown_hash`: No portable mandate of the caller has this hash.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getBudgetStatement: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                mandate_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BudgetStatement"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `mandate_not_found`: Mandate not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getConfirmationChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalConfirmationChannel"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    setConfirmationChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PrincipalConfirmationChannelRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalConfirmationChannel"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    onboard: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 hours; the same key with another body is 422 idempotency_key_reuse. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OnboardRequest"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OnboardResponse"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `idempotency_key_in_use`: A request with this Idempotency-Key is still being processed; retry later.
             *
             *     `duplicate_client_customer_ref`: client_customer_ref already exists for this Client.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `idempotency_key_reuse`: This Idempotency-Key was used with a different request body.
             *
             *     `idempotency_key_expired`: This idempotency key was used more than 24 hours ago, or its stored answer was dropped by the per-owner store cap; use a new key.
             *
             *     `program_not_owned`: A program_id does not belong to the calling Client.
             *
             *     `attestation_required`: verification.attestation is required in client_attested mode.
             *
             *     `invalid_phone_format`: SMS step-up requires a valid E.164 phone number.
             *
             *     `principal_not_in_program`: The Principal is not enrolled in that Program, or program_id is required.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createPrincipal: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 hours; the same key with another body is 422 idempotency_key_reuse. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PrincipalCreateRequest"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Principal"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `idempotency_key_in_use`: A request with this Idempotency-Key is still being processed; retry later.
             *
             *     `duplicate_client_customer_ref`: client_customer_ref already exists for this Client.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `idempotency_key_reuse`: This Idempotency-Key was used with a different request body.
             *
             *     `idempotency_key_expired`: This idempotency key was used more than 24 hours ago, or its stored answer was dropped by the per-owner store cap; use a new key.
             *
             *     `program_not_owned`: A program_id does not belong to the calling Client.
             *
             *     `attestation_required`: verification.attestation is required in client_attested mode.
             *
             *     `invalid_phone_format`: SMS step-up requires a valid E.164 phone number.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getPrincipal: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Principal"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    enrollPrincipalInProgram: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PrincipalProgramsRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalPrograms"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `program_not_owned`: A program_id does not belong to the calling Client.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listPrincipalAgents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OnboardAgentList"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createPrincipalAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 hours; the same key with another body is 422 idempotency_key_reuse. */
                "Idempotency-Key"?: string;
            };
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OnboardAgentCreateRequest"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OnboardAgent"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `idempotency_key_in_use`: A request with this Idempotency-Key is still being processed; retry later. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `idempotency_key_reuse`: This Idempotency-Key was used with a different request body.
             *
             *     `idempotency_key_expired`: This idempotency key was used more than 24 hours ago, or its stored answer was dropped by the per-owner store cap; use a new key.
             *
             *     `principal_not_in_program`: The Principal is not enrolled in that Program, or program_id is required.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createAgentMandate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the first answer for 24 hours; the same key with another body is 422 idempotency_key_reuse. */
                "Idempotency-Key"?: string;
            };
            path: {
                agent_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OnboardMandateCreateRequest"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OnboardMandate"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `agent_not_found`: Agent not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `idempotency_key_in_use`: A request with this Idempotency-Key is still being processed; retry later. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `idempotency_key_reuse`: This Idempotency-Key was used with a different request body.
             *
             *     `idempotency_key_expired`: This idempotency key was used more than 24 hours ago, or its stored answer was dropped by the per-owner store cap; use a new key.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createSandboxKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                principal_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalSandboxKey"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `forbidden`: Access to this resource is forbidden.
             *
             *     `sandbox_only`: This action is available with a sandbox credential only.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `principal_not_found`: Principal not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listWebhookEventTypes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEventCatalog"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: {
                limit?: string;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookCreateRequest"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookCreated"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `invalid_webhook_url`: The webhook URL is not allowed.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `webhook_not_found`: Webhook not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `webhook_not_found`: Webhook not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookUpdateRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             *
             *     `no_fields_to_update`: No field to update was provided.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `webhook_not_found`: Webhook not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `invalid_webhook_url`: The webhook URL is not allowed.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    testWebhook: {
        parameters: {
            query?: {
                event_type?: "gate.fired" | "authorization.decline" | "cts.red" | "cts.critical" | "session.terminate" | "trust.promotion" | "step_up.created" | "authorization.captured" | "authorization.released" | "authorization.expired" | "authorization.refunded" | "authorization.voided" | "budget.threshold_reached" | "budget.exhausted" | "mandate.updated" | "mandate.revoked" | "principal_budget.threshold_reached" | "principal_budget.exhausted" | "kya.zone.red" | "kya.zone.critical";
            };
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookTestResult"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `webhook_not_found`: Webhook not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `webhook_inactive`: The webhook is not active.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                limit?: string;
                status?: "pending" | "succeeded" | "failed";
            };
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `webhook_not_found`: Webhook not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    redeliverWebhookEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
                event_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRedeliverResult"];
                };
            };
            /** @description `bad_request`: The request is malformed. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `webhook_not_found`: Webhook not found.
             *
             *     `not_found`: Resource not found.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /**
             * @description `validation_error`: The request failed validation.
             *
             *     `webhook_inactive`: The webhook is not active.
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookRotateSecretRequest"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSecretRotated"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `webhook_not_found`: Webhook not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    redeliverWebhookEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookRedeliverRequest"];
            };
        };
        responses: {
            /** @description Success */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRangeRedeliverResult"];
                };
            };
            /**
             * @description `bad_request`: The request is malformed.
             *
             *     `invalid_json`: The request body is not valid JSON.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unauthorized`: Missing or invalid credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `forbidden`: Access to this resource is forbidden. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `webhook_not_found`: Webhook not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `payload_too_large`: The request body is too large. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type must be application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `validation_error`: The request failed validation. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `rate_limited`: Too many requests; retry after the indicated delay. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
}
