// Instance-to-instance messages over NATS core request/reply (not JetStream: nothing here is
// kept). Each instance listens on `_ASAS.cluster.<instance id>.<kind>`; ids are random, so
// clusters sharing one NATS server never hear each other, and the subjects stay outside the
// event stream's `<NATS_SUBJECT_PREFIX>.>`. Bodies are JSON.
import { connect, type NatsConnection, type Subscription } from 'nats';
import type { Logger } from 'pino';

export type ClusterMessageKind = 'authorize' | 'invalidateAgent' | 'invalidatePrincipal' | 'nudge';

export type ClusterHandler = (kind: ClusterMessageKind, body: unknown) => Promise<unknown>;

const SUBJECT_ROOT = '_ASAS.cluster';
const KINDS: readonly ClusterMessageKind[] = ['authorize', 'invalidateAgent', 'invalidatePrincipal', 'nudge'];

export class ClusterTransport {
  readonly #nc: NatsConnection;
  readonly #id: string;
  readonly #log: Logger;
  #subscription: Subscription | null = null;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();

  private constructor(nc: NatsConnection, id: string, log: Logger) {
    this.#nc = nc;
    this.#id = id;
    this.#log = log;
  }

  static async connect(url: string, instanceId: string, log: Logger): Promise<ClusterTransport> {
    const nc = await connect({
      servers: url,
      name: `asas-cluster-${instanceId}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
    return new ClusterTransport(nc, instanceId, log);
  }

  /** Starts answering this instance's subjects with `handler`. */
  listen(handler: ClusterHandler): void {
    this.#subscription = this.#nc.subscribe(`${SUBJECT_ROOT}.${this.#id}.*`, {
      callback: (err, msg) => {
        if (err !== null) return;
        const kind = msg.subject.slice(msg.subject.lastIndexOf('.') + 1) as ClusterMessageKind;
        if (!KINDS.includes(kind)) return;
        let body: unknown;
        try {
          body = JSON.parse(this.#decoder.decode(msg.data));
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
    const msg = await this.#nc.request(
      `${SUBJECT_ROOT}.${instance}.${kind}`,
      this.#encoder.encode(JSON.stringify(body)),
      { timeout: Math.max(1, Math.floor(timeoutMs)) },
    );
    return JSON.parse(this.#decoder.decode(msg.data));
  }

  /** Fire and forget (nudges). */
  publish(instance: string, kind: ClusterMessageKind, body: unknown): void {
    try {
      this.#nc.publish(`${SUBJECT_ROOT}.${instance}.${kind}`, this.#encoder.encode(JSON.stringify(body)));
    } catch (err) {
      this.#log.debug({ err }, 'cluster publish failed');
    }
  }

  async close(): Promise<void> {
    this.#subscription?.unsubscribe();
    await this.#nc.drain().catch(() => {});
  }
}
