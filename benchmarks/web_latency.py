"""Web server latency on kept-alive connections: requests per second and latency
percentiles with 50 concurrent clients, each on its own kept-alive connection, polling its
own game's view (``GET /api/seat/{token}``, what a browser does after every click).

Two servers are measured in the same run, one after the other, each in its own process:

* reference: the listening socket made as it was before issue 24 (protocol 0), so asyncio
  never sets ``TCP_NODELAY`` and each response waits for the client's delayed ACK;
* served: ``catzoo serve``'s socket (``IPPROTO_TCP`` and ``TCP_NODELAY``).

Run: ``python benchmarks/web_latency.py [--clients 1 10 50] [--seconds 5]``. The figures of a
shared machine vary from run to run; the two rows of one run are comparable.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import sys
import time

GAME = {"game": "cat_tree", "seats": ["human", "random"], "options": {"turns": "1"}}


def serve(nodelay: bool) -> None:
    """The server process: prints its address, serves until killed."""
    from catzoo.web.server import make_server

    server, sock = make_server("127.0.0.1", 0, nodelay=nodelay, bot_delay=0,
                               max_games=1000, max_games_per_client=1000)
    print(f"http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    server.run(sockets=[sock])


async def client_loop(url: str, seconds: float, latencies: list[float]) -> int:
    """One client: a game of its own, then GETs of its view on one kept-alive connection.

    The requests are written and their answers read by hand (asyncio streams): a library
    client (httpx) costs several ms of CPU a request in Python, more than the server's
    work, so 50 of them in one process would measure the client, not the server."""
    import httpx

    host, port = url.removeprefix("http://").split(":")
    async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=30) as c:
        r = await c.post("/api/games", json=GAME)
        r.raise_for_status()
        token = r.json()["seats"][0]["token"]
    request = (f"GET /api/seat/{token} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n").encode()
    reader, writer = await asyncio.open_connection(host, int(port))
    done = 0
    try:
        await _get(reader, writer, request)  # the connection is open and warm
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            t = time.perf_counter()
            await _get(reader, writer, request)
            latencies.append(time.perf_counter() - t)
            done += 1
    finally:
        writer.close()
    return done


async def _get(reader, writer, request: bytes) -> None:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"unexpected answer {head[:80]!r}")
    length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
    await reader.readexactly(length)


async def measure(url: str, clients: int, seconds: float) -> dict:
    latencies: list[float] = []
    t = time.perf_counter()
    counts = await asyncio.gather(*(client_loop(url, seconds, latencies)
                                    for _ in range(clients)))
    wall = time.perf_counter() - t
    latencies.sort()
    q = statistics.quantiles(latencies, n=100)
    return {"requests": sum(counts), "rps": sum(counts) / wall,
            "p50": statistics.median(latencies) * 1000, "p99": q[98] * 1000}


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux ``/proc``; 0 elsewhere)."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def run_case(nodelay: bool, clients: int, seconds: float) -> dict:
    proc = subprocess.Popen([sys.executable, __file__, "--serve", "1" if nodelay else "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+", line).group(0)
        cpu = cpu_seconds(proc.pid)
        out = asyncio.run(measure(url, clients, seconds))
        out["server_ms"] = (cpu_seconds(proc.pid) - cpu) / out["requests"] * 1000
        return out
    finally:
        proc.terminate()
        proc.wait(10)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--serve", choices=["0", "1"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve == "1")
        return 0
    print(f"kept-alive connections, {args.seconds:g} s a case; server ms/req: the server "
          "process's CPU time per request")
    print(f"{'clients':>7}  {'server':<34} {'requests':>8} {'req/s':>7} {'p50 ms':>7} "
          f"{'p99 ms':>7} {'server ms/req':>13}")
    for clients in args.clients:
        rows = []
        for name, nodelay in (("reference (protocol 0, no NODELAY)", False),
                              ("served (TCP_NODELAY)", True)):
            r = run_case(nodelay, clients, args.seconds)
            rows.append(r)
            print(f"{clients:>7}  {name:<34} {r['requests']:>8} {r['rps']:>7.0f} "
                  f"{r['p50']:>7.1f} {r['p99']:>7.1f} {r['server_ms']:>13.2f}", flush=True)
        ref, new = rows
        print(f"{clients:>7}  TCP_NODELAY: {new['rps'] / ref['rps']:.1f}x the requests per "
              f"second; p50 {ref['p50']:.1f} -> {new['p50']:.1f} ms, p99 {ref['p99']:.1f} -> "
              f"{new['p99']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
