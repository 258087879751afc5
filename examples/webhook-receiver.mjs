// A webhook receiver that verifies every delivery, with nothing but Node's standard library.
//
//   WEBHOOK_SECRET=whsec_... PORT=9000 node examples/webhook-receiver.mjs
//
// Each delivery carries the Standard Webhooks headers webhook-id, webhook-timestamp and
// webhook-signature: "v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${raw body}`>", keyed with
// the base64-decoded part of the secret after "whsec_". Verify the raw bytes, before parsing.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = Buffer.from(process.env.WEBHOOK_SECRET.replace(/^whsec_/, ''), 'base64');
const TOLERANCE_SECONDS = 5 * 60;

export function verify(headers, rawBody) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return false;
  // Refuse old or future-dated deliveries: a captured request cannot be replayed later.
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${id}.${timestamp}.${rawBody}`).digest();
  // Several space-separated signatures may be sent (e.g. during a secret rotation).
  return signatures.split(' ').some((entry) => {
    const [version, mac] = entry.split(',');
    const given = Buffer.from(mac ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    if (!verify(req.headers, raw)) {
      console.log('rejected: bad signature');
      res.writeHead(400).end();
      return;
    }
    const event = JSON.parse(raw);
    // Deliveries may repeat: deduplicate on event_id before acting.
    console.log(`verified ${event.event_type} ${event.event_id}`);
    res.writeHead(204).end();
  });
}).listen(Number(process.env.PORT ?? 9000), '127.0.0.1', () => console.log('listening'));
