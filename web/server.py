"""Running the app with uvicorn: in the foreground (``catzoo serve``) or in a thread (tests).

The socket is bound here, before uvicorn starts, so that port 0 (any free port) works and
the caller learns the real address. It is made with protocol ``IPPROTO_TCP``: asyncio sets
``TCP_NODELAY`` on accepted connections only for such sockets, and without it each
response on a kept-alive connection waits for the client's delayed ACK
(``benchmarks/web_latency.py`` measures both; the figures are in docs/play.md).

Connections are held to a header timeout (``HEADER_SECONDS``): uvicorn times out idle
kept-alive connections, but not one that never finishes its request headers.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from catzoo.web.app import create_app

HEADER_SECONDS = 10.0

LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int, nodelay: bool = True) -> socket.socket:
    """The listening socket (``nodelay=False``: a socket of protocol 0 without
    ``TCP_NODELAY``, the reference ``benchmarks/web_latency.py`` measures against)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP if nodelay else 0)
    if nodelay:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(512)
    sock.setblocking(False)
    return sock


class HeaderTimeoutH11(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers are not complete
    ``header_timeout`` seconds after it opened or after its last response. (Its keep-alive
    timer is cancelled by any byte received, so a client sending a header line now and
    then would hold the connection for ever.)"""

    header_timeout = HEADER_SECONDS
    _header_timer = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm_header_timer()

    def _arm_header_timer(self) -> None:
        self._cancel_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout, self._header_timed_out)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:
            self._cancel_header_timer()  # a request's headers are in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_header_timer()

    def connection_lost(self, exc) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def protocol_with_header_timeout(seconds: float) -> type[H11Protocol]:
    return type("HeaderTimeoutH11", (HeaderTimeoutH11,), {"header_timeout": seconds})


class Server(uvicorn.Server):
    async def shutdown(self, sockets=None) -> None:
        # Long polls would hold the graceful shutdown for their whole wait: release them.
        self.config.app.state.store.close()
        await super().shutdown(sockets)


def make_server(host: str = "127.0.0.1", port: int = 8000, *, log_level: str = "warning",
                header_timeout: float = HEADER_SECONDS, nodelay: bool = True,
                **app_options) -> tuple[Server, socket.socket]:
    if is_loopback(host):
        # A page elsewhere must not reach a local server by re-pointing its own name here.
        app_options.setdefault("allowed_hosts", LOOPBACK_HOSTS)
    app = create_app(**app_options)
    config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="on",
                            timeout_graceful_shutdown=2,
                            http=protocol_with_header_timeout(header_timeout))
    return Server(config), bind(host, port, nodelay)


def run(host: str = "127.0.0.1", port: int = 8000, **options) -> None:
    server, sock = make_server(host, port, **options)
    address = sock.getsockname()
    print(f"CatZoo is served at http://{host if ':' not in host else f'[{host}]'}:{address[1]}/ "
          "(Ctrl+C stops it)", flush=True)
    server.run(sockets=[sock])


class ServerThread:
    """``with ServerThread(bot_delay=0) as url: ...``: a server on a free loopback port."""

    def __init__(self, **app_options):
        self.server, self.sock = make_server("127.0.0.1", 0, **app_options)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self.url

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
