// A raw HTTP/1.1 keep-alive client for the drain drill: one TCP connection that sends one
// request at a time (no pipelining) and records, per request, whether it was answered and with
// which headers, and whether the server closed or reset the connection under it. A plain socket
// shows exactly what a load balancer sees: which request was on the wire when the server closed.
import { connect, type Socket } from 'node:net';

export interface KeepAliveAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface KeepAliveConnection {
  readonly answers: KeepAliveAnswer[];
  /** Requests written to the socket that never got an answer (the server closed or reset under them). */
  readonly unanswered: number;
  /** Socket errors (ECONNRESET, EPIPE...). */
  readonly errors: string[];
  /** True once the server closed the connection (FIN received). */
  readonly ended: boolean;
  /**
   * Sends one request and resolves with its answer, or with null when the server had already
   * closed the connection before the request was written (a request it never received).
   * Rejects when the connection ends or fails while the request is on the wire.
   */
  send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<KeepAliveAnswer | null>;
  close(): void;
}

interface Waiting {
  resolve(a: KeepAliveAnswer): void;
  reject(e: Error): void;
}

export function openKeepAlive(host: string, port: number): Promise<KeepAliveConnection> {
  return new Promise((resolveOpen, rejectOpen) => {
    const socket: Socket = connect(port, host);
    let buf = Buffer.alloc(0);
    let waiting: Waiting | null = null;
    let ended = false;
    let unanswered = 0;
    const answers: KeepAliveAnswer[] = [];
    const errors: string[] = [];

    const fail = (message: string) => {
      if (waiting === null) return;
      unanswered++;
      const w = waiting;
      waiting = null;
      w.reject(new Error(message));
    };

    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const head = buf.indexOf('\r\n\r\n');
        if (head < 0) return;
        const lines = buf.subarray(0, head).toString('latin1').split('\r\n');
        const status = Number((lines[0] ?? '').split(' ')[1]);
        const headers: Record<string, string> = {};
        for (const line of lines.slice(1)) {
          const i = line.indexOf(':');
          if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
        }
        const length = Number(headers['content-length'] ?? '0');
        if (buf.length < head + 4 + length) return;
        const body = buf.subarray(head + 4, head + 4 + length).toString('utf8');
        buf = buf.subarray(head + 4 + length);
        const answer = { status, headers, body };
        answers.push(answer);
        const w = waiting;
        waiting = null;
        w?.resolve(answer);
      }
    });
    socket.on('end', () => {
      ended = true;
      fail('connection closed by the server with the request unanswered');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      errors.push(err.code ?? err.message);
      fail(`socket error ${err.code ?? err.message}`);
    });
    socket.on('close', () => {
      ended = true;
      fail('connection closed with the request unanswered');
    });
    socket.once('connect', () =>
      resolveOpen({
        answers,
        errors,
        get unanswered() {
          return unanswered;
        },
        get ended() {
          return ended;
        },
        send(method, path, headers, body) {
          if (ended || socket.destroyed) return Promise.resolve(null);
          if (waiting !== null) return Promise.reject(new Error('one request at a time'));
          const payload = body === undefined ? '' : body;
          let text = `${method} ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n`;
          for (const k in headers) text += `${k}: ${headers[k]}\r\n`;
          text += `Content-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`;
          return new Promise<KeepAliveAnswer>((resolve, reject) => {
            waiting = { resolve, reject };
            socket.write(text);
          });
        },
        close() {
          socket.destroy();
        },
      }),
    );
    socket.once('error', rejectOpen);
  });
}
