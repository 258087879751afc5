// The hold expiry sweep (docs/holds.md "Expiry"): every HOLD_EXPIRY_SWEEP_MS, each instance
// expires the due holds of each database (expireDueHolds: claimed with FOR UPDATE SKIP LOCKED and
// changed by a conditional UPDATE, so every due hold is expired exactly once, by one instance,
// and never after a capture or release won), then tells the agents' actors of the budget given
// back (DecisionEngine.creditAgent). Holds are
// rows in PostgreSQL, so expiry survives restarts: a hold that fell due while no instance ran
// is expired by the first sweep after start.
import type { Logger } from 'pino';
import type { DecisionEngine } from '../decision/model/contract.js';
import type { Environment } from '../domain/environment.js';
import type { Databases, Sql } from '../storage/db.js';
import { PeriodicJob } from '../storage/periodic-job.js';
import { expireDueHolds } from './holds-store.js';

/** Holds expired per statement; a round repeats while a statement fills up (bounded). */
const BATCH = 200;
const MAX_BATCHES = 20;

export class HoldExpirySweep {
  readonly #engine: DecisionEngine;
  readonly #nudge: (env: Environment) => void;
  readonly #log: Logger;
  readonly #job: PeriodicJob;

  constructor(
    dbs: Pick<Databases, 'forEnv' | 'isOpen'>,
    engine: DecisionEngine,
    nudge: (env: Environment) => void,
    log: Logger,
    intervalMs: number,
  ) {
    this.#engine = engine;
    this.#nudge = nudge;
    this.#log = log;
    this.#job = PeriodicJob.perDatabase({
      dbs,
      intervalMs,
      log,
      failed: 'hold expiry sweep failed; retried at the next interval',
      round: (sql, env) => this.#sweep(sql, env),
    });
    this.#job.start();
    // At start: holds that fell due while no instance ran.
    void this.run();
  }

  /** One round over the open databases (a round already running is joined, not doubled). */
  run(): Promise<void> {
    return this.#job.run();
  }

  async #sweep(sql: Sql, env: Environment): Promise<void> {
    let holds = 0;
    const agents = new Set<string>();
    for (let i = 0; i < MAX_BATCHES; i++) {
      const expired = await expireDueHolds(sql, BATCH);
      holds += expired.length;
      if (expired.length > 0) this.#nudge(env);
      for (const { agentId, credit } of expired) {
        agents.add(agentId);
        if (credit !== null) await this.#engine.creditAgent(env, agentId, credit);
      }
      if (expired.length < BATCH) break;
    }
    if (holds === 0) return;
    this.#log.info({ env, holds, agents: agents.size }, 'holds expired');
  }

  close(): Promise<void> {
    return this.#job.close();
  }
}
