"""A loopback OpenAI-compatible chat-completions server that serves scripted replies.

A test double for a model server (which cannot run here): it speaks the real
protocol (POST /v1/chat/completions, JSON in and out) and records every request.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Stub:
    def __init__(
        self, script: Callable[[dict, int], list[str] | int | dict], models: tuple[str, ...] = ("supercoder",)
    ):
        """script(request_json, call_index) -> the contents of the choices, an HTTP status code to fail with, or a
        raw JSON body (a dict) to answer instead of a chat completion."""
        self.script = script
        self.requests: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # what `vllm serve` answers for health checks
                if self.path == "/health":
                    data = b""
                elif self.path == "/v1/models":
                    data = json.dumps(
                        {"object": "list", "data": [{"id": m, "object": "model"} for m in models]}
                    ).encode()
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                out = stub.script(body, len(stub.requests) - 1)
                if isinstance(out, int):
                    self.send_response(out)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(
                        json.dumps({"error": {"message": "scripted failure", "type": "server_error"}}).encode()
                    )
                    return
                if isinstance(out, dict):  # a raw JSON body, e.g. {} from a broken server
                    reply = out
                else:
                    reply = self.completion(body, out)
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            @staticmethod
            def completion(body: dict, out: list[str]) -> dict:
                return {
                    "id": f"chatcmpl-{len(stub.requests)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body["model"],
                    "choices": [
                        {"index": i, "message": {"role": "assistant", "content": c}, "finish_reason": "stop"}
                        for i, c in enumerate(out)
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
