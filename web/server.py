"""Running the app with uvicorn: in the foreground (``catzoo serve``) or in a thread (tests).

The socket is bound here, before uvicorn starts, so that port 0 (any free port) works and
the caller learns the real address.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time

import uvicorn

from catzoo.web.app import create_app

LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(512)
    sock.setblocking(False)
    return sock


class Server(uvicorn.Server):
    async def shutdown(self, sockets=None) -> None:
        # Long polls would hold the graceful shutdown for their whole wait: release them.
        self.config.app.state.store.close()
        await super().shutdown(sockets)


def make_server(host: str = "127.0.0.1", port: int = 8000, *, log_level: str = "warning",
                **app_options) -> tuple[Server, socket.socket]:
    if is_loopback(host):
        # A page elsewhere must not reach a local server by re-pointing its own name here.
        app_options.setdefault("allowed_hosts", LOOPBACK_HOSTS)
    app = create_app(**app_options)
    config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="on",
                            timeout_graceful_shutdown=2)
    return Server(config), bind(host, port)


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
