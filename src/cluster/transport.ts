// Instance-to-instance messages over NATS core request/reply (not JetStream: nothing here is
// kept). Each instance listens on `_ASAS.cluster.<instance id>.<kind>`; ids are random, so
// clusters sharing one NATS server never hear each other, and the subjects stay outside the
// event stream's `<NATS_SUBJECT_PREFIX>.>`. Bodies are JSON.
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';

export type ClusterMessageKind = 'authorize' | 'invalidateAgent' | 'creditAgent' | 'invalidatePrincipal' | 'nudge';

export type ClusterHandler = (kind: ClusterMessageKind, body: unknown) => Promise<unknown>;

const SUBJECT_ROOT = '_ASAS.cluster';
const KINDS: readonly ClusterMessageKind[] = [
  'authorize',
  'invalidateAgent',
  'creditAgent',
  'invalidatePrincipal',
  'nudge',
];

export class ClusterTransport {
  #nc: NatsConnection | null = null;
  readonly #id: string;
  readonly #log: Logger;
  #handler: ClusterHandler | null = null;
  #subscription: Subscription | null = null;
  #closed = false;
  /** False from a disconnect until the reconnect (and before the first connect). */
  #up = false;
  readonly #connecting: Promise<void>;
  readonly #encoder = new TextEncoder();

  /**
   * Connects in the background, retrying until NATS answers: an instance starts (and decides
   * for the shards it owns) while NATS is down; forwards fail until the connection is up.
   */
  constructor(url: string, instanceId: string, log: Logger) {
    this.#id = instanceId;
    this.#log = log;
    this.#connecting = this.#connect(url);
  }

  async #connect(url: string): Promise<void> {
    try {
      const nc = await connect({
        servers: url,
        name: `asas-cluster-${this.#id}`,
        waitOnFirstConnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        // A partition that resets nothing is seen after two unanswered pings (4 to 6 s), not
        // after the client's default of two minutes per ping: until then the others keep
        // forwarding to an instance they cannot reach (src/cluster/leases.ts, reachable).
        pingInterval: 2_000,
        maxPingOut: 2,
      });
      if (this.#closed) {
        await nc.close().catch(() => {});
        return;
      }
      this.#nc = nc;
      this.#up = true;
      void this.#watch(nc);
      if (this.#handler !== null) this.#subscribe(nc, this.#handler);
    } catch (err) {
      this.#log.error({ err }, 'cluster transport cannot connect to NATS');
    }
  }

  async #watch(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') {
        this.#up = false;
        this.#log.warn('cluster transport disconnected from NATS; the other instances cannot reach this one');
      } else if (s.type === 'reconnect') {
        this.#up = true;
        this.#log.info('cluster transport reconnected to NATS');
      }
    }
    this.#up = false;
  }

  /** True while connected to NATS: the other instances can forward to this one. */
  get connected(): boolean {
    return this.#up && this.#nc !== null && !this.#nc.isClosed();
  }

  /** Starts answering this instance's subjects with `handler` (once connected). */
  listen(handler: ClusterHandler): void {
    this.#handler = handler;
    if (this.#nc !== null) this.#subscribe(this.#nc, handler);
  }

  #subscribe(nc: NatsConnection, handler: ClusterHandler): void {
    this.#subscription = nc.subscribe(`${SUBJECT_ROOT}.${this.#id}.*`, {
      callback: (err, msg) => {
        if (err !== null) return;
        const kind = msg.subject.slice(msg.subject.lastIndexOf('.') + 1) as ClusterMessageKind;
        if (!KINDS.includes(kind)) return;
        let body: unknown;
        try {
          body = msg.json();
        } catch {
          return;
        }
        handler(kind, body).then(
          (answer) => {
            if (msg.reply) msg.respond(this.#encoder.encode(JSON.stringify(answer ?? null)));
          },
          (e: unknown) => {
            this.#log.error({ err: e, kind }, 'cluster message failed');
            if (msg.reply) msg.respond(this.#encoder.encode(JSON.stringify({ kind: 'not_owner' })));
          },
        );
      },
    });
  }

  /** Sends `body` to `instance` and resolves with its answer; rejects on no responder or timeout. */
  async request(instance: string, kind: ClusterMessageKind, body: unknown, timeoutMs: number): Promise<unknown> {
    const nc = this.#nc;
    if (nc === null) throw new Error('not connected to NATS yet');
    const msg = await nc.request(`${SUBJECT_ROOT}.${instance}.${kind}`, this.#encoder.encode(JSON.stringify(body)), {
      timeout: Math.max(1, Math.floor(timeoutMs)),
    });
    return msg.json();
  }

  /** Fire and forget (nudges). */
  publish(instance: string, kind: ClusterMessageKind, body: unknown): void {
    try {
      this.#nc?.publish(`${SUBJECT_ROOT}.${instance}.${kind}`, this.#encoder.encode(JSON.stringify(body)));
    } catch (err) {
      this.#log.debug({ err }, 'cluster publish failed');
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#subscription?.unsubscribe();
    if (this.#nc !== null) await this.#nc.drain().catch(() => {});
    else {
      // Still connecting: the connect loop closes what it gets; do not wait for NATS.
      void this.#connecting;
    }
  }
}
