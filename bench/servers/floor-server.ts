// The floor of a durable answer on this stack (docs/benchmarks.md "The floor of a durable
// answer"): a bare uWebSockets.js server that, for every request, reads and parses its JSON body,
// writes one row for it to PostgreSQL and answers once that row is committed. Nothing else: no
// routing, authentication, validation, decision, receipt or event. Rows are group-committed the
// way the service's shards commit (one reserved connection; BEGIN, one INSERT of every request
// that arrived while the previous commit was in flight, COMMIT, pipelined in one round trip), so
// batches grow with the load and a lone request waits for nothing. What this process and the
// database spend per request is the least any design of "answered means committed" spends here
// with one commit per batch; a decision costs at least this much.
//
// Usage: node floor-server.js [port]; DATABASE_URL names its database (it creates its table).
// Prints "PORT <n>" once listening.
import postgres from 'postgres';
import * as uWS from 'uws-pack';
import { socketTarget } from '../../src/storage/db.js';

const url = process.env.DATABASE_URL;
if (url === undefined) {
  process.stderr.write('floor server: DATABASE_URL is required\n');
  process.exit(2);
}
const target = socketTarget(url);
const sql = postgres(target.url, { ...target.options, max: 1, onnotice: () => {}, types: {} });
await sql`create table if not exists floor_audit (
  id bigint generated always as identity primary key,
  body jsonb not null,
  created_at timestamptz not null default now()
)`;
const conn = await sql.reserve();

interface Pending {
  readonly res: uWS.HttpResponse;
  readonly body: string;
  aborted: boolean;
}

let queue: Pending[] = [];
let committing = false;
const ANSWER = '{"decision":"APPROVE"}';
/**
 * FLOOR_STATEMENTS=1: the batch as one statement in its own implicit transaction (no BEGIN or
 * COMMIT: one Parse/Bind/Execute/Sync), to compare with the three statements the service's
 * commit shape costs.
 */
const SINGLE_STATEMENT = process.env.FLOOR_STATEMENTS === '1';

function answer(p: Pending, status: string, body: string): void {
  if (p.aborted) return;
  p.res.cork(() => {
    p.res.writeStatus(status).writeHeader('content-type', 'application/json').end(body);
  });
}

async function commitRound(): Promise<void> {
  committing = true;
  while (queue.length > 0) {
    const batch = queue;
    queue = [];
    // Sent as text and cast: a parameter typed jsonb would be sent as one JSON string.
    const bodies = `[${batch.map((p) => p.body).join(',')}]`;
    try {
      if (SINGLE_STATEMENT) {
        await conn`insert into floor_audit (body) select value from jsonb_array_elements(${bodies}::text::jsonb)`;
      } else {
        await Promise.all([
          conn`begin`,
          conn`insert into floor_audit (body) select value from jsonb_array_elements(${bodies}::text::jsonb)`,
          conn`commit`,
        ]);
      }
      for (const p of batch) answer(p, '200 OK', ANSWER);
    } catch (err) {
      await conn`rollback`.catch(() => {});
      const msg = JSON.stringify({ error: 'commit_failed', message: String(err) });
      for (const p of batch) answer(p, '503 Service Unavailable', msg);
    }
  }
  committing = false;
}

const app = uWS.App();
app.any('/*', (res) => {
  const chunks: Buffer[] = [];
  const pending: { p: Pending | null; aborted: boolean } = { p: null, aborted: false };
  res.onAborted(() => {
    pending.aborted = true;
    if (pending.p !== null) pending.p.aborted = true;
  });
  res.onData((ab, isLast) => {
    chunks.push(Buffer.from(new Uint8Array(ab)));
    if (!isLast || pending.aborted) return;
    const text = Buffer.concat(chunks).toString('utf8');
    let body: string;
    try {
      body = JSON.stringify(JSON.parse(text || 'null'));
    } catch {
      res.cork(() => {
        res
          .writeStatus('400 Bad Request')
          .writeHeader('content-type', 'application/json')
          .end('{"error":"invalid_json"}');
      });
      return;
    }
    const p: Pending = { res, body, aborted: false };
    pending.p = p;
    queue.push(p);
    if (!committing) void commitRound();
  });
});
const port = Number(process.argv[2] ?? 0);
app.listen('127.0.0.1', port, (socket) => {
  if (!socket) {
    process.stderr.write('floor server: cannot listen\n');
    process.exit(1);
  }
  process.stdout.write(`PORT ${uWS.us_socket_local_port(socket)}\n`);
});
process.on('SIGTERM', () => {
  app.close();
  conn.release();
  void sql.end({ timeout: 2 }).then(() => process.exit(0));
});
