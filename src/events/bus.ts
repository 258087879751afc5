// The event bus seam: the outbox relay publishes to it, the webhook dispatcher consumes from it.
// NATS JetStream when NATS_URL is set (src/events/nats-bus.ts), otherwise the in-process bus
// below. Both give the consumer at-least-once delivery: a message is acknowledged only after the
// consumer's handler resolved (the dispatcher deduplicates on (webhook, event_id)).

export interface OutgoingEvent {
  readonly subject: string;
  readonly eventId: string;
  /** The envelope JSON, published byte for byte. */
  readonly body: string;
}

export interface IncomingEvent {
  readonly subject: string;
  readonly body: string;
}

/** Processes a batch; resolving acknowledges every message, rejecting asks for redelivery. */
export type EventBatchHandler = (events: readonly IncomingEvent[]) => Promise<void>;

export interface EventBus {
  readonly kind: 'nats' | 'memory';
  /** Starts connecting (never blocks on an unreachable server). */
  start(): void;
  /** True when a publish can be attempted now. */
  connected(): boolean;
  /** Resolves when connected (or when closed). */
  whenConnected(): Promise<void>;
  /**
   * Publishes a batch, pipelined; element i tells whether event i is durably accepted (for NATS:
   * stored in the stream, duplicates included). Never rejects.
   */
  publishBatch(events: readonly OutgoingEvent[]): Promise<boolean[]>;
  /** Registers the one durable consumer (the webhook dispatcher). Call before start(). */
  consume(handler: EventBatchHandler): void;
  /** Readiness: the bus is reachable. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The in-process bus of the embedded default. publishBatch hands the batch to the consumer and
 * resolves only after it processed it, so the relay marks rows published only once the
 * dispatcher has durably recorded their deliveries: nothing is lost across a crash.
 */
export class InProcessBus implements EventBus {
  readonly kind = 'memory' as const;
  #handler: EventBatchHandler | null = null;
  #closed = false;

  start(): void {}

  connected(): boolean {
    return !this.#closed;
  }

  whenConnected(): Promise<void> {
    return Promise.resolve();
  }

  async publishBatch(events: readonly OutgoingEvent[]): Promise<boolean[]> {
    if (this.#closed) return events.map(() => false);
    if (this.#handler === null) return events.map(() => true);
    try {
      await this.#handler(events.map((e) => ({ subject: e.subject, body: e.body })));
      return events.map(() => true);
    } catch {
      return events.map(() => false);
    }
  }

  consume(handler: EventBatchHandler): void {
    this.#handler = handler;
  }

  async ping(): Promise<boolean> {
    return !this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}
