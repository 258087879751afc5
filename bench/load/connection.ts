// A lean HTTP/1.1 keep-alive client connection on node:net for the load generator: requests
// are prebuilt Buffers written as they are, responses are framed by Content-Length (what
// uWebSockets.js sends) and matched to requests in order, so several may be pipelined on one
// socket. It exists because a general client (undici, fetch) spends more CPU per request than
// the server under test, and the bench runs on the same 2-core machine as the server.
import { connect, type Socket } from 'node:net';

export interface BenchRequest {
  /** The full request bytes (request line, headers, body). */
  readonly bytes: Buffer;
  /** Label of the mix entry this request belongs to (for per-kind counts). */
  readonly kind: string;
}

export interface Completion {
  readonly kind: string;
  /** performance.now() of the intended send (open loop) or of the actual send (closed loop). */
  readonly intendedAt: number;
  readonly status: number;
  /** Response body (only when the connection was asked to keep bodies). */
  readonly body: Buffer | null;
}

interface InFlight {
  kind: string;
  intendedAt: number;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

export class BenchConnection {
  readonly #socket: Socket;
  readonly #queue: InFlight[] = [];
  #head = 0;
  #buf: Buffer = Buffer.alloc(0);
  #closed = false;
  #ready: Promise<void>;

  constructor(
    host: string,
    port: number,
    private readonly keepBodies: boolean,
    private readonly onComplete: (c: Completion, conn: BenchConnection) => void,
    private readonly onError: (err: Error, lost: number, conn: BenchConnection) => void,
  ) {
    this.#socket = connect({ host, port, noDelay: true });
    this.#ready = new Promise((resolve, reject) => {
      this.#socket.once('connect', () => resolve());
      this.#socket.once('error', reject);
    });
    this.#socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.#socket.on('error', (err) => this.#fail(err));
    this.#socket.on('close', () => this.#fail(new Error('connection closed by the server')));
  }

  ready(): Promise<void> {
    return this.#ready;
  }

  /** Requests written and not yet answered. */
  get outstanding(): number {
    return this.#queue.length - this.#head;
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(req: BenchRequest, intendedAt: number): void {
    this.#queue.push({ kind: req.kind, intendedAt });
    this.#socket.write(req.bytes);
  }

  close(): void {
    this.#closed = true;
    this.#socket.destroy();
  }

  #fail(err: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    const lost = this.outstanding;
    this.#socket.destroy();
    this.onError(err, lost, this);
  }

  #onData(chunk: Buffer): void {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    for (;;) {
      const buf = this.#buf;
      const end = buf.indexOf(CRLFCRLF);
      if (end < 0) return;
      // Status line: "HTTP/1.1 200 OK"
      const status = (buf[9]! - 48) * 100 + (buf[10]! - 48) * 10 + (buf[11]! - 48);
      const length = contentLength(buf, end);
      if (length < 0) {
        this.#fail(new Error('response without Content-Length (chunked responses are not supported)'));
        return;
      }
      const total = end + 4 + length;
      if (buf.length < total) return;
      const body = this.keepBodies ? buf.subarray(end + 4, total) : null;
      this.#buf = buf.length === total ? Buffer.alloc(0) : buf.subarray(total);
      const f = this.#queue[this.#head];
      if (f === undefined) {
        this.#fail(new Error('response without a request'));
        return;
      }
      this.#head++;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue.splice(0, this.#head);
        this.#head = 0;
      }
      this.onComplete({ kind: f.kind, intendedAt: f.intendedAt, status, body }, this);
    }
  }
}

/** Finds the Content-Length header value in buf[0..end), case-insensitively; -1 if absent. */
function contentLength(buf: Buffer, end: number): number {
  // Lower-case scan without allocating a string for the whole header block.
  let i = buf.indexOf('\r\n') + 2;
  while (i < end) {
    const lineEnd = buf.indexOf('\r\n', i);
    const stop = lineEnd < 0 || lineEnd > end ? end : lineEnd;
    // "content-length:" is 15 bytes
    if (stop - i > 15 && (buf[i] === 0x63 || buf[i] === 0x43)) {
      const name = buf.toString('latin1', i, i + 15).toLowerCase();
      if (name === 'content-length:') {
        return Number.parseInt(buf.toString('latin1', i + 15, stop).trim(), 10);
      }
    }
    i = stop + 2;
  }
  return -1;
}

/** Builds the bytes of one request. */
export function buildRequest(
  method: string,
  host: string,
  path: string,
  headers: Record<string, string>,
  body: string | null,
): Buffer {
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const k in headers) head += `${k}: ${headers[k]}\r\n`;
  if (body !== null) {
    const b = Buffer.from(body);
    head += `content-type: application/json\r\ncontent-length: ${b.length}\r\n\r\n`;
    return Buffer.concat([Buffer.from(head, 'latin1'), b]);
  }
  return Buffer.from(`${head}\r\n`, 'latin1');
}
