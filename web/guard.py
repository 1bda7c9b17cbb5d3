"""Two small ASGI middlewares: a cap on request bodies and the security headers.

Written against raw ASGI so that the cap holds for chunked bodies too (no Content-Length
to trust) and costs nothing on the long-polling GETs.
"""

from __future__ import annotations

import asyncio
import json

MAX_BODY = 16 * 1024  # a move or a new game is well under 1 KB
BODY_SECONDS = 10.0  # a body still arriving after this long is refused (408)

# Everything the page needs is served from here: no CDN, no inline script, no framing.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
       "form-action 'self'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimit:
    """The whole body is read (and counted) before the app runs: counting it as the app
    reads would let the framework turn the refusal into its own 400 ("error parsing the
    body"), and a body trickling in would hold the request open for as long as it likes."""

    def __init__(self, app, limit: int = MAX_BODY, timeout: float = BODY_SECONDS):
        self.app = app
        self.limit = limit
        self.timeout = timeout

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                return await _refuse(send, 413, f"request body larger than {self.limit} bytes")
        chunks, seen = [], 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                return await _refuse(send, 408, f"request body not received within "
                                                f"{self.timeout:g} s")
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            if seen > self.limit:
                return await _refuse(send, 413, f"request body larger than {self.limit} bytes")
            if not message.get("more_body", False):
                break
        replayed = False

        async def buffered():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()  # later calls wait for the disconnect, as usual

        await self.app(scope, buffered, send)


async def _refuse(send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    # The rest of the body is never read: the connection cannot serve another request.
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})

