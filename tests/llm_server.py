"""A small OpenAI-compatible chat-completions server on loopback, for tests.

Each request is answered by the next scripted reply: a callable that gets the
request's JSON and returns (status, body dict or raw text, delay seconds).
Real HTTP, so litellm's whole client path (retries and timeouts included)
runs against it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[dict[str, Any]], tuple[int, Any, float]]


def completion(content: str, prompt_tokens: int = 120, completion_tokens: int = 40) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1_780_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


class LLMServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                reply = server.replies.pop(0) if server.replies else (
                    lambda _b: (500, {"error": {"message": "no reply scripted"}}, 0.0))
                status, payload, delay = reply(body)
                time.sleep(delay)
                data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> LLMServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def embeddings(texts: list[str], dims: int = 32) -> dict[str, Any]:
    """An OpenAI-style ``/embeddings`` answer: each text a bag of its words,
    hashed into ``dims`` buckets (texts sharing words point the same way)."""
    import hashlib
    import re

    data = []
    for i, text in enumerate(texts):
        vec = [0.0] * dims
        for word in re.findall(r"\w+", text.lower()):
            vec[int(hashlib.sha256(word[:5].encode()).hexdigest(), 16) % dims] += 1.0
        data.append({"object": "embedding", "index": i, "embedding": vec})
    return {"object": "list", "data": data, "model": "test-embed",
            "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)}}
