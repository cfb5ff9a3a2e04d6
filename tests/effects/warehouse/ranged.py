"""A quiet HTTP handler for the download tests: one file, resumable with `Range: bytes=N-`."""

from __future__ import annotations

import http.server


class RangeHandler(http.server.BaseHTTPRequestHandler):
    """Serves `body` at `served`; `send(header, start)` (a subclass's) writes the response to a GET.

    `start` is the offset asked for by the request's `Range: bytes=N-` header (None: 0).
    """

    served = "/"
    body = b""

    def do_GET(self) -> None:
        if self.path != type(self).served:
            self.send_error(404)
            return
        header = self.headers.get("Range")
        self.send(header, int(header.removeprefix("bytes=").rstrip("-")) if header else 0)

    def send(self, header: str | None, start: int) -> None:
        """The whole rest of the body from `start`."""
        self.send_headers(header, start)
        self.wfile.write(type(self).body[start:])

    def send_headers(self, header: str | None, start: int) -> None:
        """Status 206 (with Content-Range) for a range request, else 200; Content-Length of the rest."""
        size = len(type(self).body)
        self.send_response(206 if header else 200)
        if header:
            self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.send_header("Content-Length", str(size - start))
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""
