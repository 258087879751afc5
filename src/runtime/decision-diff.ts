// The summary of decisions compared with other decisions of the same requests: a backtest's
// replays (POST /thresholds/backtest) and the shadow decisions of live traffic
// (GET /thresholds/shadow/report). Counts by transition with sample ids, counts per gate
// before and after, and the rows after an earlier changed decision of the same agent.

/** Sample ids kept per transition. */
export const SAMPLES_PER_TRANSITION = 10;

export interface Verdict {
  readonly decision: string;
  readonly gates: readonly string[];
}

interface Transition {
  readonly from: string;
  readonly to: string;
  count: number;
  readonly sample_ids: string[];
}

interface GateCount {
  before: number;
  after: number;
}

export interface DiffSummary {
  /** Rows compared (including those whose decision no replayable threshold can change). */
  readonly evaluated: number;
  /** Rows whose decision differs. */
  readonly changed: number;
  /** Rows with the same decision but other gates. */
  readonly gates_changed: number;
  /** Rows without what the comparison needs (recorded before it was kept, safe decisions). */
  readonly not_replayable: number;
  /**
   * Compared rows of an agent that had an earlier changed decision (or the same decision with
   * other gates) among the rows compared by this call: their stored scores came from state
   * that change would have altered.
   */
  readonly after_change: number;
  readonly transitions: Transition[];
  readonly gates: { gate: string; before: number; after: number }[];
}

export class DecisionDiff {
  #evaluated = 0;
  #changed = 0;
  #gatesChanged = 0;
  #notReplayable = 0;
  #afterChange = 0;
  readonly #transitions = new Map<string, Transition>();
  readonly #gates = new Map<string, GateCount>();
  readonly #changedAgents = new Set<string>();

  notReplayable(): void {
    this.#notReplayable++;
  }

  /** One row: its recorded verdict and the other one, in created_at order per agent. */
  add(id: string, agentId: string, before: Verdict, after: Verdict): void {
    this.#evaluated++;
    if (this.#changedAgents.has(agentId)) this.#afterChange++;
    for (const g of before.gates) this.#gate(g).before++;
    for (const g of after.gates) this.#gate(g).after++;
    if (before.decision !== after.decision) {
      this.#changed++;
      this.#changedAgents.add(agentId);
      const key = `${before.decision}>${after.decision}`;
      let t = this.#transitions.get(key);
      if (t === undefined) {
        t = { from: before.decision, to: after.decision, count: 0, sample_ids: [] };
        this.#transitions.set(key, t);
      }
      t.count++;
      if (t.sample_ids.length < SAMPLES_PER_TRANSITION) t.sample_ids.push(id);
    } else if (!sameGates(before.gates, after.gates)) {
      // Other gates change the agent's state too (whether a DECLINE points to compromise, a
      // CRITICAL zone that ends the session).
      this.#gatesChanged++;
      this.#changedAgents.add(agentId);
    }
  }

  #gate(g: string): GateCount {
    let c = this.#gates.get(g);
    if (c === undefined) {
      c = { before: 0, after: 0 };
      this.#gates.set(g, c);
    }
    return c;
  }

  summary(): DiffSummary {
    return {
      evaluated: this.#evaluated,
      changed: this.#changed,
      gates_changed: this.#gatesChanged,
      not_replayable: this.#notReplayable,
      after_change: this.#afterChange,
      transitions: [...this.#transitions.values()].sort(
        (a, b) => b.count - a.count || a.from.localeCompare(b.from) || a.to.localeCompare(b.to),
      ),
      gates: [...this.#gates.entries()]
        .map(([gate, c]) => ({ gate, before: c.before, after: c.after }))
        .sort((a, b) => a.gate.localeCompare(b.gate)),
    };
  }
}

function sameGates(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (const g of a) if (!b.includes(g)) return false;
  return true;
}

/**
 * The gates of a recorded decision that a replay decides again: a decision the replay re-makes
 * (stages 2 to 4) loses the session_terminated gate that post-processing adds when it ends a
 * session, which is not re-judged (a decision no replayable threshold acts on keeps all).
 */
export function replayedGates(gates: readonly string[], fixed: boolean): readonly string[] {
  return fixed || !gates.includes('session_terminated') ? gates : gates.filter((g) => g !== 'session_terminated');
}
