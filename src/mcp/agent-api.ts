// The MCP server's side of the service's HTTP API: the typed client (packages/client) with the
// agent key, and nothing else. The agent the server acts for is the key's (GET /api/v1/agent-key),
// never a tool argument; the service refuses the key anything beyond that agent
// (docs/auth.md "Agent keys").
import { type AsasClient, createAsasClient, type Schemas, unwrap } from '../../packages/client/src/index.js';

/** What a purchase is, as a tool gives it: POST /authorize's fields less the agent. */
export interface Purchase {
  amount: string;
  currency: string;
  merchant_name: string;
  merchant_id?: string | undefined;
  mcc?: string | undefined;
  country?: string | undefined;
  intent_type: string;
  task_reference: string;
  reasoning_summary?: string | undefined;
  session_id?: string | undefined;
  idempotency_key?: string | undefined;
  step_up_confirmed?: boolean | undefined;
}

export type Decision = Schemas['AuthorizeResponse'];
/** What a dry run tells an agent key (the `verdict` disclosure): the decision and its reasons. */
export interface DryRun {
  decision: Decision['decision'];
  reason_codes: string[];
}
export type Mandate = Schemas['RuntimeMandate'];
export type StepUp = Schemas['StepUp'];
export type LogPage = Schemas['AuthorizationLogPage'];

export interface AgentApiOptions {
  /** The service's address, e.g. http://127.0.0.1:3000 (ASAS_URL). */
  baseUrl: string;
  /** An agent key (ASAS_AGENT_KEY), issued by POST /api/v1/agents/{agent_id}/keys. */
  apiKey: string;
  fetch?: (request: Request) => Promise<Response>;
}

export class AgentApi {
  readonly #client: AsasClient;
  /** The agent the key acts for. */
  readonly agentId: string;

  private constructor(client: AsasClient, agentId: string) {
    this.#client = client;
    this.agentId = agentId;
  }

  /** Asks the service which agent the key acts for; throws AsasApiError for a key that is not an agent key. */
  static async connect(options: AgentApiOptions): Promise<AgentApi> {
    const client = createAsasClient({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
    const self = unwrap(await client.GET('/api/v1/agent-key'));
    return new AgentApi(client, self.agent_id);
  }

  #body(p: Purchase) {
    return {
      agent_id: this.agentId,
      amount: p.amount,
      currency: p.currency,
      merchant_name: p.merchant_name,
      ...(p.merchant_id === undefined ? {} : { merchant_id: p.merchant_id }),
      ...(p.mcc === undefined ? {} : { mcc: p.mcc }),
      ...(p.country === undefined ? {} : { country: p.country }),
      intent_context: {
        intent_type: p.intent_type,
        task_reference: p.task_reference,
        ...(p.reasoning_summary === undefined ? {} : { reasoning_summary: p.reasoning_summary }),
      },
      ...(p.session_id === undefined ? {} : { session_id: p.session_id }),
    };
  }

  /** POST /authorize: captured at once (`automatic`) or a hold (`manual`). */
  async authorize(p: Purchase, captureMethod: 'automatic' | 'manual'): Promise<Decision> {
    const body = {
      ...this.#body(p),
      capture_method: captureMethod,
      ...(p.idempotency_key === undefined ? {} : { idempotency_key: p.idempotency_key }),
      ...(p.step_up_confirmed === undefined ? {} : { step_up_confirmed: p.step_up_confirmed }),
    };
    return unwrap(await this.#client.POST('/api/v1/authorize', { body }));
  }

  /** POST /authorize/explain: for an agent key, the verdict and reason codes only. */
  async explain(p: Purchase): Promise<DryRun> {
    const r = unwrap(await this.#client.POST('/api/v1/authorize/explain', { body: this.#body(p) }));
    return { decision: r.decision, reason_codes: r.reason_codes };
  }

  /** The agent's mandates, newest first, each with its usage when `withUsage` (one read per mandate). */
  async mandates(status?: 'ACTIVE'): Promise<Mandate[]> {
    const list = unwrap(
      await this.#client.GET('/api/v1/mandates/agent/{agent_id}', {
        params: { path: { agent_id: this.agentId }, query: status === undefined ? {} : { status } },
      }),
    );
    return list.mandates;
  }

  /** One mandate with its usage: used, held and remaining per cap in its current window. */
  async mandate(id: string): Promise<Mandate> {
    return unwrap(await this.#client.GET('/api/v1/mandates/{mandate_id}', { params: { path: { mandate_id: id } } }));
  }

  async capture(authorizationId: string, amount?: string) {
    return unwrap(
      await this.#client.POST('/api/v1/authorizations/{authorization_id}/capture', {
        params: { path: { authorization_id: authorizationId } },
        body: amount === undefined ? {} : { amount },
      }),
    );
  }

  async release(authorizationId: string) {
    return unwrap(
      await this.#client.POST('/api/v1/authorizations/{authorization_id}/release', {
        params: { path: { authorization_id: authorizationId } },
        body: {},
      }),
    );
  }

  /** The agent's newest decisions (id, decision, amount, currency, time; no score), newest first. */
  async recentDecisions(limit: number): Promise<LogPage> {
    return unwrap(
      await this.#client.GET('/api/v1/authorize/log/agent/{agent_id}', {
        params: { path: { agent_id: this.agentId }, query: { limit: String(limit) } },
      }),
    );
  }

  async stepUp(id: string): Promise<StepUp> {
    return unwrap(await this.#client.GET('/api/v1/step-ups/{step_up_id}', { params: { path: { step_up_id: id } } }));
  }
}
