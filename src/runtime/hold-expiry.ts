// The hold expiry sweep (docs/holds.md "Expiry"): every HOLD_EXPIRY_SWEEP_MS, each instance
// expires the due holds of each database (expireDueHolds: claimed with FOR UPDATE SKIP LOCKED and
// changed by a conditional UPDATE, so every due hold is expired exactly once, by one instance,
// and never after a capture or release won), then makes the agents' actors reload. Holds are
// rows in PostgreSQL, so expiry survives restarts: a hold that fell due while no instance ran
// is expired by the first sweep after start.
import type { Logger } from 'pino';
import type { DecisionEngine } from '../decision/model/contract.js';
import type { Environment } from '../domain/environment.js';
import type { Databases } from '../storage/db.js';
import { expireDueHolds } from './holds-store.js';

/** Holds expired per statement; a round repeats while a statement fills up (bounded). */
const BATCH = 200;
const MAX_BATCHES = 20;

export class HoldExpirySweep {
  readonly #dbs: Pick<Databases, 'forEnv' | 'isOpen'>;
  readonly #engine: DecisionEngine;
  readonly #nudge: (env: Environment) => void;
  readonly #log: Logger;
  readonly #timer: NodeJS.Timeout;
  #running: Promise<void> | null = null;

  constructor(
    dbs: Pick<Databases, 'forEnv' | 'isOpen'>,
    engine: DecisionEngine,
    nudge: (env: Environment) => void,
    log: Logger,
    intervalMs: number,
  ) {
    this.#dbs = dbs;
    this.#engine = engine;
    this.#nudge = nudge;
    this.#log = log;
    this.#timer = setInterval(() => void this.run(), intervalMs);
    this.#timer.unref();
    // At start: holds that fell due while no instance ran.
    void this.run();
  }

  /**
   * One round over both databases (a round already running is joined, not doubled); the
   * embedded sandbox before its first use holds no holds and is not opened for it.
   */
  run(): Promise<void> {
    this.#running ??= (async () => {
      for (const env of ['live', 'sandbox'] as const) {
        if (!this.#dbs.isOpen(env)) continue;
        try {
          await this.#sweep(env);
        } catch (err) {
          this.#log.warn({ err, env }, 'hold expiry sweep failed; retried at the next interval');
        }
      }
    })().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #sweep(env: Environment): Promise<void> {
    const agents = new Set<string>();
    for (let i = 0; i < MAX_BATCHES; i++) {
      const expired = await expireDueHolds(this.#dbs.forEnv(env), BATCH);
      for (const a of expired) agents.add(a);
      if (expired.length === 0) break;
    }
    if (agents.size === 0) return;
    this.#nudge(env);
    for (const agentId of agents) await this.#engine.invalidateAgent(env, agentId);
    this.#log.info({ env, agents: agents.size }, 'holds expired');
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}
