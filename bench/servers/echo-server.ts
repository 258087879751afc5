// The ceiling of this stack: a bare uWebSockets.js server that reads a JSON body, parses it
// and answers it back as JSON, with nothing else (no routing, auth, validation or storage).
// Run as its own process by the bench; prints "PORT <n>" once listening.
import * as uWS from 'uws-pack';

const app = uWS.App();
app.any('/*', (res) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  const chunks: Buffer[] = [];
  res.onData((ab, isLast) => {
    chunks.push(Buffer.from(new Uint8Array(ab)));
    if (!isLast || aborted) return;
    let out: string;
    try {
      out = JSON.stringify({ echo: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') });
    } catch {
      out = '{"error":"invalid_json"}';
    }
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(out);
    });
  });
});
const port = Number(process.argv[2] ?? 0);
app.listen('127.0.0.1', port, (socket) => {
  if (!socket) {
    process.stderr.write('echo server: cannot listen\n');
    process.exit(1);
  }
  process.stdout.write(`PORT ${uWS.us_socket_local_port(socket)}\n`);
});
process.on('SIGTERM', () => process.exit(0));
