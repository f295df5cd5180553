"""The demo's webhook receiver: what a pipeline would run, on 127.0.0.1, printing each delivery
it gets once its signature is verified with the `standardwebhooks` package (as any receiver of
the Standard Webhooks specification verifies), and refusing one that is not.

    python scripts/demo_webhook_receiver.py PORT SECRET_FILE

`manage.py demo` registers it for the project "default" and writes its secret, shown once,
to SECRET_FILE (var/demo-webhook-secret)."""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from standardwebhooks import Webhook, WebhookVerificationError

# A delivery's body is small (ids, actor, time, a URL); anything larger is not one.
MOST_BYTES = 1_000_000


def handler_for(webhook: Webhook) -> type[BaseHTTPRequestHandler]:
    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MOST_BYTES:
                self.send_response(413)
                self.end_headers()
                return
            body = self.rfile.read(length)
            try:
                event = webhook.verify(body, dict(self.headers))
            except WebhookVerificationError as refused:
                print(f"webhook refused: {refused}", flush=True)
                self.send_response(400)
                self.end_headers()
                return
            data = event.get("data", {})
            summary = json.dumps(data, ensure_ascii=False)[:300]
            print(f"webhook {self.headers['webhook-id']} {event['type']}: {summary}", flush=True)
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args) -> None:
            pass  # one line per delivery, above, is the demo's log

    return Receiver


def main() -> None:
    port, secret_file = int(sys.argv[1]), Path(sys.argv[2])
    webhook = Webhook(secret_file.read_text().strip())
    server = ThreadingHTTPServer(("127.0.0.1", port), handler_for(webhook))
    print(f"webhook receiver listening on http://127.0.0.1:{port}/hooks", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
