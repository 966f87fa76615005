"""Running the application (:mod:`kairos.http.app`) on uvicorn.

The socket is bound before uvicorn starts, so ``--port 0`` can say which
port it got.  uvicorn stops gracefully on SIGTERM and SIGINT: it stops
accepting, lets in-flight requests finish (each one answered only once its
write is durable), and then the read side is flushed before the home
closes.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys

from kairos.http.app import create_app
from kairos.memory import Memory


def run_server(memory: Memory, host: str, port: int) -> None:
    import uvicorn

    app = create_app(memory)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Inherited by each connection: a response's headers and body go out at
    # once, not the body held back for the client's delayed ACK (40 ms).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(1024)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
    print(f"kairos serve: {memory.home} on http://{shown}:{bound}", file=sys.stderr, flush=True)
    # h11 buffers at most 64 KiB of a request's head that has not ended;
    # the application refuses heads over 16 KiB (kairos.http.app.HeaderLimit).
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=30, limit_concurrency=1024, http="h11",
                            h11_max_incomplete_event_size=64 * 1024)
    server = uvicorn.Server(config)
    # uvicorn shuts down gracefully on these, then raises the signal again
    # with the handlers it found: make that a clean exit, after the flush.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_cleanly)
    try:
        server.run(sockets=[sock])
    finally:
        memory.flush()  # what the requests wrote, in the read side before the home closes
        sock.close()


def _exit_cleanly(_signum: int, _frame: object) -> None:
    raise SystemExit(0)


__all__ = ["run_server"]
