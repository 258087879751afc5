// The realistic /authorize mix: one main Principal with many agents (approvals, sessions and
// every mandate decline), a Principal with default thresholds whose few agents are hammered
// (rapid-fire), and one whose velocity threshold is 1 (step-ups). Provisioned through the API;
// requests are prebuilt so the load generator spends its CPU on sending, not on building.

import type { Completion } from '../load/connection.js';
import { type BenchRequest, buildRequest } from '../load/connection.js';
import type { PeerMandateSeed, PeerSeed } from '../peer/database.js';
import {
  type ApiTarget,
  type ClientSetup,
  createAgentWithMandate,
  mapLimit,
  onboardPrincipal,
  type PrincipalSetup,
  provisionClient,
  putThresholds,
} from '../provision.js';

export interface MixEntry {
  readonly kind: string;
  /** Share of the requests, in percent. */
  readonly weight: number;
  /** The decision this kind is built to get. */
  readonly expected: 'APPROVE' | 'DECLINE' | 'STEP_UP';
}

export const MIX: readonly MixEntry[] = [
  { kind: 'approve', weight: 56, expected: 'APPROVE' },
  { kind: 'approve_session', weight: 14, expected: 'APPROVE' },
  { kind: 'over_limit', weight: 5, expected: 'DECLINE' },
  { kind: 'blocked_mcc', weight: 5, expected: 'DECLINE' },
  { kind: 'blocked_country', weight: 5, expected: 'DECLINE' },
  { kind: 'expired_mandate', weight: 4, expected: 'DECLINE' },
  { kind: 'currency_mismatch', weight: 4, expected: 'DECLINE' },
  { kind: 'rapid_fire', weight: 4, expected: 'DECLINE' },
  { kind: 'step_up', weight: 3, expected: 'STEP_UP' },
];

export interface MixSetup {
  readonly client: ClientSetup;
  readonly main: PrincipalSetup;
  readonly rapid: PrincipalSetup;
  readonly stepUp: PrincipalSetup;
  readonly mainAgents: readonly string[];
  readonly expiredAgents: readonly string[];
  readonly rapidAgents: readonly string[];
  readonly stepUpAgents: readonly string[];
  /** Date.now() after which the expiring mandates have expired. */
  readonly expiredAfterMs: number;
  /** valid_until of the expiring mandates (ISO). */
  readonly expiresAt: string;
}

const HIGH = 65_535;

/** The mandate every agent of the mix gets (the expiring ones with a validUntil as well). */
export const MIX_MANDATE = {
  maxPerTransaction: '500.00',
  maxDaily: '100000000.00',
  maxMonthly: '1000000000.00',
  blockedMccs: ['7995'],
  blockedCountries: ['PRK', 'IRN'],
};

export async function provisionMix(t: ApiTarget, agents: number, log: (s: string) => void): Promise<MixSetup> {
  const client = await provisionClient(t, `bench ${new Date().toISOString()}`);
  const [main, rapid, stepUp] = await Promise.all([
    onboardPrincipal(t, client, 'main'),
    onboardPrincipal(t, client, 'rapid'),
    onboardPrincipal(t, client, 'stepup'),
  ]);
  // The main Principal's agents buy often (the bench sends many requests per agent): lift the
  // per-agent frequency gates so approvals stay approvals; the mix tests those gates elsewhere.
  await putThresholds(t, main, {
    rapid_fire_max_count: HIGH,
    risk_velocity_max_count: HIGH,
    amount_outlier_multiplier: HIGH,
    merchant_decline_flag_count: HIGH,
    session_max_consecutive_denials: 1000,
  });
  // Rapid-fire after 2 requests in 10 s; any risk signal (velocity after 1 approval) steps up.
  await putThresholds(t, rapid, { rapid_fire_max_count: 2 });
  await putThresholds(t, stepUp, {
    authorize_step_up_threshold: 0.05,
    risk_velocity_max_count: 1,
    rapid_fire_max_count: HIGH,
    amount_outlier_multiplier: HIGH,
  });
  const mandate = MIX_MANDATE;
  const started = Date.now();
  const mainAgents = await mapLimit(
    Array.from({ length: agents }, (_, i) => i),
    16,
    (i) => createAgentWithMandate(t, main, `bench agent ${i}`, mandate),
  );
  log(`  ${agents} agents with mandates in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const expiresAt = Date.now() + 3000;
  const expiredAgents = await mapLimit([0, 1, 2, 3], 4, (i) =>
    createAgentWithMandate(t, main, `bench expiring ${i}`, {
      ...mandate,
      validUntil: new Date(expiresAt).toISOString(),
    }),
  );
  const rapidAgents = await mapLimit([0, 1], 2, (i) => createAgentWithMandate(t, rapid, `bench rapid ${i}`, mandate));
  const stepUpAgents = await mapLimit(
    Array.from({ length: 20 }, (_, i) => i),
    8,
    (i) => createAgentWithMandate(t, stepUp, `bench step-up ${i}`, mandate),
  );
  return {
    client,
    main,
    rapid,
    stepUp,
    mainAgents,
    expiredAgents,
    rapidAgents,
    stepUpAgents,
    expiredAfterMs: expiresAt + 1000,
    expiresAt: new Date(expiresAt).toISOString(),
  };
}

/**
 * What the conventional peer's database holds for the same mix (bench/peer/database.ts): the
 * same Principals' keys, agent ids and mandate limits, so the same requests get the same
 * mandate decisions there.
 */
export function peerSeedOf(s: MixSetup): PeerSeed {
  const m = (validUntil: string | null): PeerMandateSeed => ({
    maxPerTransaction: MIX_MANDATE.maxPerTransaction,
    maxDaily: MIX_MANDATE.maxDaily,
    maxMonthly: MIX_MANDATE.maxMonthly,
    blockedMccs: MIX_MANDATE.blockedMccs,
    blockedCountries: MIX_MANDATE.blockedCountries,
    currency: 'USD',
    validUntil,
  });
  const agents = (ids: readonly string[], validUntil: string | null = null) =>
    ids.map((agentId) => ({ agentId, mandate: m(validUntil) }));
  return {
    principals: [
      {
        principalId: s.main.principalId,
        apiKey: s.main.principalKey,
        agents: [...agents(s.mainAgents), ...agents(s.expiredAgents, s.expiresAt)],
      },
      { principalId: s.rapid.principalId, apiKey: s.rapid.principalKey, agents: agents(s.rapidAgents) },
      { principalId: s.stepUp.principalId, apiKey: s.stepUp.principalKey, agents: agents(s.stepUpAgents) },
    ],
  };
}

const POOL = 512;

function pick<T>(xs: readonly T[], i: number): T {
  return xs[i % xs.length] as T;
}

function amount(i: number): string {
  // 1.00 .. 99.99, deterministic spread
  const cents = 100 + ((i * 7919) % 9900);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** The mix's usual /authorize body (a weekly grocery order), with `extra` fields over it; the soak sends it too. */
export function authorizeBody(agentId: string, amt: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    agent_id: agentId,
    amount: amt,
    currency: 'USD',
    merchant_name: 'Corner Grocery',
    merchant_id: 'mer_corner_grocery',
    mcc: '5411',
    country: 'US',
    intent_context: {
      intent_type: 'purchase',
      task_reference: 'weekly-groceries',
      reasoning_summary: 'Weekly grocery order for the household, as the user asked',
      confidence: 0.9,
    },
    ...extra,
  });
}

/** A generator of /authorize requests following MIX (weights in percent). */
export function mixGenerator(host: string, s: MixSetup, mix: readonly MixEntry[] = MIX): () => BenchRequest {
  const pools = new Map<string, BenchRequest[]>();
  const mk = (kind: string, key: string, b: string): BenchRequest => ({
    kind,
    bytes: buildRequest('POST', host, '/api/v1/authorize', { 'x-api-key': key }, b),
  });
  for (const e of mix) {
    const pool: BenchRequest[] = [];
    for (let i = 0; i < POOL; i++) {
      const a = pick(s.mainAgents, i * 31 + e.kind.length);
      switch (e.kind) {
        case 'approve':
          pool.push(
            mk(e.kind, s.main.principalKey, authorizeBody(a, amount(i), { country: i % 2 === 0 ? 'US' : 'USA' })),
          );
          break;
        case 'approve_session':
          pool.push(mk(e.kind, s.main.principalKey, authorizeBody(a, amount(i), { session_id: `sess_${a}_${i % 4}` })));
          break;
        case 'over_limit':
          pool.push(mk(e.kind, s.main.principalKey, authorizeBody(a, '750.00')));
          break;
        case 'blocked_mcc':
          pool.push(
            mk(e.kind, s.main.principalKey, authorizeBody(a, amount(i), { mcc: '7995', merchant_name: 'Casino' })),
          );
          break;
        case 'blocked_country':
          pool.push(
            mk(e.kind, s.main.principalKey, authorizeBody(a, amount(i), { country: i % 2 === 0 ? 'KP' : 'IRN' })),
          );
          break;
        case 'expired_mandate':
          pool.push(mk(e.kind, s.main.principalKey, authorizeBody(pick(s.expiredAgents, i), amount(i))));
          break;
        case 'currency_mismatch':
          pool.push(mk(e.kind, s.main.principalKey, authorizeBody(a, amount(i), { currency: 'EUR' })));
          break;
        case 'rapid_fire':
          pool.push(mk(e.kind, s.rapid.principalKey, authorizeBody(pick(s.rapidAgents, i), amount(i))));
          break;
        case 'step_up':
          pool.push(mk(e.kind, s.stepUp.principalKey, authorizeBody(pick(s.stepUpAgents, i), amount(i))));
          break;
        default:
          throw new Error(`unknown mix kind ${e.kind}`);
      }
    }
    pools.set(e.kind, pool);
  }
  // 1000 slots by weight: one array index per request instead of a weighted search.
  const totalWeight = mix.reduce((n, e) => n + e.weight, 0);
  const slots: BenchRequest[][] = [];
  for (const e of mix) {
    const n = Math.round((1000 * e.weight) / totalWeight);
    for (let i = 0; i < n; i++) slots.push(pools.get(e.kind) as BenchRequest[]);
  }
  let i = 0;
  let j = 0;
  return () => {
    i = (i + 389) % slots.length; // a stride coprime with the slot count spreads the kinds
    j++;
    const pool = slots[i] as BenchRequest[];
    return pool[j % pool.length] as BenchRequest;
  };
}

const DECISION = Buffer.from('"decision":"');

/** The decision in an /authorize answer, or "HTTP <status>" for anything else. */
export function classifyDecision(c: Completion): string {
  if (c.status !== 200 || c.body === null) return `HTTP ${c.status}`;
  const at = c.body.indexOf(DECISION);
  if (at < 0) return 'HTTP 200 (no decision)';
  const from = at + DECISION.length;
  const to = c.body.indexOf(0x22, from);
  return c.body.toString('latin1', from, to);
}
