"""A webhook receiver that verifies every delivery, with nothing but Python's standard library.

    WEBHOOK_SECRET=whsec_... PORT=9000 python3 examples/webhook_receiver.py

Each delivery carries the Standard Webhooks headers webhook-id, webhook-timestamp and
webhook-signature: "v1,<base64 HMAC-SHA256 of f"{id}.{timestamp}.{raw body}">", keyed with the
base64-decoded part of the secret after "whsec_". Verify the raw bytes, before parsing.
"""
import base64
import hashlib
import hmac
import json
import os
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = base64.b64decode(os.environ["WEBHOOK_SECRET"].removeprefix("whsec_"))
TOLERANCE_SECONDS = 5 * 60


def verify(headers, raw_body: bytes) -> bool:
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not msg_id or not timestamp or not signatures:
        return False
    # Refuse old or future-dated deliveries: a captured request cannot be replayed later.
    if abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    signed = f"{msg_id}.{timestamp}.".encode() + raw_body
    expected = base64.b64encode(hmac.new(SECRET, signed, hashlib.sha256).digest()).decode()
    # Several space-separated signatures may be sent (e.g. during a secret rotation).
    return any(
        version == "v1" and hmac.compare_digest(mac, expected)
        for version, _, mac in (entry.partition(",") for entry in signatures.split(" "))
    )


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        if not verify(self.headers, raw):
            print("rejected: bad signature", flush=True)
            self.send_response(400)
            self.end_headers()
            return
        event = json.loads(raw)
        # Deliveries may repeat: deduplicate on event_id before acting.
        print(f"verified {event['event_type']} {event['event_id']}", flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "9000"))), Receiver)
    print("listening", flush=True)
    server.serve_forever()
